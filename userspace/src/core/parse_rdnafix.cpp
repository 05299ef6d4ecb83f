// Parsers of rdnafix's sysfs counter/evidence files and of depmod's lists.
#include "core/parse_rdnafix.hpp"

#include "core/parse.hpp"
#include "core/text_util.hpp"

namespace rdnafix::core {

namespace {

std::string_view trim_view(std::string_view s)
{
	while (!s.empty() && detail::is_space(s.front()))
		s.remove_prefix(1);
	while (!s.empty() && detail::is_space(s.back()))
		s.remove_suffix(1);
	return s;
}

} // namespace

HookCountLines parse_hook_counts(std::string_view text)
{
	HookCountLines out;
	for (auto line : detail::split_lines(text)) {
		line = trim_view(line);
		if (line.empty())
			continue;
		auto words = detail::split_words(line);
		std::map<std::string, std::uint64_t> counts;
		bool ok = words.size() >= 2 && words[0].find('=') == std::string_view::npos;
		for (std::size_t i = 1; ok && i < words.size(); ++i) {
			const auto eq = words[i].find('=');
			if (eq == std::string_view::npos || eq == 0) {
				ok = false;
				break;
			}
			auto n = parse_u64(words[i].substr(eq + 1));
			if (!n) {
				ok = false;
				break;
			}
			counts[std::string(words[i].substr(0, eq))] = *n;
		}
		if (ok)
			out.hooks[std::string(words[0])] = std::move(counts);
		else
			out.bad.emplace_back(line);
	}
	return out;
}

KeyValueLines parse_colon_pairs(std::string_view text)
{
	KeyValueLines out;
	for (auto line : detail::split_lines(text)) {
		if (trim_view(line).empty())
			continue;
		const auto colon = line.find(':');
		const auto key =
			colon == std::string_view::npos ? std::string_view() : trim_view(line.substr(0, colon));
		if (key.empty() || key.find(' ') != std::string_view::npos) {
			out.bad.emplace_back(line);
			continue;
		}
		out.values[std::string(key)] = std::string(trim_view(line.substr(colon + 1)));
	}
	return out;
}

LeakLines parse_leaks(std::string_view text)
{
	LeakLines out;
	bool first = true;
	for (auto line : detail::split_lines(text)) {
		if (first) {
			first = false;
			if (auto n = parse_u64(trim_view(line)))
				out.total = *n;
			continue;
		}
		if (!trim_view(line).empty())
			out.recent.emplace_back(line);
	}
	return out;
}

std::string module_name_of(std::string_view path)
{
	const auto slash = path.rfind('/');
	if (slash != std::string_view::npos)
		path.remove_prefix(slash + 1);
	const auto ko = path.find(".ko");
	if (ko == std::string_view::npos)
		return {};
	const auto rest = path.substr(ko);
	if (rest != ".ko" && rest != ".ko.xz" && rest != ".ko.zst" && rest != ".ko.gz")
		return {};
	std::string name(path.substr(0, ko));
	// modprobe treats '-' and '_' in module names alike
	for (auto &c : name)
		if (c == '-')
			c = '_';
	return name;
}

std::string modules_dep_path(std::string_view text, std::string_view name)
{
	std::string want(name);
	for (auto &c : want)
		if (c == '-')
			c = '_';
	for (auto line : detail::split_lines(text)) {
		const auto colon = line.find(':');
		if (colon == std::string_view::npos)
			continue;
		const auto path = trim_view(line.substr(0, colon));
		if (module_name_of(path) == want)
			return std::string(path);
	}
	return {};
}

std::string_view module_origin(std::string_view path)
{
	if (!path.empty() && path.front() == '/')
		path.remove_prefix(1);
	constexpr std::string_view lib = "lib/modules/";
	if (path.substr(0, lib.size()) != lib)
		return "";
	path.remove_prefix(lib.size());
	const auto slash = path.find('/');
	if (slash == std::string_view::npos)
		return "";
	path.remove_prefix(slash + 1);
	for (auto [dir, word] : {std::pair<std::string_view, std::string_view>{"updates/dkms/", "dkms"},
				 {"updates/", "updates"},
				 {"extra/", "extra"},
				 {"kernel/", "in-tree"}})
		if (path.substr(0, dir.size()) == dir)
			return word;
	return "";
}

bool modules_builtin_has(std::string_view text, std::string_view name)
{
	for (auto line : detail::split_lines(text))
		if (module_name_of(trim_view(line)) == name)
			return true;
	return false;
}

} // namespace rdnafix::core
