// Facts about the running rdnactl process (see process.hpp).
#include "io/process.hpp"
#include "io/fs_error.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

extern char **environ;

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

ProcessIdentity process_identity()
{
	ProcessIdentity p;
	p.euid = ::geteuid();
	std::vector<gid_t> gl(size_t(std::max(0, ::getgroups(0, nullptr))) + 1);
	int n = ::getgroups(int(gl.size()), gl.data());
	gl.resize(size_t(std::max(0, n)));
	gl.push_back(::getegid());
	for (gid_t g : gl)
		p.gids.push_back(unsigned(g));
	return p;
}

std::string process_environ()
{
	std::string bytes;
	for (char **e = environ; e && *e; ++e) {
		bytes += *e;
		bytes += '\0';
	}
	return bytes;
}

std::string absolute_path(const std::string &path)
{
	return std::filesystem::absolute(path).lexically_normal().string();
}

AccessCheck check_read_write(const std::string &path)
{
	AccessCheck c;
	c.allowed = ::faccessat(AT_FDCWD, path.c_str(), R_OK | W_OK, AT_EACCESS) == 0;
	if (!c.allowed)
		c.error = errno_text(errno);
	return c;
}

} // namespace rdnafix::io
