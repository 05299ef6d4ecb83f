#pragma once
// `rdnactl status` and `rdnactl env` as functions: options in, exit code out
// (0 nothing to report, 1 a warning or error finding, 2 could not run).  The
// command line that fills the options lives in app/; nothing here knows it.
#include "machine/collect.hpp"

#include <string>

namespace rdnafix::status {

enum class ColourMode { automatic, always, never };

struct StatusOptions {
	machine::CollectOptions machine;
	bool json = false;
	ColourMode colour = ColourMode::automatic;
	bool coverage = true; // scan the installed libraries' code objects (--no-coverage: skip)
};
// Collects, evaluates and prints the report (text or JSON) on stdout.
int run_status(const StatusOptions &opts);

enum class Shell { sh, fish };

struct EnvOptions {
	machine::CollectOptions machine;
	Shell shell = Shell::sh;
};
// Prints the environment changes the findings ask for, as shell lines.
int run_env(const EnvOptions &opts);

// `rdnactl kernel-check RELEASE` (run_kernel_check.cpp): is rdnafix built
// for an installed kernel when it is configured?  0 built or not configured,
// 1 configured and not built (a banner on stderr), 2 could not run (a bad
// release, a kernel that is not installed, an unusable root).
struct KernelCheckOptions {
	machine::CollectOptions machine;
	std::string release;
	bool json = false;
};
int run_kernel_check(const KernelCheckOptions &opts);

} // namespace rdnafix::status
