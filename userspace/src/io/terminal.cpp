// The terminal on standard output (see terminal.hpp).
#include "io/terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

namespace rdnafix::io {

std::size_t stdout_terminal_columns()
{
	if (::isatty(STDOUT_FILENO) != 1)
		return 0;
	struct winsize ws {};
	if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0)
		return 0;
	return ws.ws_col;
}

} // namespace rdnafix::io
