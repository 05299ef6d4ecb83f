// Placeholder until the validate component lands.
#include "commands.hpp"

namespace rdnafix {
void add_validate_command(CLI::App &app, int *rc)
{
	auto *sub = app.add_subcommand("validate", "Run GPU conv2d validation against a CPU reference");
	sub->callback([rc] { *rc = 2; });
}
void add_history_command(CLI::App &app, int *rc)
{
	auto *sub = app.add_subcommand("history", "List validation runs and regressions");
	sub->callback([rc] { *rc = 2; });
}
} // namespace rdnafix
