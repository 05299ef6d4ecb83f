#pragma once
// The variables table of this run (docs/knowledge.md, "Variables"): the
// [[variable]] rows of the built-in knowledge files, then of the overlay
// directories (/usr/share/rdnafix/knowledge.d, /etc/rdnafix/knowledge.d or
// RDNAFIX_KNOWLEDGE_DIRS, read by io/knowledge_dirs), a name in a later file
// replacing the row before.  The built-in files are the program's
// (knowledge/builtin.hpp), passed in: this library does not link them.
#include "machine/collect.hpp"

#include "knowledge/model.hpp"

#include <memory>
#include <vector>

namespace rdnafix::machine {

struct LoadedVariables {
	std::shared_ptr<const core::VarTable> table;
	std::vector<CollectOptions::Note> notes; // problems of the files (a broken row is left out)
};

// Only files that hold [[variable]] rows are parsed (the signatures are
// explain's); `overlays` false: the built-in rows only.
LoadedVariables load_variables(const std::vector<knowledge::SourceText> &builtin, bool overlays);

} // namespace rdnafix::machine
