// Decoders of captures (docs/knowledge.md).  Pure.
#include "knowledge/decode.hpp"

#include "core/parse.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

namespace rdnafix::knowledge {

namespace {

std::string lower(std::string_view s)
{
	std::string o(s);
	for (auto &c : o)
		c = char(std::tolower(static_cast<unsigned char>(c)));
	return o;
}

std::optional<long long> integer(std::string_view s)
{
	const auto v = core::parse_i64(core::trim(s));
	if (!v)
		return std::nullopt;
	return static_cast<long long>(*v);
}

// gfx names in `s`: "gfx1030", "gfx90a:xnack-".
std::vector<std::string> gfx_names(std::string_view s)
{
	std::vector<std::string> out;
	const std::string l = lower(s);
	for (std::size_t at = l.find("gfx"); at != std::string::npos; at = l.find("gfx", at + 3)) {
		if (at > 0 && std::isalnum(static_cast<unsigned char>(l[at - 1])))
			continue;
		std::size_t e = at + 3;
		while (e < l.size() && std::isxdigit(static_cast<unsigned char>(l[e])))
			++e;
		if (e == at + 3 || e - at > 8)
			continue;
		// target features (":sramecc+:xnack-") belong to the name
		while (e + 1 < l.size() && l[e] == ':' && std::isalpha(static_cast<unsigned char>(l[e + 1]))) {
			std::size_t f = e + 1;
			while (f < l.size() && (std::isalnum(static_cast<unsigned char>(l[f])) || l[f] == '_'))
				++f;
			if (f < l.size() && (l[f] == '+' || l[f] == '-'))
				++f;
			else
				break;
			e = f;
		}
		std::string name = l.substr(at, e - at);
		if (std::find(out.begin(), out.end(), name) == out.end())
			out.push_back(std::move(name));
	}
	return out;
}

Fact code_fact(const std::string &name, std::string_view raw, const std::map<long long, Code> &codes,
	       const std::map<std::string, long long> *names, std::string_view what)
{
	const std::string t(core::trim(raw));
	std::optional<long long> code = integer(t);
	if (!code && names) {
		if (const auto it = names->find(t); it != names->end())
			code = it->second;
	}
	if (code) {
		if (const auto it = codes.find(*code); it != codes.end())
			return {name, it->second.name,
				fmt::format("{} ({}{}){}", it->second.name, what == "hsa" ? "0x" : "",
					    what == "hsa" ? fmt::format("{:x}", *code) : std::to_string(*code),
					    it->second.text.empty() ? "" : ": " + it->second.text)};
	}
	return {name, t, fmt::format("{} (not a known {} code)", t, what == "hsa" ? "HSA status" : what)};
}

} // namespace

std::optional<unsigned long long> parse_bytes(std::string_view s)
{
	s = core::trim(s);
	std::size_t i = 0;
	while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == ','))
		++i;
	std::string num;
	for (char c : s.substr(0, i))
		if (c != ',')
			num += c;
	if (num.empty() || num.size() > 24 || std::count(num.begin(), num.end(), '.') > 1 || num == ".")
		return std::nullopt;
	std::string unit = lower(core::trim(s.substr(i)));
	double mult = 1;
	static const std::pair<std::string_view, double> units[] = {{"", 1},
								    {"b", 1},
								    {"bytes", 1},
								    {"k", 1024.0},
								    {"kb", 1024.0},
								    {"kib", 1024.0},
								    {"m", 1048576.0},
								    {"mb", 1048576.0},
								    {"mib", 1048576.0},
								    {"g", 1073741824.0},
								    {"gb", 1073741824.0},
								    {"gib", 1073741824.0},
								    {"t", 1099511627776.0},
								    {"tb", 1099511627776.0},
								    {"tib", 1099511627776.0}};
	bool ok = false;
	for (const auto &[u, m] : units)
		if (unit == u) {
			mult = m;
			ok = true;
		}
	if (!ok)
		return std::nullopt;
	const double v = std::strtod(num.c_str(), nullptr) * mult;
	if (!(v >= 0) || v > 1.8e19)
		return std::nullopt;
	return static_cast<unsigned long long>(std::llround(v));
}

std::string format_bytes(unsigned long long b)
{
	if (b >= (1ull << 30))
		return fmt::format("{:.2f} GiB", double(b) / double(1ull << 30));
	if (b >= (1ull << 20))
		return fmt::format("{:.1f} MiB", double(b) / double(1ull << 20));
	if (b >= 1024)
		return fmt::format("{:.1f} KiB", double(b) / 1024.0);
	return fmt::format("{} bytes", b);
}

std::vector<Fact> decode(const Entry &entry, const Tables &tables, const Captured &captured)
{
	std::vector<Fact> out;
	for (const auto &c : entry.captures) {
		std::vector<std::string_view> raws;
		for (const auto &[n, v] : captured)
			if (n == c.name)
				raws.push_back(v);
		if (raws.empty())
			continue;
		const std::string_view raw = raws.front();
		const std::string t(core::trim(raw));
		switch (c.decoder) {
		case Decoder::text:
		case Decoder::path:
			out.push_back({c.name, t, t});
			break;
		case Decoder::library: {
			const auto slash = t.rfind('/');
			const std::string base = slash == std::string::npos ? t : t.substr(slash + 1);
			out.push_back({c.name, base, t});
			break;
		}
		case Decoder::integer:
		case Decoder::hex: {
			const auto v = integer(t);
			if (!v)
				out.push_back({c.name, t, t + " (not a number)"});
			else if (c.decoder == Decoder::hex)
				out.push_back({c.name, fmt::format("0x{:x}", *v), fmt::format("0x{:x}", *v)});
			else
				out.push_back({c.name, std::to_string(*v), std::to_string(*v)});
			break;
		}
		case Decoder::bytes: {
			const auto b = parse_bytes(t);
			out.push_back(b ? Fact{c.name, std::to_string(*b), fmt::format("{} ({} bytes)", t, *b), t}
					: Fact{c.name, t, t + " (not a size)", t});
			break;
		}
		case Decoder::gfx: {
			const auto g = gfx_names(t);
			out.push_back(g.empty() ? Fact{c.name, t, t + " (not a gfx target)"}
						: Fact{c.name, g[0], g[0]});
			break;
		}
		case Decoder::gfx_list: {
			std::vector<std::string> all;
			for (const auto r : raws)
				for (auto &g : gfx_names(r))
					if (std::find(all.begin(), all.end(), g) == all.end())
						all.push_back(std::move(g));
			std::string joined;
			for (const auto &g : all)
				joined += (joined.empty() ? "" : ",") + g;
			out.push_back({c.name, joined, joined.empty() ? "none" : joined});
			break;
		}
		case Decoder::hip_error:
			out.push_back(code_fact(c.name, t, tables.hip_error, &tables.hip_names, "HIP error"));
			break;
		case Decoder::hsa_status:
			out.push_back(code_fact(c.name, t, tables.hsa_status, &tables.hsa_names, "hsa"));
			break;
		case Decoder::errno_name: {
			auto v = integer(t);
			if (v && *v < 0)
				*v = -*v;
			const auto it = v ? tables.errno_codes.find(*v) : tables.errno_codes.end();
			out.push_back(it == tables.errno_codes.end()
					      ? Fact{c.name, t, t + " (not a known errno)"}
					      : Fact{c.name, it->second.name,
						     fmt::format("{} ({}): {}", it->second.name, t, it->second.text)});
			break;
		}
		}
	}
	return out;
}

std::string substitute(std::string_view text, const std::vector<Fact> &facts)
{
	std::string out;
	std::size_t at = 0;
	while (at < text.size()) {
		const auto open = text.find('{', at);
		if (open == std::string_view::npos) {
			out.append(text.substr(at));
			break;
		}
		const auto close = text.find('}', open);
		out.append(text.substr(at, open - at));
		if (close == std::string_view::npos) {
			out.append(text.substr(open));
			break;
		}
		const std::string_view name = text.substr(open + 1, close - open - 1);
		const auto f = std::find_if(facts.begin(), facts.end(), [&](const Fact &x) { return x.name == name; });
		const bool placeholder = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
			return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
		});
		if (f != facts.end() && !f->value.empty())
			out += f->shown.empty() ? f->value : f->shown;
		else if (placeholder)
			out += "(not printed)"; // the log's line did not carry this capture
		else
			out.append(text.substr(open, close - open + 1));
		at = close + 1;
	}
	return out;
}

} // namespace rdnafix::knowledge
