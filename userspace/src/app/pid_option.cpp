// --pid PID for status, env and report: the environment to audit is the one
// the running process PID has (<root>/proc/PID/environ).  The process is
// checked before anything is collected, so that a vanished process or one
// this user may not read is a clear error (exit 2), not an empty audit.
#include "machine_options.hpp"

#include "core/parse.hpp"
#include "io/rootfs.hpp"

#include <cerrno>
#include <charconv>
#include <fmt/format.h>
#include <pwd.h>

namespace rdnafix::app {

namespace {

constexpr long long kPidMax = 4194304; // PID_MAX_LIMIT on 64-bit Linux

// The name of the user owning proc/PID (the root's etc/passwd, then, live,
// the system's user database); the uid as a number when neither knows it.
std::string owner_of(io::RootFs &fs, long long pid, bool live)
{
	auto st = fs.stat(fmt::format("proc/{}", pid));
	if (!st || !st->uid)
		return "unknown";
	const unsigned uid = *st->uid;
	if (auto text = fs.read_text("etc/passwd", {.max_bytes = 4 << 20, .allow_empty = true}))
		if (const auto *e = core::parse_passwd_file(*text).by_uid(uid))
			return e->name;
	if (live)
		if (const passwd *pw = ::getpwuid(uid))
			return pw->pw_name;
	return fmt::format("uid {}", uid);
}

} // namespace

void add_pid_option(CLI::App &sub, MachineArgs &args)
{
	sub.add_option("--pid", args.pid,
		       "Audit the environment of the running process PID (/proc/PID/environ; under --root DIR: "
		       "DIR/proc/PID/environ) instead of this process's; not with --env")
		->type_name("PID");
}

std::string pid_error(const MachineArgs &args)
{
	if (args.pid.empty())
		return "";
	long long pid = 0;
	const char *b = args.pid.data(), *e = b + args.pid.size();
	const auto [end, ec] = std::from_chars(b, e, pid);
	if (ec != std::errc() || end != e || pid < 1 || pid > kPidMax)
		return fmt::format("--pid '{}': not a process id; give a number from 1 to {} (see ps -e)", args.pid,
				   kPidMax);
	if (!args.env_file.empty())
		return fmt::format("--pid {} and --env {}: give one environment to audit, not both", args.pid,
				   args.env_file);
	const bool live = args.root.empty();
	io::RootFs fs(live ? "/" : args.root);
	auto bytes = fs.read_bytes(fmt::format("proc/{}/environ", pid), 4u << 20);
	if (bytes)
		return "";
	const io::FsError &err = bytes.error();
	const std::string where = live ? "" : fmt::format(" below {}", args.root);
	switch (err.kind) {
	case io::FsErrorKind::not_found:
		return fmt::format("--pid {}: process {} does not exist{}", pid, pid, where);
	case io::FsErrorKind::permission_denied:
		return fmt::format("--pid {}: cannot read the environment of {} (owned by user {}): run as that "
				   "user or root",
				   pid, pid, owner_of(fs, pid, live));
	default:
		if (err.errno_value == ESRCH)
			return fmt::format("--pid {}: process {} does not exist{}", pid, pid, where);
		return fmt::format("--pid {}: cannot read /proc/{}/environ{}: {}", pid, pid, where, err.detail);
	}
}

} // namespace rdnafix::app
