#pragma once
// The [[known_bad]] tables of a knowledge file (parse_known_bad.cpp), called
// by parse() for each file; every problem with file:line.
#include "knowledge/model.hpp"

#include <toml++/toml.h>

namespace rdnafix::knowledge {

void parse_known_bad(const std::string &file, const toml::node &tables, Base *base, std::vector<Problem> *problems);

} // namespace rdnafix::knowledge
