#pragma once
// `rdnactl status` and `rdnactl env` as functions: options in, exit code out
// (0 nothing to report, 1 a warning or error finding, 2 could not run).  The
// command line that fills the options lives in app/; nothing here knows it.
#include "machine/collect.hpp"

#include "knowledge/model.hpp"

#include <string>

namespace rdnafix::status {

enum class ColourMode { automatic, always, never };
enum class Format { text, json, prometheus };

struct StatusOptions {
	machine::CollectOptions machine;
	Format format = Format::text;
	ColourMode colour = ColourMode::automatic;
	bool coverage = true; // scan the installed libraries' code objects (--no-coverage: skip)
	// "" prints on stdout; else the file to write atomically (temp file in
	// its directory, fsync, rename; mode 0644).  Its directory must exist.
	std::string output;
	// The built-in knowledge files (the program's rdnafix_knowledge_builtin):
	// their known-bad versions table, with the overlay directories on top
	// when `knowledge_overlays`.  nullptr: no known-bad check.
	const std::vector<knowledge::SourceText> *knowledge = nullptr;
	bool knowledge_overlays = true;
	// --verbose: every fact, the citations and a pass line per check; --quiet:
	// the findings' summary only.
	bool verbose = false;
	bool quiet = false;
	// --only / --skip: comma-separated check ids or areas ("" = none); they
	// filter the findings of every format and so the exit code.
	std::string only, skip;
	// --list-checks: print the catalogue (JSON with format json) and collect nothing.
	bool list_checks = false;
};
// Collects, evaluates and prints the report (text, JSON or Prometheus
// metrics) on stdout or into opts.output.  A file that cannot be written is
// exit code 2 with the reason on stderr.
int run_status(const StatusOptions &opts);
// The report run_status prints, as a string (opts.output is ignored); *rc
// (optional) gets run_status's exit code.  `rdnactl report` keeps the JSON.
std::string render_status(const StatusOptions &opts, int *rc = nullptr);
// The known-bad versions table of `builtin` (and the overlay directories).
std::vector<knowledge::KnownBad> load_known_bad(const std::vector<knowledge::SourceText> &builtin, bool overlays);

enum class Shell { sh, fish };

struct EnvOptions {
	machine::CollectOptions machine;
	Shell shell = Shell::sh;
	bool json = false; // the changes with both shells' lines and the judged variables (env_json)
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
