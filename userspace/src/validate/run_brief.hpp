#pragma once
// `rdnactl validate --if-stack-changed` and `--brief`: whether this stack
// was already validated, and the one line the journal gets.  Pure.
//
// The line (stdout, for `journalctl -u rdnafix-validate`):
//   rdnafix validate: new stack (kernel 6.1.0-28-amd64 → 6.12.57+deb12-amd64):
//   not run: no GPU runtime; recorded as run 2 rdnafix validate: first recorded
//   stack: 7 passed, 0 failed; recorded as run 1 rdnafix validate: same stack
//   as run 4: 6 passed, 1 failed; recorded as run 5 rdnafix validate: stack
//   unchanged since run 5 (2026-11-24T10:00:00Z): not run
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "history/history.hpp"
#include "history/result.hpp"
#include "software/stack.hpp"

namespace rdnafix::validate {

// The stack now against the last recorded run (of any stack).
struct StackCheck {
	std::optional<StoredRun> last;    // the newest run in the history; nullopt: none
	bool same = false;                // last recorded its whole stack and it equals `now`
	std::vector<StackChange> changes; // last's stack -> now (compare_stacks: a
					  // legacy run, only what it knew)
};
StackCheck check_stack(const std::vector<StoredRun> &runs, const Stack &now);

// "kernel 6.1.0-28-amd64 → 6.12.57+deb12-amd64, env.HSA_OVERRIDE_GFX_VERSION
// unset → 10.3.0 and 2 more" (StackChange::describe, terminal-safe); at most
// `max` changes named.
std::string describe_changes(const std::vector<StackChange> &changes, std::size_t max = 3);

// "no GPU runtime" for a not-run reason word (run_report.hpp lists them);
// an unknown word is shown as it is.
std::string not_run_text(const std::string &reason);

// "7 passed, 0 failed" (skips counted only when there are some: ", 1 skipped").
std::string results_text(const std::vector<CaseResult> &results);

// The --brief line without a newline.  `verdict`: results_text() or
// "not run: " + not_run_text(); `recorded`: the run id, nullopt when not
// recorded (--no-history, or recording failed).
std::string brief_line(const StackCheck &c, const std::string &verdict, std::optional<std::int64_t> recorded);

// --if-stack-changed on an unchanged stack: the line printed instead of
// running.
std::string unchanged_line(const StoredRun &last);

} // namespace rdnafix::validate
