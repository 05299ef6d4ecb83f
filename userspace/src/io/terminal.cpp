// The output width (see terminal.hpp).
#include "io/terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace rdnafix::io {

std::optional<std::size_t> output_columns()
{
	if (const char *c = std::getenv("COLUMNS"); c && *c) {
		std::size_t n = 0;
		const char *end = c + std::strlen(c);
		auto [p, ec] = std::from_chars(c, end, n);
		if (ec == std::errc() && p == end && n > 0 && n < 100000)
			return n;
	}
	if (::isatty(STDOUT_FILENO) != 1)
		return std::nullopt;
	struct winsize ws {};
	if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return std::size_t(ws.ws_col);
	return std::nullopt;
}

} // namespace rdnafix::io
