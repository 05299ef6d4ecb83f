#pragma once
// The knowledge files built into rdnactl (userspace/data/knowledge/*.toml,
// checked and embedded at build time by tools/knowledge_embed.cpp).
#include "knowledge/model.hpp"

#include <vector>

namespace rdnafix::knowledge {

const std::vector<SourceText> &builtin_files();

} // namespace rdnafix::knowledge
