// modprobe.d parser with kmod's rules (modprobe.d(5); kmod libkmod-config.c
// behaviour): '#' comments only in column 0, '\' + newline joins lines,
// directives alias / blacklist / options / install / remove / softdep, module
// names with '-' and '_' equivalent.  Files are parsed in name order and the
// kernel command line's module.param= options come AFTER all files, so they
// win (kmod_config_new parses the files, then /proc/cmdline).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/parse.hpp"
#include "core/text_util.hpp"

namespace rdnafix::core {

std::string_view to_string(ModprobeKind kind)
{
	switch (kind) {
	case ModprobeKind::options:
		return "options";
	case ModprobeKind::install:
		return "install";
	case ModprobeKind::remove:
		return "remove";
	case ModprobeKind::softdep:
		return "softdep";
	case ModprobeKind::blacklist:
		return "blacklist";
	case ModprobeKind::alias:
		return "alias";
	}
	return "unknown";
}

namespace {

struct LogicalLine {
	std::string text;
	unsigned first_line = 0;
};

// Physical lines joined at a trailing backslash (the backslash and the
// newline are removed, as kmod's getline_wrapped does).
std::vector<LogicalLine> logical_lines(std::string_view text)
{
	std::vector<LogicalLine> out;
	auto lines = detail::split_lines(text);
	LogicalLine cur;
	bool continuing = false;
	for (std::size_t i = 0; i < lines.size(); ++i) {
		std::string_view l = lines[i];
		if (!continuing) {
			cur = LogicalLine{std::string(), static_cast<unsigned>(i + 1)};
		}
		if (!l.empty() && l.back() == '\\') {
			cur.text.append(l.substr(0, l.size() - 1));
			continuing = true;
			continue;
		}
		cur.text.append(l);
		continuing = false;
		out.push_back(std::move(cur));
	}
	if (continuing)
		out.push_back(std::move(cur)); // a backslash on the last line
	return out;
}

// The rest of `line` after skipping `n` words (and the blanks after them).
std::string_view rest_after_words(std::string_view line, int n)
{
	std::size_t i = 0;
	for (int w = 0; w < n; ++w) {
		while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
			++i;
		while (i < line.size() && line[i] != ' ' && line[i] != '\t')
			++i;
	}
	while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
		++i;
	return line.substr(i);
}

} // namespace

ModprobeConfig parse_modprobe_conf(std::string_view text, std::string_view file_name)
{
	ModprobeConfig cfg;
	const std::string file(file_name);
	for (auto &ll : logical_lines(text)) {
		std::string_view line = ll.text;
		if (line.empty() || line.front() == '#')
			continue;
		auto words = detail::split_words(line);
		if (words.empty())
			continue;
		auto problem = [&](const std::string &what) {
			cfg.problems.push_back(fmt::format("{} line {}: {}", file, ll.first_line, what));
		};
		std::string_view cmd = words[0];
		ModprobeEntry e;
		e.where = Provenance{file, ll.first_line};
		e.text = std::string(line);
		if (cmd == "alias") {
			if (words.size() < 3) {
				problem("'alias' needs a name and a module (alias <wildcard> <module>); line ignored");
				continue;
			}
			e.kind = ModprobeKind::alias;
			e.alias = normalize_module_name(words[1]);
			e.module = normalize_module_name(words[2]);
		} else if (cmd == "blacklist") {
			if (words.size() < 2) {
				problem("'blacklist' needs a module name; line ignored");
				continue;
			}
			e.kind = ModprobeKind::blacklist;
			e.module = normalize_module_name(words[1]);
		} else if (cmd == "options") {
			std::string_view opts = rest_after_words(line, 2);
			if (words.size() < 3 || opts.empty()) {
				problem("'options' needs a module and at least one parameter (options <module> "
					"name=value); "
					"line ignored");
				continue;
			}
			e.kind = ModprobeKind::options;
			e.module = normalize_module_name(words[1]);
			e.params = split_module_params(opts);
			for (const auto &p : e.params)
				if (!p.name.empty() && p.name.front() == '#') {
					problem(fmt::format(
						"'#' after 'options {}' is not a comment: modprobe passes the words "
						"after it to the module as parameters too",
						e.module));
					break;
				}
		} else if (cmd == "install" || cmd == "remove") {
			std::string_view command = rest_after_words(line, 2);
			if (words.size() < 3 || command.empty()) {
				problem(fmt::format(
					"'{}' needs a module and a command ({} <module> <command...>); line ignored",
					cmd, cmd));
				continue;
			}
			e.kind = cmd == "install" ? ModprobeKind::install : ModprobeKind::remove;
			e.module = normalize_module_name(words[1]);
			e.command = std::string(command);
		} else if (cmd == "softdep") {
			if (words.size() < 3) {
				problem("'softdep' needs a module and pre:/post: lists (softdep <module> pre: <m...> "
					"post: <m...>); "
					"line ignored");
				continue;
			}
			e.kind = ModprobeKind::softdep;
			e.module = normalize_module_name(words[1]);
			enum { none, pre, post } mode = none;
			for (std::size_t i = 2; i < words.size(); ++i) {
				if (words[i] == "pre:")
					mode = pre;
				else if (words[i] == "post:")
					mode = post;
				else if (mode == pre)
					e.pre.push_back(normalize_module_name(words[i]));
				else if (mode == post)
					e.post.push_back(normalize_module_name(words[i]));
				else
					problem(fmt::format("softdep {}: '{}' before any 'pre:' or 'post:' is ignored",
							    e.module, detail::shown(words[i])));
			}
		} else if (cmd == "include" || cmd == "config") {
			problem(fmt::format("'{}' is deprecated and not parsed by kmod; line ignored", cmd));
			continue;
		} else {
			problem(fmt::format(
				"unknown directive '{}' (valid: alias, blacklist, options, install, remove, "
				"softdep; '#' starts a comment only in the first column); line ignored",
				detail::shown(cmd)));
			continue;
		}
		cfg.entries.push_back(std::move(e));
	}
	return cfg;
}

std::vector<std::pair<std::string, ModuleParamSetting>> module_options(const std::vector<ModprobeConfig> &configs,
								       std::string_view module)
{
	const std::string want = normalize_module_name(module);
	std::vector<std::pair<std::string, ModuleParamSetting>> out;
	for (const auto &cfg : configs)
		for (const auto &e : cfg.entries) {
			if (e.kind != ModprobeKind::options || e.module != want)
				continue;
			for (const auto &p : e.params) {
				ModuleParamSetting s{p.value.value_or(""), e.where};
				auto it = std::find_if(out.begin(), out.end(),
						       [&](const auto &kv) { return kv.first == p.name; });
				if (it != out.end())
					it->second = std::move(s);
				else
					out.emplace_back(p.name, std::move(s));
			}
		}
	return out;
}

std::vector<ModprobeFile> modprobe_file_order(const std::vector<ModprobeDir> &dirs)
{
	// kmod conf_files_list/conf_files_insert_sorted: only *.conf (and
	// *.alias) files, no dot-files; a name seen in an earlier directory hides
	// the same name in a later one; all files are then read in strcmp order.
	std::map<std::string, std::string> by_name; // name -> dir (std::map: strcmp order)
	for (const auto &d : dirs)
		for (const auto &name : d.files) {
			if (name.empty() || name.front() == '.')
				continue;
			bool conf = name.size() >= 6 && name.compare(name.size() - 5, 5, ".conf") == 0;
			bool alias = name.size() >= 7 && name.compare(name.size() - 6, 6, ".alias") == 0;
			if (!conf && !alias)
				continue;
			by_name.emplace(name, d.dir); // emplace keeps the first directory's entry
		}
	std::vector<ModprobeFile> out;
	out.reserve(by_name.size());
	for (auto &[name, dir] : by_name)
		out.push_back(ModprobeFile{dir, name});
	return out;
}

} // namespace rdnafix::core
