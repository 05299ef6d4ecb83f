// The device-node manifest of a captured tree (dev/.devnodes).
#include <charconv>

#include <fmt/format.h>

#include "core/parse.hpp"
#include "core/text_util.hpp"

namespace rdnafix::core {

DevNodeManifest parse_devnode_manifest(std::string_view text)
{
	DevNodeManifest m;
	unsigned no = 0;
	for (std::string_view line : detail::split_lines(text)) {
		++no;
		std::string_view t = trim(line);
		if (t.empty() || t.front() == '#')
			continue;
		auto w = detail::split_words(t);
		auto bad = [&](std::string_view why) {
			m.problems.push_back(fmt::format("line {}: {} (valid: '<path> <c|b> <major>:<minor> "
							 "<octal mode> <owner> <group>'), got '{}'",
							 no, why, detail::shown(t)));
		};
		if (w.size() != 6) {
			bad(fmt::format("{} fields instead of 6", w.size()));
			continue;
		}
		DevNodeEntry e;
		std::string_view path = w[0];
		while (!path.empty() && path.front() == '/')
			path.remove_prefix(1);
		if (path.empty()) {
			bad("empty path");
			continue;
		}
		e.path = std::string(path);
		if (w[1] == "c")
			e.type = FileType::char_device;
		else if (w[1] == "b")
			e.type = FileType::block_device;
		else {
			bad("type must be 'c' or 'b'");
			continue;
		}
		std::string_view mm = w[2];
		auto colon = mm.find(':');
		unsigned mj = 0, mn = 0;
		bool ok = colon != std::string_view::npos;
		if (ok) {
			auto [p1, e1] = std::from_chars(mm.data(), mm.data() + colon, mj);
			auto [p2, e2] = std::from_chars(mm.data() + colon + 1, mm.data() + mm.size(), mn);
			ok = e1 == std::errc{} && e2 == std::errc{} && p1 == mm.data() + colon &&
			     p2 == mm.data() + mm.size();
		}
		if (!ok) {
			bad("major:minor must be two decimal numbers");
			continue;
		}
		e.major = mj;
		e.minor = mn;
		unsigned mode = 0;
		auto [pm, em] = std::from_chars(w[3].data(), w[3].data() + w[3].size(), mode, 8);
		if (em != std::errc{} || pm != w[3].data() + w[3].size() || mode > 07777) {
			bad("mode must be octal, at most 7777");
			continue;
		}
		e.mode = mode;
		e.owner = std::string(w[4]);
		e.group = std::string(w[5]);
		m.entries.push_back(std::move(e));
	}
	return m;
}

} // namespace rdnafix::core
