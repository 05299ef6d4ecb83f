#pragma once
// The end of `rdnactl validate`, apart from running the cases (run.cpp):
// print the results, then record them; or say why the GPU cases cannot run.
#include <string>
#include <vector>

#include "history.hpp"
#include "result.hpp"
#include "run.hpp"

namespace rdnafix::validate {

// Prints the results (table or JSON) and only then records the run (unless
// --no-history): a recording failure is a warning on stderr and never changes
// the exit code, which is exit_code_for(results).
int finish_validate(const ValidateOptions &o, const RunInfo &run, const std::vector<CaseResult> &results);

// The GPU cases cannot run: `reason` is a word ("no_runtime",
// "runtime_no_device", "init_failed", "no_backend", "probe_failed"),
// `headline` one line, `report` what the probe found (multi-line).  Text: on
// stderr.  --json: also a JSON document on stdout with the reason.  Returns 2.
int report_not_run(const ValidateOptions &o, const RunInfo &run, const std::string &reason, const std::string &headline,
		   const std::string &report);

// Writes `run` and `results` to the history database of `o`; returns
// "recorded as run N in PATH", or "" after a warning on stderr.
std::string record_history(const ValidateOptions &o, const RunInfo &run, const std::vector<CaseResult> &results);

} // namespace rdnafix::validate
