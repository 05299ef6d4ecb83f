// Facts about the running rdnactl process (see process.hpp).
#include "io/process.hpp"

#include <unistd.h>

#include <cstdlib>

namespace rdnafix::io {

bool stdout_is_terminal()
{
	return ::isatty(STDOUT_FILENO) == 1;
}

std::optional<std::string> env_value(const char *name)
{
	const char *v = std::getenv(name);
	if (!v)
		return std::nullopt;
	return std::string(v);
}

} // namespace rdnafix::io
