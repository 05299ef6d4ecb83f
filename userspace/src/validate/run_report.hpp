#pragma once
// The end of `rdnactl validate`, apart from running the cases (run.cpp):
// print the results, then record them; or say why the GPU cases cannot run.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "history/history.hpp"
#include "history/result.hpp"
#include "run.hpp"
#include "run_brief.hpp"

namespace rdnafix::validate {

// Prints the results (table or JSON; --brief: the one line after recording)
// and only then records the run (unless --no-history): a recording failure
// is a warning on stderr and never changes the exit code, which is
// exit_code_for(results).  `stack`: the stack against the last run (--brief).
int finish_validate(const ValidateOptions &o, const RunInfo &run, const std::vector<CaseResult> &results,
		    const StackCheck &stack);

// The GPU cases cannot run: `reason` is a word ("no_runtime",
// "runtime_no_device", "init_failed", "no_backend", "probe_failed"),
// `headline` one line, `report` what the probe found (multi-line).  The run
// is recorded with not_run = reason (unless --no-history).  Text: on stderr,
// then "recorded as run N in PATH" on stdout.  --json: also a JSON document
// on stdout with the reason.  --brief: only the one line.  Returns 2.
int report_not_run(const ValidateOptions &o, RunInfo run, const std::string &reason, const std::string &headline,
		   const std::string &report, const StackCheck &stack);

// The probe's report with each "looked in:" list (one line per library
// path tried) replaced by one line that counts the paths and those found:
// what `validate` prints without --verbose.  Pure.
std::string fold_looked_in(const std::string &report);

// Writes `run` and `results` to the history database of `o`; returns the
// run's id, or nullopt after a warning on stderr.
std::optional<std::int64_t> record_history(const ValidateOptions &o, const RunInfo &run,
					   const std::vector<CaseResult> &results);

// --if-stack-changed / --brief: the history of `o` read (never created) and
// compared with `now`.  A history that cannot be read is a warning on
// stderr and counts as none.
StackCheck load_stack_check(const ValidateOptions &o, const Stack &now);

} // namespace rdnafix::validate
