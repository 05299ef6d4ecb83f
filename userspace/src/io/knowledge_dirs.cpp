// Reads the knowledge overlay directories (knowledge_dirs.hpp) through
// io::RootFs at "/": its directory listing and its bounded text reads.
#include "io/knowledge_dirs.hpp"

#include "io/rootfs.hpp"

#include <cstdlib>
#include <map>

namespace rdnafix::io {

namespace {

constexpr std::size_t kMaxFile = 4u << 20;

std::vector<std::string> dirs()
{
	const char *env = std::getenv("RDNAFIX_KNOWLEDGE_DIRS");
	if (!env)
		return {"/usr/share/rdnafix/knowledge.d", "/etc/rdnafix/knowledge.d"};
	std::vector<std::string> out;
	std::string_view v(env);
	while (!v.empty()) {
		const auto colon = v.find(':');
		if (colon != 0)
			out.emplace_back(v.substr(0, colon));
		v = colon == std::string_view::npos ? std::string_view() : v.substr(colon + 1);
	}
	return out;
}

} // namespace

std::vector<KnowledgeFile> read_knowledge_dirs(std::vector<std::string> *problems)
{
	RootFs fs("/");
	std::map<std::string, std::string> by_name; // file name -> path (a later directory wins)
	for (std::string d : dirs()) {
		while (d.size() > 1 && d.back() == '/')
			d.pop_back();
		auto names = fs.list_dir(d);
		if (!names) {
			if (names.error().kind != FsErrorKind::not_found)
				problems->push_back(d + ": " + names.error().reason());
			continue;
		}
		for (const auto &n : *names)
			if (n.size() > 5 && n.ends_with(".toml") && !n.starts_with("."))
				by_name[n] = d + "/" + n;
	}
	std::vector<KnowledgeFile> out;
	for (const auto &[name, path] : by_name) {
		auto text = fs.read_text(path, {kMaxFile, true});
		if (!text) {
			problems->push_back(path + ": " + text.error().reason());
			continue;
		}
		out.push_back({path, std::move(*text)});
	}
	return out;
}

} // namespace rdnafix::io
