// The owned modprobe.d file: parse, apply, render (see owned_file.hpp).
#include "config/owned_file.hpp"

#include "config/keys.hpp"
#include "core/parse.hpp"
#include "core/text_util.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace rdnafix::config {

namespace {

std::size_t rank(const ModuleChange &c)
{
	auto keys = managed_keys();
	for (std::size_t i = 0; i < keys.size(); ++i)
		if (keys[i].module == c.module && keys[i].name == c.name)
			return i;
	return keys.size();
}

bool is_rdnactl_softdep(const core::ModprobeEntry &e)
{
	return e.kind == core::ModprobeKind::softdep && e.module == "amdgpu" &&
	       e.pre == std::vector<std::string>{"rdnafix"} && e.post.empty();
}

} // namespace

OwnedFile parse_owned(std::string_view text, std::string_view file)
{
	OwnedFile out;
	auto cfg = core::parse_modprobe_conf(text, file);
	// Lines the parser skipped (unknown directives, malformed lines) are foreign too.
	std::vector<unsigned> parsed_lines;
	for (const auto &e : cfg.entries) {
		parsed_lines.push_back(e.where.line);
		bool ours = false;
		if (e.kind == core::ModprobeKind::options) {
			ours = std::all_of(e.params.begin(), e.params.end(), [&](const core::ModuleParam &p) {
				return p.value && find_key(e.module, p.name) != nullptr;
			});
			if (ours)
				for (const auto &p : e.params) {
					auto it =
						std::find_if(out.values.begin(), out.values.end(), [&](const auto &v) {
							return v.module == e.module && v.name == p.name;
						});
					if (it != out.values.end())
						it->value = p.value;
					else
						out.values.push_back(ModuleChange{e.module, p.name, p.value});
				}
		} else if (is_rdnactl_softdep(e)) {
			ours = true;
			out.softdep = true;
		}
		if (!ours)
			out.foreign.push_back(OwnedLine{e.where.line, e.text});
	}
	auto lines = core::detail::split_lines(text);
	bool continued = false;
	for (std::size_t i = 0; i < lines.size(); ++i) {
		std::string_view l = lines[i];
		const bool starts_logical = !continued;
		continued = !l.empty() && l.back() == '\\';
		if (!starts_logical)
			continue;
		const unsigned n = unsigned(i + 1);
		std::string_view t = core::trim(l);
		if (!l.empty() && l.front() == '#') {
			if (l != kOwnedHeader && l != kOwnedUndoLine)
				out.comments.push_back(OwnedLine{n, std::string(l)});
			continue;
		}
		if (t.empty())
			continue;
		if (std::find(parsed_lines.begin(), parsed_lines.end(), n) == parsed_lines.end())
			out.foreign.push_back(OwnedLine{n, std::string(l)});
	}
	std::sort(out.foreign.begin(), out.foreign.end(),
		  [](const OwnedLine &a, const OwnedLine &b) { return a.line < b.line; });
	return out;
}

std::vector<ModuleChange> apply_to(const std::vector<ModuleChange> &values, const std::vector<ModuleChange> &changes)
{
	std::vector<ModuleChange> out = values;
	for (const auto &c : changes) {
		auto it = std::find_if(out.begin(), out.end(),
				       [&](const auto &v) { return v.module == c.module && v.name == c.name; });
		if (!c.value) {
			if (it != out.end())
				out.erase(it);
		} else if (it != out.end()) {
			it->value = c.value;
		} else {
			out.push_back(c);
		}
	}
	std::stable_sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return rank(a) < rank(b); });
	return out;
}

std::vector<std::string> modprobe_lines(const std::vector<ModuleChange> &values)
{
	std::vector<std::string> out;
	auto sorted = apply_to(values, {});
	bool rdnafix = false;
	for (std::size_t i = 0; i < sorted.size();) {
		const std::string &module = sorted[i].module;
		std::string line = "options " + module;
		for (; i < sorted.size() && sorted[i].module == module; ++i)
			line += fmt::format(" {}={}", sorted[i].name, sorted[i].value.value_or(""));
		rdnafix = rdnafix || module == "rdnafix";
		out.push_back(std::move(line));
	}
	if (rdnafix)
		out.emplace_back("softdep amdgpu pre: rdnafix");
	return out;
}

std::optional<std::string> render_owned(const std::vector<ModuleChange> &values)
{
	if (values.empty())
		return std::nullopt;
	std::string out = fmt::format("{}\n{}\n", kOwnedHeader, kOwnedUndoLine);
	for (const auto &l : modprobe_lines(values))
		out += l + "\n";
	return out;
}

std::optional<std::string> value_of(const std::vector<ModuleChange> &values, std::string_view module,
				    std::string_view name)
{
	for (const auto &v : values)
		if (v.module == module && v.name == name)
			return v.value;
	return std::nullopt;
}

} // namespace rdnafix::config
