// Placeholder until the status component lands.
#include "commands.hpp"

namespace rdnafix {
void add_status_command(CLI::App &app, int *rc)
{
	auto *sub = app.add_subcommand("status", "Report GPUs, driver, module, access and environment");
	sub->callback([rc] { *rc = 2; });
}
void add_env_command(CLI::App &app, int *rc)
{
	auto *sub = app.add_subcommand("env", "Print recommended environment exports");
	sub->callback([rc] { *rc = 2; });
}
} // namespace rdnafix
