// `rdnactl history`: the command line.  Fills validate::HistoryOptions and
// forwards to validate::run_history (validate/run.hpp); nothing else.
#include <memory>

#include "commands.hpp"
#include "option_checks.hpp"
#include "plot_svg.hpp"
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
	auto plot = std::make_shared<std::string>(); // --plot FILE: validate/plot_svg.hpp
	sub->add_option("--plot", *plot, "Also write throughput per case across the runs to FILE (SVG)")
		->check(non_empty("a file path"))
		->type_name("FILE");
	sub->callback([o, rc, plot] {
		*rc = validate::run_history(*o);
		if (!plot->empty() && *rc != 2 &&
		    validate::write_history_plot(validate::history_path(o->history_db), *plot))
			*rc = 2;
	});
}

} // namespace rdnafix
