#pragma once
// `rdnactl validate` and `rdnactl history` as functions: app/cmd_validate.cpp
// and app/cmd_history.cpp fill the options from the command line and call
// these; each returns the exit code (0 ok, 1 failures / regressions, 2 could
// not run).  No CLI11 below app/.
#include <string>
#include <vector>

namespace rdnafix::validate {

struct ValidateOptions {
	bool quick = false, full = false, list = false, json = false, inject = false, torch = false;
	bool no_history = false;
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
