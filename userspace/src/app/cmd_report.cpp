// `rdnactl report`: its options and a callback that forwards to
// report::run_report, with status's JSON as the report's status.json.
#include "commands.hpp"
#include "machine_options.hpp"
#include "option_checks.hpp"

#include "report/run.hpp"
#include "status/status.hpp"

#include "knowledge/builtin.hpp"

#include <memory>

namespace rdnafix {

namespace {

struct ReportArgs {
	app::MachineArgs machine;
	std::string output;
	bool no_anonymize = false;
	bool force = false;
};

} // namespace

void add_report_command(CLI::App &app, int *rc)
{
	auto args = std::make_shared<ReportArgs>();
	auto *sub = app.add_subcommand(
		"report", "Write one archive to attach to an issue: status --json, the machine's state in the --root "
			  "format, versions, the kernel log's amdgpu lines, the environment audited; anonymized");
	app::add_machine_options(*sub, args->machine);
	app::add_pid_option(*sub, args->machine);
	sub->add_option("--output", args->output,
			"Write the archive (tar.gz) to FILE, atomically (a temporary file in FILE's directory, "
			"fsync, rename; mode 0644); default rdnafix-report-<UTC time>.tar.gz here")
		->type_name("FILE")
		->check(non_empty("a file name"));
	sub->add_flag("--force", args->force, "Replace FILE when it exists (else rdnactl report refuses)");
	sub->add_flag("--no-anonymize", args->no_anonymize,
		      "Keep user names, host names, home paths and serial numbers (replaced by user1, host1, "
		      "/home/user1, serial1 by default)");
	sub->footer("Exit codes: 0 written, 2 rdnactl could not run (bad arguments, an existing FILE without "
		    "--force, a missing directory, --root unusable), 3 the archive could not be written.");
	sub->callback([args, rc] {
		if (!app::machine_args_ok(args->machine, "report", rc))
			return;
		report::ReportOptions o;
		o.machine = app::collect_options(args->machine);
		o.output = args->output;
		o.anonymize = !args->no_anonymize;
		o.force = args->force;
		*rc = report::run_report(o, [](const machine::CollectOptions &m) {
			status::StatusOptions s;
			s.machine = m;
			s.format = status::Format::json;
			s.knowledge = &knowledge::builtin_files();
			return status::render_status(s);
		});
	});
}

} // namespace rdnafix
