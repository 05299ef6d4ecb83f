// Reads the knowledge overlay directories (knowledge_dirs.hpp).
#include "io/knowledge_dirs.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

namespace rdnafix::io {

namespace {

constexpr std::uintmax_t kMaxFile = 4u << 20;

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
	namespace fs = std::filesystem;
	std::map<std::string, std::string> by_name; // file name -> path (a later directory wins)
	for (const auto &d : dirs()) {
		std::error_code ec;
		fs::directory_iterator it(d, ec), end;
		if (ec) {
			if (ec != std::errc::no_such_file_or_directory)
				problems->push_back(d + ": " + ec.message());
			continue;
		}
		for (; it != end; it.increment(ec)) {
			if (ec)
				break;
			const auto &p = it->path();
			if (p.extension() == ".toml" && !p.filename().string().starts_with("."))
				by_name[p.filename().string()] = p.string();
		}
	}
	std::vector<KnowledgeFile> out;
	for (const auto &[name, path] : by_name) {
		std::error_code ec;
		const auto size = fs::file_size(path, ec);
		if (ec) {
			problems->push_back(path + ": " + ec.message());
			continue;
		}
		if (size > kMaxFile) {
			problems->push_back(path + ": larger than 4 MiB, not read");
			continue;
		}
		std::ifstream f(path, std::ios::binary);
		if (!f) {
			problems->push_back(path + ": cannot be opened");
			continue;
		}
		std::stringstream ss;
		ss << f.rdbuf();
		out.push_back({path, ss.str()});
	}
	return out;
}

} // namespace rdnafix::io
