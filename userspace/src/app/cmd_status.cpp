// `rdnactl status`: its options and a callback that forwards to
// status::run_status.
#include "commands.hpp"
#include "machine_options.hpp"
#include "option_checks.hpp"

#include "status/status.hpp"

#include "knowledge/builtin.hpp"

#include <cstdlib>
#include <cstring>
#include <memory>

namespace rdnafix {

namespace {

struct StatusArgs {
	app::MachineArgs machine;
	bool json = false;
	std::string format = "text";
	std::string output;
	bool no_coverage = false;
	std::string colour = "auto";
	bool verbose = false, quiet = false, list_checks = false;
	std::string only, skip;
};

status::StatusOptions status_options(const StatusArgs &a)
{
	status::StatusOptions o;
	o.machine = app::collect_options(a.machine);
	o.format = a.json || a.format == "json" ? status::Format::json
		   : a.format == "prometheus"   ? status::Format::prometheus
						: status::Format::text;
	o.output = a.output;
	o.coverage = !a.no_coverage;
	o.knowledge = &knowledge::builtin_files();
	o.verbose = a.verbose;
	o.quiet = a.quiet;
	o.list_checks = a.list_checks;
	o.only = a.only;
	o.skip = a.skip;
	o.colour = a.colour == "always"  ? status::ColourMode::always
		   : a.colour == "never" ? status::ColourMode::never
					 : status::ColourMode::automatic;
	// A terminal that declares itself dumb (TERM=dumb: Emacs shells, some CI logs) shows escape codes raw.
	const char *term = std::getenv("TERM");
	if (o.colour == status::ColourMode::automatic && term != nullptr && std::strcmp(term, "dumb") == 0)
		o.colour = status::ColourMode::never;
	return o;
}

} // namespace

void add_status_command(CLI::App &app, int *rc)
{
	auto args = std::make_shared<StatusArgs>();
	auto *sub = app.add_subcommand("status", "Report GPUs, driver, rdnafix module, access and environment, with "
						 "findings (checks: rdnactl(1), CHECKS)");
	app::add_machine_options(*sub, args->machine);
	app::add_pid_option(*sub, args->machine);
	auto *format =
		sub->add_option("--format", args->format,
				"Output format: text (the report), json (schema_version 1), prometheus (text "
				"exposition format 0.0.4 for node_exporter's textfile collector; rdnactl(1), METRICS)")
			->check(one_of({"text", "json", "prometheus"}))
			->type_name("FORMAT");
	sub->add_flag("--json", args->json, "The same as --format json")->excludes(format);
	sub->add_option("--output", args->output,
			"Write the report into FILE instead of stdout, atomically (a temporary file in FILE's "
			"directory, fsync, rename; mode 0644); the directory must exist")
		->type_name("FILE")
		->check(non_empty("a file name"));
	sub->add_flag("--no-coverage", args->no_coverage,
		      "Skip the code-object scan of the installed PyTorch/ROCm libraries (the Code objects section; "
		      "rdnactl coverage shows it in full)");
	sub->add_option("--color", args->colour,
			"Colour the text output: auto (a TTY, NO_COLOR unset or empty, TERM not dumb), always, never")
		->check(one_of({"auto", "always", "never"}))
		->type_name("WHEN");
	auto *verbose =
		sub->add_flag("--verbose,-v", args->verbose,
			      "Every fact (all module parameters, the noretry rule, hooks), the full why of each "
			      "finding with its sources, and a pass line per check that found nothing");
	sub->add_flag("--quiet,-q", args->quiet, "Only the findings: one line each, with the fix command")
		->excludes(verbose);
	sub->add_option("--only", args->only,
			"Only these checks: comma-separated ids (RDNA-ENV-001) or areas (ENV, GPU, MEM ...; "
			"--list-checks shows them); filters the findings of every format and the exit code")
		->type_name("IDS|AREAS");
	sub->add_option("--skip", args->skip, "Leave out these checks (ids or areas, comma-separated), as --only")
		->type_name("IDS|AREAS");
	sub->add_flag("--list-checks", args->list_checks,
		      "Print every check: id, area, severity and title (with --json as JSON), then exit 0");
	sub->footer(
		"Exit codes: 0 nothing to warn about (info findings only), 1 at least one warning or error finding, "
		"2 rdnactl could not run (bad arguments, --root unusable, nothing readable).");
	sub->callback([args, rc] {
		if (app::machine_args_ok(args->machine, "status", rc))
			*rc = status::run_status(status_options(*args));
	});
}

} // namespace rdnafix
