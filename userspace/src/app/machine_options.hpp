#pragma once
// --root, --env and --user: declared once, here, for every verb that reads
// the machine (status, env, coverage, explain, fix; config has --root alone).
#include "machine/collect.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rdnafix::app {

struct MachineArgs {
	std::string root;     // --root DIR (not given = the live machine; "" is refused)
	std::string env_file; // --env FILE (not given = this process's environment)
	std::string user;     // --user NAME|UID (not given = this process)
	std::string pid;      // --pid PID (status, env, report; not given = "")
};

void add_machine_options(CLI::App &sub, MachineArgs &args);
// --root DIR alone (config: acts on a mounted system), with the verb's help text.
void add_root_option(CLI::App &sub, std::string &root, const std::string &help);
machine::CollectOptions collect_options(const MachineArgs &args);
// --pid PID (pid_option.cpp): audit the environment of a running process.
void add_pid_option(CLI::App &sub, MachineArgs &args);
// What is wrong with --pid (not a number, --env given too, a process that is
// gone or that this user may not read); "" when fine or not given.
std::string pid_error(const MachineArgs &args);

// What is wrong with the arguments before anything is read: an --env FILE that
// cannot be opened, a --user that the root's etc/passwd (or, on the live
// machine, the system's user database) does not know.  "" when fine; a
// readable etc/passwd is needed to call a user unknown.
std::string machine_args_error(const MachineArgs &args);
// machine_args_error printed as "rdnactl VERB: ..." on stderr; false (and *rc = 2) when it is not "".
bool machine_args_ok(const MachineArgs &args, const char *verb, int *rc);

} // namespace rdnafix::app
