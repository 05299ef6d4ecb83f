// `rdnactl history`: the command line.  Fills validate::HistoryOptions and
// forwards to validate::run_history (validate/run.hpp); nothing else.
#include <memory>

#include "commands.hpp"
#include "option_checks.hpp"
#include "run.hpp"

namespace rdnafix {

void add_history_command(CLI::App &app, int *rc)
{
	auto o = std::make_shared<validate::HistoryOptions>();
	auto *sub = app.add_subcommand("history", "List validation runs and name what changed between their stacks");
	sub->add_flag("--json", o->json, "Print as JSON");
	sub->add_option("--history-db", o->history_db, "History database (default as for validate)")
		->check(non_empty("a database file"));
	sub->add_option("--threshold", o->threshold, "Throughput drop that counts as a regression (default 0.10)")
		->check(finite_range(0.0, 1.0));
	sub->callback([o, rc] { *rc = validate::run_history(*o); });
}

} // namespace rdnafix
