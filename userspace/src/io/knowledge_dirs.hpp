#pragma once
// The overlay directories of the knowledge base (docs/knowledge.md):
// /usr/share/rdnafix/knowledge.d then /etc/rdnafix/knowledge.d (or the
// colon-separated RDNAFIX_KNOWLEDGE_DIRS), their *.toml files in name
// order; a file in a later directory hides one of the same name in an
// earlier one.  Unreadable files and files over 4 MiB become problems.
#include <string>
#include <utility>
#include <vector>

namespace rdnafix::io {

struct KnowledgeFile {
	std::string path, text;
};

std::vector<KnowledgeFile> read_knowledge_dirs(std::vector<std::string> *problems);

} // namespace rdnafix::io
