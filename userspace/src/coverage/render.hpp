#pragma once
// `rdnactl coverage` output as text; the words and JSON of the report are the
// software picture's (software/words.hpp).  Pure: the report in, text out.
#include "software/words.hpp"

#include <string>

namespace rdnafix::coverage {

std::string render_text(const Report &r, const std::string &root);

} // namespace rdnafix::coverage
