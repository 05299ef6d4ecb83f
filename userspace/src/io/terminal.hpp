#pragma once
// The width the text report wraps at: COLUMNS when it is set explicitly (a
// positive number), else the terminal's own width (TIOCGWINSZ) when stdout is
// a terminal; nullopt when stdout is a pipe or a file and COLUMNS is unset:
// then nothing wraps.
#include <cstddef>
#include <optional>

namespace rdnafix::io {

std::optional<std::size_t> output_columns();

} // namespace rdnafix::io
