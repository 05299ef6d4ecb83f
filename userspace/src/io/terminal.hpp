#pragma once
// The terminal rdnactl writes to.  The only place that asks the kernel
// (isatty, TIOCGWINSZ); core/term_style.hpp and core/text_wrap.hpp turn these
// facts into colour and wrapping.
#include <cstddef>
#include <optional>

namespace rdnafix::io {

// The width the text output wraps at: COLUMNS when it is set explicitly (a
// positive number), else the terminal's own width (TIOCGWINSZ) when stdout is
// a terminal; nullopt when stdout is a pipe or a file and COLUMNS is unset:
// then nothing wraps.
std::optional<std::size_t> output_columns();

} // namespace rdnafix::io
