// `rdnactl validate`: the command line.  Fills validate::ValidateOptions and
// forwards to validate::run_validate (validate/run.hpp); nothing else.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "core/text_safe.hpp"
#include "option_checks.hpp"
#include "run.hpp"
#include "text_style.hpp"

namespace rdnafix {

void add_validate_command(CLI::App &app, int *rc)
{
	auto o = std::make_shared<validate::ValidateOptions>();
	auto colour = std::make_shared<std::string>("auto");
	auto *sub = app.add_subcommand("validate", "Run GPU conv2d validation against a CPU reference, each case "
						   "in a watched child process");
	auto *quick = sub->add_flag("--quick", o->quick, "Run the quick set (default)");
	auto *full = sub->add_flag("--full", o->full, "Run every case");
	quick->excludes(full);
	auto *cs = sub->add_option("--case", o->cases, "Run only this case (repeatable; --list shows the names)");
	cs->excludes(quick)->excludes(full);
	sub->add_flag("--list", o->list, "List the cases and exit");
	auto *json = sub->add_flag("--json", o->json, "Print the results as JSON");
	sub->add_flag("--if-stack-changed", o->if_stack_changed,
		      "Run only when the stack (kernel, driver parameters, runtime, PyTorch, environment, devices) "
		      "differs from the last recorded run; else print one line and exit 0");
	sub->add_flag("--brief", o->brief,
		      "Print exactly one line: new stack or not (what changed), the verdict, the run recorded "
		      "(for the journal)")
		->excludes(json);
	sub->add_flag("--verbose", o->verbose,
		      "When no GPU runtime is found, list every library path tried (else one line counts them)");
	app::add_colour_option(*sub, colour.get());
	sub->add_option("--timeout", o->timeout, "Seconds a case may run before SIGTERM (default 120)")
		->check(finite_range(0.1, 86400.0));
	sub->add_option("--kill-grace", o->grace, "Seconds between SIGTERM and SIGKILL (default 5)")
		->check(finite_range(0.0, 3600.0));
	sub->add_flag("--inject-error", o->inject, "Corrupt one output element of every conv2d case (must fail)");
	sub->add_flag("--torch", o->torch, "Also run PyTorch F.conv2d on the GPU vs the CPU in a child python3");
	sub->add_option("--capacity-fraction", o->capacity_fraction,
			"Fraction of the reported device memory the capacity case allocates (0.01..0.95, default 0.5)")
		->check(finite_range(0.01, 0.95));
	sub->add_option("--history-db", o->history_db,
			"History database (default: /var/lib/rdnafix/history.db "
			"for root, else $XDG_STATE_HOME/rdnafix/history.db)")
		->check(non_empty("a database file"));
	sub->add_flag("--no-history", o->no_history, "Do not record this run");
	sub->add_option("--device", o->device, "Device index (default 0)")->check(int_range(0, 63, "a device index"));
	sub->add_option("--api", o->api, "GPU runtime: hip or cuda (default: HIP, then CUDA)")
		->check(one_of({"hip", "cuda"}));
	sub->footer("Exit codes: 0 every case passed, or --if-stack-changed found the stack unchanged (nothing run);\n"
		    "1 a case failed, crashed, hung or errored; 2 the GPU cases could not run (no GPU runtime:\n"
		    "recorded as a not-run run unless --no-history), or bad input.\nSee rdnactl(1).");
	sub->callback([o, rc, colour] {
		// PATH is neither written nor read: the option would be ignored in silence.
		if (o->no_history && !o->history_db.empty() && !o->brief && !o->if_stack_changed) {
			std::cerr << "rdnactl validate: --no-history and --history-db together: nothing is recorded, "
				     "so --history-db "
				  << core::terminal_safe(o->history_db)
				  << " would be ignored "
				     "(valid: one of them, or both with --brief or --if-stack-changed, which compare "
				     "the stack against that history without recording)\n";
			*rc = 2;
			return;
		}
		o->colour = app::text_style(*colour, o->json).colour;
		*rc = validate::run_validate(*o);
	});
}

} // namespace rdnafix
