#include "machine_options.hpp"

#include "core/parse.hpp"
#include "knowledge/builtin.hpp"
#include "machine/variables.hpp"
#include "io/process.hpp"
#include "io/rootfs.hpp"

#include <charconv>
#include <cstdio>
#include <fmt/format.h>
#include <pwd.h>

namespace rdnafix::app {

namespace {

// An empty value is a mistake (an unset shell variable: --root "$ROOT"), never "the default".
CLI::Validator not_empty(const std::string &what)
{
	return CLI::Validator(
		[what](std::string &v) {
			return v.empty()
				       ? fmt::format(
						 "must not be empty: give {}, or leave the option out for the default",
						 what)
				       : std::string();
		},
		"", "not empty");
}

// The --env file is read now, as the collector reads it (io::RootFs on "/":
// never open()ing a FIFO, device or socket; a NUL byte is binary), so that a
// file that cannot be read is refused here (exit 2) instead of auditing an
// empty environment.
std::string env_file_error(const std::string &file)
{
	if (io::absolute_path(file) == "/dev/null")
		return ""; // the empty environment (machine/collect_env.cpp)
	io::RootFs host("/");
	auto t = host.read_text(io::absolute_path(file), {.max_bytes = 1 << 20, .allow_empty = true});
	if (t)
		return "";
	const io::FsError &e = t.error();
	// A NUL-separated NAME=VALUE block is an environ file (/proc/PID/environ or a copy of one).
	if (e.kind == io::FsErrorKind::binary)
		if (auto b = host.read_bytes(io::absolute_path(file), 1 << 20); b && core::is_environ_block(*b))
			return "";
	const std::string hint =
		"give a text file of KEY=VALUE lines, a shell start-up file or a copy of /proc/PID/environ";
	switch (e.kind) {
	case io::FsErrorKind::is_directory:
		return fmt::format("--env '{}': is a directory; {}", file, hint);
	case io::FsErrorKind::binary:
	case io::FsErrorKind::too_large:
		return fmt::format("--env '{}': not read: {}; {}", file, e.detail, hint);
	default:
		// A path below the root is root-relative in e.detail: name the
		// errno alone, the file is named as given.
		if (e.errno_value != 0)
			return fmt::format("--env '{}': {}", file, io::errno_text(e.errno_value));
		return fmt::format("--env '{}': not read: {}; {}", file, e.detail, hint);
	}
}

std::string user_error(const MachineArgs &args)
{
	const std::string root = args.root.empty() ? "/" : args.root;
	io::RootFs fs(root);
	auto text = fs.read_text("etc/passwd", {.max_bytes = 4 << 20, .allow_empty = true});
	if (!text)
		return ""; // the snapshot reports etc/passwd as unreadable
	const core::PasswdFile pw = core::parse_passwd_file(*text);
	const std::string &u = args.user;
	unsigned uid = 0;
	const auto [end, ec] = std::from_chars(u.data(), u.data() + u.size(), uid);
	const bool numeric = ec == std::errc() && end == u.data() + u.size();
	if (pw.by_name(u) != nullptr || (numeric && pw.by_uid(uid) != nullptr))
		return "";
	// The live machine may know users from NSS (LDAP, systemd-homed) that etc/passwd lacks.
	if (args.root.empty() && (::getpwnam(u.c_str()) != nullptr || (numeric && ::getpwuid(uid) != nullptr)))
		return "";
	const std::string where = args.root.empty() ? "/etc/passwd" : fmt::format("{}/etc/passwd", args.root);
	return numeric ? fmt::format("--user {}: no user has uid {} in {}", u, u, where)
		       : fmt::format("--user '{}': no such user in {}", u, where);
}

} // namespace

void add_machine_options(CLI::App &sub, MachineArgs &args)
{
	sub.add_option("--root", args.root,
		       "Read sys/, proc/, dev/, etc/, lib/modules/, usr/share/ below DIR instead of / "
		       "(a captured machine); devices are then read by a plain directory walk, not libudev/libdrm")
		->type_name("DIR")
		->check(not_empty("a directory"));
	sub.add_option("--env", args.env_file,
		       "Audit the variables FILE sets (KEY=VALUE lines or a shell start-up file such as ~/.bashrc) "
		       "instead of this process's environment")
		->type_name("FILE")
		->check(not_empty("a file"));
	sub.add_option("--user", args.user,
		       "Judge device access for user NAME (or numeric UID; groups from the root's etc/group) instead "
		       "of this process (under sudo: SUDO_USER)")
		->type_name("NAME")
		->check(not_empty("a user"));
}

void add_root_option(CLI::App &sub, std::string &root, const std::string &help)
{
	sub.add_option("--root", root, help)->type_name("DIR")->check(not_empty("a directory"));
}

machine::CollectOptions collect_options(const MachineArgs &args)
{
	machine::CollectOptions c;
	// The variables table: built-in rows and the overlay directories (a
	// broken overlay row is shown as an unreadable item, never fatal).
	auto vars = machine::load_variables(knowledge::builtin_files(), true);
	c.variables = std::move(vars.table);
	c.variable_notes = std::move(vars.notes);
	if (!args.root.empty()) {
		c.root = args.root;
		c.live = false;
	}
	if (!args.env_file.empty())
		c.env_file = args.env_file;
	if (!args.user.empty())
		c.user = args.user;
	if (!args.pid.empty())
		c.pid = std::stoll(args.pid); // checked by pid_error first
	return c;
}

std::string machine_args_error(const MachineArgs &args)
{
	if (std::string e = pid_error(args); !e.empty())
		return e;
	if (!args.env_file.empty())
		if (std::string e = env_file_error(args.env_file); !e.empty())
			return e;
	if (!args.user.empty())
		return user_error(args);
	return "";
}

bool machine_args_ok(const MachineArgs &args, const char *verb, int *rc)
{
	const std::string e = machine_args_error(args);
	if (e.empty())
		return true;
	std::fprintf(stderr, "rdnactl %s: %s\n", verb, e.c_str());
	*rc = 2;
	return false;
}

} // namespace rdnafix::app
