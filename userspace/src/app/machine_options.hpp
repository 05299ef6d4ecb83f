#pragma once
// --root, --env and --user: declared once, here, for every verb that reads
// the machine (status, env; later config and coverage).
#include "machine/collect.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rdnafix::app {

struct MachineArgs {
	std::string root;     // --root DIR ("" = the live machine)
	std::string env_file; // --env FILE ("" = this process's environment)
	std::string user;     // --user NAME ("" = this process)
};

void add_machine_options(CLI::App &sub, MachineArgs &args);
// --root DIR alone (config: acts on a mounted system), with the verb's help text.
void add_root_option(CLI::App &sub, std::string &root, const std::string &help);
machine::CollectOptions collect_options(const MachineArgs &args);

} // namespace rdnafix::app
