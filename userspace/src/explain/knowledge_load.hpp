#pragma once
// The knowledge base of one run (knowledge_load.cpp).
#include "explain/model.hpp"

#include <memory>
#include <string>
#include <vector>

namespace rdnafix::explain {

struct Loaded {
	knowledge::Base base;
	std::unique_ptr<knowledge::Matcher> matcher; // over `base` (a Loaded is not moved once built)
	std::vector<std::string> notes;              // problems of the files, as notes
	std::vector<std::string> overlay_files;      // the overlay files read
};

// `builtin`: the files compiled into the program; `overlays`: read the
// overlay directories too.  Held by pointer: the matcher refers to the base.
std::unique_ptr<Loaded> load_knowledge(const std::vector<knowledge::SourceText> &builtin, bool overlays);

} // namespace rdnafix::explain
