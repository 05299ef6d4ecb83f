#pragma once
// The terminal rdnactl writes to: whether standard output is one and how
// wide it is.  The only place that asks the kernel (isatty, TIOCGWINSZ);
// core/term_style.hpp turns these facts into a TextStyle.
#include <cstddef>

namespace rdnafix::io {

// The columns of the terminal on standard output (TIOCGWINSZ); 0 when
// standard output is not a terminal or the kernel reports no size.
std::size_t stdout_terminal_columns();

} // namespace rdnafix::io
