#pragma once
// Facts about the running rdnactl process: its credentials, its environment,
// its working directory, its terminal, and what the kernel lets it open.
// Every such lookup of rdnactl goes through here, so that the readers and
// renderers above io/ stay free of process state.
#include <optional>
#include <string>
#include <vector>

namespace rdnafix::io {

// True when standard output is a terminal (isatty(1)).
bool stdout_is_terminal();

// The value of one variable of this process's environment (getenv), nullopt
// when unset.
std::optional<std::string> env_value(const char *name);

// The effective uid and every group of this process: the supplementary groups
// (getgroups) followed by the effective gid, as the kernel returns them
// (duplicates possible, not sorted).
struct ProcessIdentity {
	unsigned euid = 0;
	std::vector<unsigned> gids;
};
ProcessIdentity process_identity();

// This process's environment as /proc/self/environ has it: "KEY=VALUE\0"...
std::string process_environ();

// `path` made absolute against the working directory and normalized
// (lexically: "a/../b" -> "b"; symlinks are not resolved).
std::string absolute_path(const std::string &path);

// Whether the kernel lets this process open `path` read-write
// (faccessat(AT_EACCESS): ACLs and capabilities count); `error` names the
// refusal (strerror) when not.
struct AccessCheck {
	bool allowed = false;
	std::string error;
};
AccessCheck check_read_write(const std::string &path);

} // namespace rdnafix::io
