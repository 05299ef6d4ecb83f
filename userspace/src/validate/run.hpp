#pragma once
// `rdnactl validate` and `rdnactl history` as functions: app/cmd_validate.cpp
// and app/cmd_history.cpp fill the options from the command line and call
// these; each returns the exit code (0 ok, or --if-stack-changed on an
// unchanged stack; 1 failures / regressions; 2 could not run: the GPU cases
// did not run, which validate records as a "not run" run unless
// --no-history, or bad input).  No CLI11 below app/.
#include <string>
#include <vector>

namespace rdnafix::validate {

struct ValidateOptions {
	bool quick = false, full = false, list = false, json = false, inject = false, torch = false;
	bool no_history = false;
	// --if-stack-changed: compare the stack with the last recorded run first;
	// the same stack: one line, exit 0, nothing run or recorded.  --brief:
	// exactly one line on stdout (run_brief.hpp), no table, no probe report.
	bool if_stack_changed = false, brief = false;
	// --verbose: when no runtime is found, every library path tried (else one
	// line counts them).  colour: the result column (--color).
	bool verbose = false, colour = false;
	std::vector<std::string> cases; // --case, in order
	double timeout = 120, grace = 5, capacity_fraction = 0.5;
	std::string history_db, api;
	int device = 0;
};
int run_validate(const ValidateOptions &o);

struct HistoryOptions {
	bool json = false;
	std::string history_db;
	double threshold = 0.10;
};
int run_history(const HistoryOptions &o);

// --history-db when given, else default_history_path() for this user ("" when none).
std::string history_path(const std::string &opt);

} // namespace rdnafix::validate
