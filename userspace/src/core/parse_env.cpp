// Environment parsers (env files: parse_env_file.cpp): /proc/<pid>/environ, HSA_OVERRIDE_GFX_VERSION,
// *_VISIBLE_DEVICES.
#include <cctype>
#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "core/parse.hpp"
#include "core/proc_stat.hpp"
#include "core/text_util.hpp"

namespace rdnafix::core {

std::optional<std::string> Environment::get(std::string_view name) const
{
	std::optional<std::string> found;
	for (const auto &v : vars)
		if (v.name == name) {
			if (!last_wins)
				return v.unset ? std::nullopt : std::optional<std::string>(v.value);
			found = v.unset ? std::nullopt : std::optional<std::string>(v.value);
		}
	return found;
}

std::optional<ProcStat> parse_proc_stat(std::string_view text)
{
	const auto open = text.find('(');
	const auto close = text.rfind(')');
	if (open == std::string_view::npos || close == std::string_view::npos || close < open ||
	    close + 2 >= text.size())
		return std::nullopt;
	ProcStat st;
	st.comm = std::string(text.substr(open + 1, close - open - 1));
	std::string_view rest = text.substr(close + 2);
	st.state = rest[0];
	// state ppid pgrp session tty_nr tpgid flags: the 7th word
	for (int word = 0; word < 6; ++word) {
		const auto sp = rest.find(' ');
		if (sp == std::string_view::npos)
			return std::nullopt;
		rest.remove_prefix(sp + 1);
	}
	const auto flags = parse_u64(rest.substr(0, rest.find(' ')));
	if (!flags)
		return std::nullopt;
	st.flags = *flags;
	return st;
}

Environment parse_environ(std::string_view bytes)
{
	Environment env;
	env.last_wins = false; // glibc getenv returns the first match
	std::size_t pos = 0;
	unsigned idx = 0;
	while (pos < bytes.size()) {
		std::size_t end = bytes.find('\0', pos);
		if (end == std::string_view::npos)
			end = bytes.size();
		std::string_view entry = bytes.substr(pos, end - pos);
		pos = end + 1;
		++idx;
		if (entry.empty())
			continue;
		std::size_t eq = entry.find('=');
		if (eq == std::string_view::npos || eq == 0) {
			env.problems.push_back(fmt::format("entry {}: no NAME=VALUE: '{}'", idx, detail::shown(entry)));
			continue;
		}
		env.vars.push_back(EnvVar{std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)), 0});
	}
	return env;
}

bool is_environ_block(std::string_view bytes)
{
	// The kernel ends every entry, the last one too, with a NUL.
	if (bytes.empty() || bytes.back() != '\0')
		return false;
	std::size_t pos = 0;
	while (pos < bytes.size()) {
		const std::size_t end = bytes.find('\0', pos);
		const std::string_view entry = bytes.substr(pos, end - pos);
		pos = end + 1;
		if (entry.empty())
			continue;
		const std::size_t eq = entry.find('=');
		if (eq == std::string_view::npos || eq == 0)
			return false;
		// Names are printable and without blanks (BASH_FUNC_f%% included).
		for (char c : entry.substr(0, eq))
			if (c <= ' ' || c == '\x7f')
				return false;
	}
	return true;
}

Result<GfxTarget> parse_hsa_override(std::string_view value)
{
	constexpr std::string_view valid =
		"valid: three decimal numbers major.minor.stepping, such as 10.3.0 (gfx1030) or 11.0.0 (gfx1100)";
	auto fail = [&](const std::string &why) {
		return Error{fmt::format("HSA_OVERRIDE_GFX_VERSION value '{}' is invalid: {}; {}", detail::shown(value),
					 why, valid)};
	};
	if (value.empty())
		return fail("it is empty");
	std::string_view v = value;
	if (v.size() >= 3 && (v.substr(0, 3) == "gfx" || v.substr(0, 3) == "GFX")) {
		std::string hint;
		// gfx + decimal major + hex minor + hex stepping -> dotted.
		if (v.size() >= 6) {
			std::string_view tail = v.substr(v.size() - 2);
			std::string_view major = v.substr(3, v.size() - 5);
			unsigned mj = 0;
			auto [p, ec] = std::from_chars(major.data(), major.data() + major.size(), mj);
			auto hex = [](char c) {
				return (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
			};
			if (ec == std::errc{} && p == major.data() + major.size() && hex(tail[0]) >= 0 &&
			    hex(tail[1]) >= 0)
				hint = fmt::format(" (the dotted form of {} is {}.{}.{})", v, mj, hex(tail[0]),
						   hex(tail[1]));
		}
		return fail("ROCr does not accept a gfx name" + hint);
	}
	unsigned f[3] = {0, 0, 0};
	std::size_t pos = 0;
	for (int i = 0; i < 3; ++i) {
		// sscanf's %u (ROCr's parser) skips leading white space and takes a '+'.
		while (pos < v.size() && detail::is_space(v[pos]))
			++pos;
		if (pos < v.size() && v[pos] == '+')
			++pos;
		std::size_t start = pos;
		while (pos < v.size() && v[pos] >= '0' && v[pos] <= '9')
			++pos;
		if (pos == start) {
			if (pos < v.size() && v[pos] == ',')
				return fail("fields are separated by '.', not ','");
			if (pos >= v.size())
				return fail(fmt::format("it has {} field{}, ROCr needs exactly three", i,
							i == 1 ? "" : "s"));
			return fail(fmt::format("unexpected character '{}'", detail::shown(v.substr(pos, 1))));
		}
		auto [p, ec] = std::from_chars(v.data() + start, v.data() + pos, f[i]);
		if (ec != std::errc{})
			return fail("a field is too large");
		if (i < 2) {
			if (pos >= v.size())
				return fail(fmt::format("it has {} field{}, ROCr needs exactly three", i + 1,
							i == 0 ? "" : "s"));
			if (v[pos] == ',')
				return fail("fields are separated by '.', not ','");
			if (v[pos] != '.')
				return fail(fmt::format("unexpected character '{}'", detail::shown(v.substr(pos, 1))));
			++pos;
		}
	}
	if (pos != v.size()) {
		if (v[pos] == '.')
			return fail("it has more than three fields");
		return fail(fmt::format("trailing characters '{}' (ROCr rejects anything after the third number)",
					detail::shown(v.substr(pos))));
	}
	if (f[0] > 63)
		return fail("major is above 63");
	if (f[1] > 255 || f[2] > 255)
		return fail("minor and stepping must be at most 255");
	return GfxTarget{f[0], f[1], f[2]};
}

std::optional<unsigned> hsa_override_node(std::string_view var_name)
{
	constexpr std::string_view prefix = "HSA_OVERRIDE_GFX_VERSION_";
	if (var_name.size() <= prefix.size() || var_name.substr(0, prefix.size()) != prefix)
		return std::nullopt;
	std::string_view n = var_name.substr(prefix.size());
	// The thunk builds the name with snprintf("HSA_OVERRIDE_GFX_VERSION_%d",
	// node_id) and getenv()s exactly that (ROCm/ROCR-Runtime c7785a6d,
	// libhsakmt/src/topology.c: topology_sysfs_get_node_props): "_01" or "_+1"
	// is another variable, never read.
	if (n.size() > 1 && n.front() == '0')
		return std::nullopt;
	unsigned v = 0;
	auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
	if (ec != std::errc{} || p != n.data() + n.size() || v > unsigned(std::numeric_limits<int>::max()))
		return std::nullopt;
	return v;
}

Result<VisibleDevices> parse_visible_devices(std::string_view value, std::string_view var_name)
{
	VisibleDevices out;
	if (trim(value).empty())
		return out;
	std::size_t pos = 0;
	while (true) {
		std::size_t end = value.find(',', pos);
		std::string_view raw =
			value.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
		std::string_view e = trim(raw);
		auto bad = [&](std::string_view why) {
			return Error{fmt::format(
				"{} entry '{}' is invalid: {}; valid: a comma-separated list of device indices "
				"(0, 1, ...) or UUIDs (GPU-<hex>), e.g. {}=0",
				var_name, detail::shown(e), why, var_name)};
		};
		if (e.empty())
			return bad("empty entry");
		if (e.front() == '-') {
			// "-1": the runtimes stop enumerating at the first invalid index.
			auto neg = parse_i64(e);
			if (!neg)
				return bad("not a number");
			out.stopped_at = std::string(e);
			return out;
		}
		if (e.front() >= '0' && e.front() <= '9') {
			unsigned idx = 0;
			auto [p, ec] = std::from_chars(e.data(), e.data() + e.size(), idx);
			if (ec != std::errc{} || p != e.data() + e.size())
				return bad("not a device index");
			out.devices.push_back(VisibleDevice{idx, {}});
		} else if (e.size() > 4 && (e.substr(0, 4) == "GPU-" || e.substr(0, 4) == "gpu-")) {
			for (char c : e.substr(4))
				if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') ||
				      c == '-'))
					return bad("a UUID has only hex digits after 'GPU-'");
			out.devices.push_back(VisibleDevice{std::nullopt, std::string(e)});
		} else {
			return bad("neither an index nor a GPU-<hex> UUID");
		}
		if (end == std::string_view::npos)
			break;
		pos = end + 1;
	}
	return out;
}

namespace {
std::string lower(std::string_view s)
{
	std::string out;
	for (char ch : s)
		out += char(std::tolower(static_cast<unsigned char>(ch)));
	return out;
}
} // namespace

bool alloc_conf_expandable(std::string_view value)
{
	return lower(value).find("expandable_segments:true") != std::string::npos;
}

AllocConf parse_alloc_conf(std::string_view value)
{
	AllocConf out;
	std::vector<std::string> tok;
	std::string buf;
	for (char c : value) {
		if (c == ',' || c == ':' || c == '[' || c == ']') {
			if (!buf.empty())
				tok.push_back(std::move(buf));
			buf.clear();
			tok.emplace_back(1, c);
		} else if (!detail::is_space(c)) {
			buf.push_back(c);
		}
	}
	if (!buf.empty())
		tok.push_back(std::move(buf));
	auto sep = [](const std::string &t) { return t == "," || t == ":" || t == "[" || t == "]"; };
	std::size_t i = 0;
	unsigned n = 0;
	while (i < tok.size()) {
		++n;
		if (tok[i] == ",") { // empty option: PyTorch expects a key here
			out.problems.push_back(fmt::format("option {}: empty (two ',' in a row or a leading ',')", n));
			++i;
			continue;
		}
		if (sep(tok[i])) {
			out.problems.push_back(fmt::format("option {}: expected a key, got '{}'", n, tok[i]));
			while (i < tok.size() && tok[i] != ",")
				++i;
			++i;
			continue;
		}
		AllocOption o{tok[i], ""};
		++i;
		if (i >= tok.size() || tok[i] != ":") {
			out.problems.push_back(fmt::format("option {}: '{}' has no ':value'", n, detail::shown(o.key)));
			while (i < tok.size() && tok[i] != ",")
				++i;
			++i;
			continue;
		}
		++i;
		if (i < tok.size() && tok[i] == "[") {
			int depth = 0;
			for (; i < tok.size(); ++i) {
				o.value += tok[i];
				depth += tok[i] == "[" ? 1 : tok[i] == "]" ? -1 : 0;
				if (depth == 0)
					break;
			}
			if (depth != 0)
				out.problems.push_back(fmt::format("option {}: '{}' has an unclosed '['", n, o.key));
			++i;
		} else if (i < tok.size() && !sep(tok[i])) {
			o.value = tok[i++];
		} else {
			out.problems.push_back(fmt::format("option {}: '{}' has no value after ':'", n, o.key));
		}
		if (i < tok.size() && tok[i] != ",") {
			out.problems.push_back(fmt::format("option {}: unexpected '{}' after {}:{}", n,
							   detail::shown(tok[i]), o.key, o.value));
			while (i < tok.size() && tok[i] != ",")
				++i;
		}
		++i; // the ','
		out.options.push_back(std::move(o));
	}
	return out;
}

} // namespace rdnafix::core
