#pragma once
// [[variable]] rows of a knowledge file (docs/knowledge.md, "Variables"):
// parsed into core::VarEntry, every problem with file:line.  Internal to
// the knowledge library (parse.cpp calls it for each file).
#include "core/env_vars.hpp"
#include "knowledge/model.hpp"

#include <toml++/toml.h>

namespace rdnafix::knowledge {

// Adds the file's rows to `table`: a name already there is replaced (its
// origin says which file won), a new one appended.  A broken row is left out
// and each of its problems appended to `problems`.
void parse_variables(const std::string &file, const toml::table &root, core::VarTable *table,
		     std::vector<Problem> *problems);

} // namespace rdnafix::knowledge
