// `rdnactl explain`: its options and a callback that forwards to
// explain::run_explain.
#include "commands.hpp"
#include "option_checks.hpp"
#include "machine_options.hpp"
#include "text_style.hpp"

#include "explain/run.hpp"

#include "knowledge/builtin.hpp"

#include <memory>

namespace rdnafix {

namespace {

struct ExplainArgs {
	app::MachineArgs machine;
	std::string input;
	long long pid = 0;
	bool json = false;
	bool list = false;
	bool no_coverage = false;
	std::string check_knowledge;
	bool no_overlays = false;
	bool verbose = false;
	std::string colour = "auto";
};

} // namespace

void add_explain_command(CLI::App &app, int *rc)
{
	auto args = std::make_shared<ExplainArgs>();
	auto *sub = app.add_subcommand(
		"explain",
		"Explain a ROCm / PyTorch / amdgpu error log: what each known failure means, its likely cause "
		"on this machine and the fix (catalogue: rdnactl explain --list)");
	sub->add_option("input", args->input,
			"The log: a FILE (PyTorch traceback, HIP/HSA stderr, dmesg, journalctl -k), - for standard "
			"input (also the default when standard input is not a terminal), or a signature id "
			"RDNA-LOG-NNN to print its catalogue entry")
		->type_name("FILE|-|ID");
	auto *pid = sub->add_option("--pid", args->pid,
				    "Judge with the environment process PID really has (/proc/PID/environ) instead of "
				    "rdnactl's own: the HSA_OVERRIDE_GFX_VERSION it ran with, its *_VISIBLE_DEVICES")
			    ->type_name("PID")
			    ->check(int_range(1, 4194304, "a process id"));
	app::add_machine_options(*sub, args->machine);
	sub->add_flag("--json", args->json, "Print JSON (schema_version 1) instead of text");
	sub->add_flag("--list", args->list, "Print the catalogue of signatures (ids, meaning, cause, fix, source)");
	sub->add_flag("--no-coverage", args->no_coverage, "Do not scan the installed libraries for GPU code objects");
	sub->add_option(
		   "--check-knowledge", args->check_knowledge,
		   "Validate a knowledge file (KNOWLEDGE FILES in rdnactl(1)) and run each of its entries against its "
		   "example; exit 0 when valid, 1 with file:line problems")
		->type_name("FILE");
	sub->add_flag("--no-overlays", args->no_overlays,
		      "Use only the built-in knowledge: do not read /usr/share/rdnafix/knowledge.d and "
		      "/etc/rdnafix/knowledge.d");
	sub->add_flag("--verbose", args->verbose,
		      "Also print each match's sources (kernel and ROCm source files, issues); by default one line "
		      "per match comes first, then its details without sources");
	app::add_colour_option(*sub, &args->colour);
	sub->footer("Examples:\n"
		    "  python3 train.py 2>&1 | rdnactl explain\n"
		    "  sudo dmesg | rdnactl explain -\n"
		    "  journalctl -k -b | rdnactl explain -\n"
		    "  rdnactl explain crash.log --pid 4242     # with the environment of the running process 4242\n"
		    "  rdnactl explain RDNA-LOG-002\n"
		    "Exit codes: 0 nothing known found (or harmless messages only), 1 known failures explained, "
		    "2 rdnactl could not run (unreadable input, unknown id, bad arguments).");
	sub->callback([args, rc, pid] {
		if (!app::machine_args_ok(args->machine, "explain", rc))
			return;
		explain::ExplainOptions o;
		o.input = args->input;
		if (pid->count() > 0)
			o.pid = args->pid;
		o.json = args->json;
		o.list = args->list;
		o.coverage = !args->no_coverage;
		o.machine = app::collect_options(args->machine);
		o.check_knowledge = args->check_knowledge;
		o.overlays = !args->no_overlays;
		o.verbose = args->verbose;
		o.style = app::text_style(args->colour, args->json);
		*rc = explain::run_explain(o, knowledge::builtin_files());
	});
}

} // namespace rdnafix
