#pragma once
// `rdnactl explain` as a function: options in, exit code out.
//   0  nothing known found (or only harmless messages)
//   1  at least one known failure explained
//   2  could not run (input unreadable, unknown signature id, --root unusable)
// The command line that fills the options lives in app/cmd_explain.cpp.
#include "machine/collect.hpp"

#include "core/term_style.hpp"
#include "knowledge/model.hpp"

#include <optional>
#include <string>

namespace rdnafix::explain {

struct ExplainOptions {
	std::string input;            // FILE, "-" (stdin), "" (stdin when it is not a terminal), or an RDNA-LOG id
	std::optional<long long> pid; // --pid: audit the environment of this process
	bool json = false;
	bool list = false;           // --list: print the catalogue
	std::string check_knowledge; // --check-knowledge FILE: validate a knowledge file and run its examples
	bool overlays = true;        // read /usr/share/rdnafix/knowledge.d and /etc/rdnafix/knowledge.d
	bool coverage = true;        // false: --no-coverage
	bool verbose = false;        // --verbose: each match's sources too
	core::TextStyle style;       // colour and wrap width of the text (not JSON)
	machine::CollectOptions machine;
};

// `builtin`: the knowledge files compiled into the program.
int run_explain(const ExplainOptions &opts, const std::vector<knowledge::SourceText> &builtin);

} // namespace rdnafix::explain
