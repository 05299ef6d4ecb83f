// `rdnactl env`: its options and a callback that forwards to status::run_env.
#include "commands.hpp"
#include "machine_options.hpp"
#include "option_checks.hpp"

#include "status/status.hpp"

#include <memory>

namespace rdnafix {

namespace {

struct EnvArgs {
	app::MachineArgs machine;
	std::string shell = "sh";
	bool json = false;
};

} // namespace

void add_env_command(CLI::App &app, int *rc)
{
	auto args = std::make_shared<EnvArgs>();
	auto *sub = app.add_subcommand("env", "Print the environment exports that `rdnactl status` recommends, each "
					      "with a one-line comment; nothing when nothing is needed");
	app::add_machine_options(*sub, args->machine);
	app::add_pid_option(*sub, args->machine);
	sub->add_option("--shell", args->shell,
			"Syntax of the output: sh, bash or zsh (POSIX export/unset, the same lines) or fish "
			"(set -gx/set -e)")
		->check(one_of({"sh", "bash", "zsh", "fish"}))
		->type_name("SHELL");
	sub->add_flag("--json", args->json,
		      "Print JSON (schema_version 1): each change with its sh and fish line, and every set "
		      "variable judged");
	sub->footer("Exit codes: 0 printed (possibly nothing to set), 2 rdnactl could not run.");
	sub->callback([args, rc] {
		if (!app::machine_args_ok(args->machine, "env", rc))
			return;
		status::EnvOptions o;
		o.machine = app::collect_options(args->machine);
		o.shell = args->shell == "fish" ? status::Shell::fish : status::Shell::sh;
		o.json = args->json;
		*rc = status::run_env(o);
	});
}

} // namespace rdnafix
