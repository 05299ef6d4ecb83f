#pragma once
// The result of one validation case, as the child reports it and the parent
// completes it (wall time, kernel log, how the child ended).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/kmsg.hpp"

namespace rdnafix::validate {

enum class Status { pass, fail, skip, crash, hang, error };
const char *status_name(Status s);
std::optional<Status> parse_status(std::string_view s);
// A case that ran and did not pass (skip is not a failure).
bool is_failure(Status s);

struct CaseResult {
	std::string name;
	Status status = Status::error;
	std::string reason; // one line: why it failed / was skipped / crashed
	std::optional<double> max_abs, max_rel, rms_range;
	std::optional<double> gflops, gbs;
	double seconds = 0;     // wall time of the case (child process)
	nlohmann::json details; // case-specific figures (shape, memory kind, transfer table ...)
	std::vector<LogEvent> kernel_log;
	std::string kernel_log_note; // e.g. "kernel log not captured: cannot open /dev/kmsg: ..."
	std::string output_tail;     // last lines the child wrote to stdout/stderr
};

// How many cases passed, were skipped, and failed (anything else: fail,
// crash, hang, error).
struct Tally {
	std::size_t passed = 0, failed = 0, skipped = 0;
};
Tally tally(const std::vector<CaseResult> &results);

// The case child's reply to the parent (one JSON object on fd 3), also the
// "cases" entries of `validate --json` and the kernel_log column of history.
void to_json(nlohmann::json &j, const CaseResult &r);
void to_json(nlohmann::ordered_json &j, const CaseResult &r);
// Throws std::runtime_error with a message naming the bad field.
void from_json(const nlohmann::json &j, CaseResult &r);

} // namespace rdnafix::validate
