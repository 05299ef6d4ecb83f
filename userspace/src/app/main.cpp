#include "child_main.hpp"
#include "commands.hpp"
#include "parse_error.hpp"
#include "io/fs_error.hpp"
#include "rdnafix_version.hpp"
#include "usage.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

// Exit code 2 when anything written to standard output was lost (a full disk,
// /dev/full, a closed descriptor): a command whose output did not arrive did
// not run for its caller.
int finish(int rc)
{
	std::cout.flush();
	const bool cpp_failed = std::cout.fail();
	errno = 0;
	const bool flush_failed = std::fflush(stdout) != 0;
	const int err = errno;
	if (cpp_failed || flush_failed || std::ferror(stdout)) {
		std::fprintf(stderr, "rdnactl: error writing to standard output: %s\n",
			     err != 0 ? rdnafix::io::errno_text(err).c_str() : "write failed");
		return 2;
	}
	return rc;
}

void build_command_line(CLI::App &app, int *rc, std::vector<std::string> &topic)
{
	app.set_version_flag("--version", std::string("rdnactl ") + RDNAFIX_VERSION);
	app.require_subcommand(1);
	app.footer("Exit codes: 0 nothing to report, 1 warnings/errors/failures found, 2 rdnactl could not run.\n"
		   "See rdnactl(1).");
	rdnafix::add_status_command(app, rc);
	rdnafix::add_env_command(app, rc);
	rdnafix::add_validate_command(app, rc);
	rdnafix::add_history_command(app, rc);
	rdnafix::add_config_command(app, rc);
	rdnafix::add_fix_command(app, rc);
	rdnafix::add_explain_command(app, rc);
	rdnafix::add_coverage_command(app, rc);
	rdnafix::add_kernel_check_command(app, rc);
	rdnafix::add_report_command(app, rc);
	auto *help = app.add_subcommand("help", "Show the help of a subcommand: rdnactl help status, rdnactl help "
						"config set");
	help->add_option("VERB", topic, "The subcommand (and its subcommand) to explain");
	help->footer("Examples:\n  rdnactl help status\n  rdnactl help config set\n"
		     "Exit codes: 0 the help was shown, 2 no such subcommand.");
}

} // namespace

int main(int argc, char **argv)
{
	// Internal children (validate's case and probe processes) never pass through the user's flags.
	if (rdnafix::is_child_invocation(argc, argv))
		return rdnafix::child_main(argc, argv);
	CLI::App app{"rdnactl — inspect and fix ROCm/PyTorch on consumer AMD GPUs (RDNA1/RDNA2 and APUs)"};
	int rc = 0;
	// Listed in --help; the words after it are rewritten to `VERB... --help` before parsing.
	std::vector<std::string> topic;
	try {
		build_command_line(app, &rc, topic);
	} catch (const CLI::ConstructionError &e) {
		// A name or setting this CLI11 refuses (newer releases are stricter): say so instead of aborting.
		std::fprintf(stderr, "rdnactl: internal error: CLI11 %s refused the command line's definition: %s\n",
			     CLI11_VERSION, e.what());
		return finish(2);
	}

	std::vector<std::string> args = rdnafix::app::help_to_flag(std::vector<std::string>(argv + 1, argv + argc));
	if (const std::string msg = rdnafix::app::check_subcommands(app, args); !msg.empty()) {
		std::fputs(msg.c_str(), stderr);
		return finish(2);
	}
	std::vector<char *> av{argv[0]};
	for (auto &a : args)
		av.push_back(a.data());
	try {
		app.parse(static_cast<int>(av.size()), av.data());
	} catch (const CLI::ExtrasError &) {
		std::fputs(rdnafix::app::extras_message(app).c_str(), stderr);
		return finish(2);
	} catch (const CLI::ParseError &e) {
		// --help and --version are ParseErrors with exit code 0: CLI11 prints them.
		if (e.get_exit_code() == 0)
			return finish(app.exit(e));
		std::fputs(rdnafix::app::parse_error_message(app, e).c_str(), stderr);
		return finish(2);
	} catch (const std::exception &e) {
		std::fprintf(stderr, "rdnactl: %s\n", e.what());
		return finish(2);
	}
	return finish(rc);
}
