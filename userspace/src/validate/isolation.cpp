#include "isolation.hpp"

#include <cstring>

#include <fmt/format.h>

#include "core/text_safe.hpp"

namespace rdnafix::validate {

CaseResult classify_child(const std::string &name, const io::ChildOutcome &o, double timeout_s, std::string_view who)
{
	CaseResult r;
	r.name = name;
	r.seconds = o.seconds;
	// The output tail was cut at a byte count and holds whatever the child printed.
	r.output_tail = core::utf8_valid(o.output_tail);
	if (!o.started) {
		r.status = Status::error;
		r.reason = fmt::format("could not start {}: {}", who, o.start_error);
		return r;
	}
	// The child's own report, when it is usable, carries the figures.
	std::string parse_error;
	std::optional<CaseResult> reported;
	if (o.result_over_cap) {
		r.status = Status::error;
		r.reason =
			fmt::format("{} wrote more than {} bytes of result and was killed", who, io::kResultCapBytes);
		return r;
	}
	if (!o.result.empty()) {
		try {
			reported = nlohmann::json::parse(o.result).get<CaseResult>();
		} catch (const std::exception &e) {
			parse_error = e.what();
		}
	}
	if (reported) {
		const auto keep_output = r.output_tail;
		r = std::move(*reported);
		r.name = name;
		r.seconds = o.seconds;
		r.output_tail = keep_output;
	}
	if (o.timed_out) {
		r.status = Status::hang;
		r.reason = fmt::format("no result within the {:g} s timeout; the watchdog sent SIGTERM{}", timeout_s,
				       o.needed_kill ? " and then SIGKILL" : "");
		return r;
	}
	if (o.signaled) {
		r.status = Status::crash;
		r.reason = fmt::format("{} was killed by signal {} ({})", who, o.signal,
				       sigabbrev_np(o.signal) ? fmt::format("SIG{}", sigabbrev_np(o.signal))
							      : std::string("unknown"));
		return r;
	}
	if (o.exit_code == 127 && o.result.empty()) {
		r.status = Status::error;
		r.reason = fmt::format("{} could not be executed (exit 127)", who);
		return r;
	}
	if (!reported) {
		r.status = Status::error;
		r.reason = o.result.empty()
				   ? fmt::format("{} exited with status {} without writing a result", who, o.exit_code)
				   : fmt::format(
					     "{} exited with status {} and wrote an unusable result "
					     "({}): '{}'",
					     who, o.exit_code, core::utf8_valid(parse_error),
					     core::utf8_valid(o.result.substr(0, core::utf8_prefix_len(o.result, 80))));
		return r;
	}
	if (o.exit_code != 0 && r.status == Status::pass) {
		r.status = Status::error;
		r.reason = fmt::format("the case reported pass but its process exited with status {}", o.exit_code);
	}
	return r;
}

} // namespace rdnafix::validate
