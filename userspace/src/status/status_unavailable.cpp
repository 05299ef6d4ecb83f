// Built only while rdnafix_core is missing from the tree (see CMakeLists.txt).
#include "commands.hpp"

#include <cstdio>

namespace rdnafix {
void add_status_command(CLI::App &app, int *rc)
{
	auto *sub = app.add_subcommand("status", "Report GPUs, driver, module, access and environment");
	sub->callback([rc] {
		std::fprintf(stderr, "rdnactl status: built without rdnafix_core\n");
		*rc = 2;
	});
}
void add_env_command(CLI::App &app, int *rc)
{
	auto *sub = app.add_subcommand("env", "Print recommended environment exports");
	sub->callback([rc] {
		std::fprintf(stderr, "rdnactl env: built without rdnafix_core\n");
		*rc = 2;
	});
}
} // namespace rdnafix
