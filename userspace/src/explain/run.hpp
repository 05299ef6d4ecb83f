#pragma once
// `rdnactl explain` as a function: options in, exit code out.
//   0  nothing known found (or only harmless messages)
//   1  at least one known failure explained
//   2  could not run (input unreadable, unknown signature id, --root unusable)
// The command line that fills the options lives in app/cmd_explain.cpp.
#include "machine/collect.hpp"

#include <optional>
#include <string>

namespace rdnafix::explain {

struct ExplainOptions {
	std::string input;            // FILE, "-" (stdin), "" (stdin when it is not a terminal), or an RDNA-LOG id
	std::optional<long long> pid; // --pid: audit the environment of this process
	bool json = false;
	bool list = false;    // --list: print the catalogue
	bool coverage = true; // false: --no-coverage
	machine::CollectOptions machine;
};

int run_explain(const ExplainOptions &opts);

} // namespace rdnafix::explain
