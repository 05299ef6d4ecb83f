#pragma once
// `rdnactl coverage` output as text; the words and JSON of the report are the
// software picture's (software/words.hpp).  Pure: the report in, text out.
#include "software/words.hpp"

#include "core/term_style.hpp"

#include <string>

namespace rdnafix::coverage {

// By default one line per GPU x installation verdict comes first (when
// there are several), the places searched are counted, not listed, and the
// reasons an override is safe or unsafe (with their sources) are left out;
// `verbose` prints them.  Coloured and wrapped as `style` says.
struct TextOptions {
	bool verbose = false;
	core::TextStyle style;
};
std::string render_text(const Report &r, const std::string &root, const TextOptions &t = {});

} // namespace rdnafix::coverage
