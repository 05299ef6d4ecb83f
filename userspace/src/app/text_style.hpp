#pragma once
// --color WHEN for every verb that prints text, and the one place that turns
// it, the terminal (io/terminal.hpp, io/process.hpp) and NO_COLOR / TERM into
// a core::TextStyle.  JSON and other machine-readable output get no colour
// and no wrapping, whatever --color says.
#include "core/term_style.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rdnafix::app {

// Adds --color WHEN (auto, always, never; default auto) to `sub`.
void add_colour_option(CLI::App &sub, std::string *when);

// The style of this run's text output: colour per core::colour_wanted,
// wrapped at the terminal's width when standard output is a terminal.
// `machine_readable` (JSON, prometheus): neither.
core::TextStyle text_style(const std::string &when, bool machine_readable);

} // namespace rdnafix::app
