#include "child_main.hpp"
#include "commands.hpp"
#include "rdnafix_version.hpp"

#include <cstdio>
#include <exception>

int main(int argc, char **argv)
{
	// Internal children (validate's case and probe processes) never pass through the user's flags.
	if (rdnafix::is_child_invocation(argc, argv))
		return rdnafix::child_main(argc, argv);
	CLI::App app{"rdnactl — inspect and fix ROCm/PyTorch on consumer AMD GPUs (RDNA1/RDNA2 and APUs)"};
	app.set_version_flag("--version", std::string("rdnactl ") + RDNAFIX_VERSION);
	app.require_subcommand(1);
	app.footer("Exit codes: 0 nothing to report, 1 warnings/errors/failures found, 2 rdnactl could not run.\n"
		   "See rdnactl(1).");
	int rc = 0;
	rdnafix::add_status_command(app, &rc);
	rdnafix::add_env_command(app, &rc);
	rdnafix::add_validate_command(app, &rc);
	rdnafix::add_history_command(app, &rc);
	rdnafix::add_config_command(app, &rc);
	rdnafix::add_fix_command(app, &rc);
	rdnafix::add_explain_command(app, &rc);
	rdnafix::add_coverage_command(app, &rc);
	try {
		app.parse(argc, argv);
	} catch (const CLI::ParseError &e) {
		int r = app.exit(e);
		return r == 0 ? 0 : 2;
	} catch (const std::exception &e) {
		std::fprintf(stderr, "rdnactl: %s\n", e.what());
		return 2;
	}
	return rc;
}
