#pragma once
// Facts about the running rdnactl process: its terminal and its environment
// variables.  Every such lookup of rdnactl goes through here, so that the
// readers and renderers above io/ stay free of process state.
#include <optional>
#include <string>

namespace rdnafix::io {

// True when standard output is a terminal (isatty(1)).
bool stdout_is_terminal();

// The value of one variable of this process's environment (getenv), nullopt
// when unset.
std::optional<std::string> env_value(const char *name);

} // namespace rdnafix::io
