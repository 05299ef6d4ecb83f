#include "render.hpp"

#include "core/term_style.hpp"
#include "core/text_safe.hpp"

#include <fmt/format.h>

namespace rdnafix::validate {

namespace {

std::string num(const std::optional<double> &v, const char *f = "{:.3g}")
{
	return v ? fmt::format(fmt::runtime(f), *v) : std::string("-");
}

// Reasons, kernel log lines, a child's output and history rows are machine
// text: control characters in them are escaped (core::terminal_safe); a
// multi-line text keeps its line breaks.
std::string safe(std::string_view s)
{
	return core::terminal_safe(s);
}

} // namespace

std::string render_table(const std::vector<CaseResult> &results, bool colour)
{
	std::size_t w = 4;
	for (const auto &r : results)
		w = std::max(w, r.name.size());
	std::string out = fmt::format("{:<{}}  {:<6} {:>10} {:>10} {:>10} {:>10} {:>9} {:>8}\n", "case", w, "result",
				      "max abs", "max rel", "rms/range", "GFLOP/s", "GB/s", "time s");
	for (const auto &r : results)
		out += fmt::format("{:<{}}  {} {:>10} {:>10} {:>10} {:>10} {:>9} {:>8.2f}\n", r.name, w,
				   core::paint(fmt::format("{:<6}", status_name(r.status)),
					       is_failure(r.status)       ? core::Tone::error
					       : r.status == Status::pass ? core::Tone::ok
									  : core::Tone::dim,
					       colour),
				   num(r.max_abs), num(r.max_rel), num(r.rms_range), num(r.gflops, "{:.1f}"),
				   num(r.gbs, "{:.1f}"), r.seconds);
	return out;
}

std::string render_findings(const std::vector<CaseResult> &results)
{
	std::string out;
	for (const auto &r : results) {
		if (!r.reason.empty())
			out += fmt::format("{}: {}: {}\n", r.name, status_name(r.status), safe(r.reason));
		if (!r.kernel_log.empty()) {
			out += fmt::format("{}: {} kernel log line(s) while it ran:\n", r.name, r.kernel_log.size());
			for (const auto &e : r.kernel_log) {
				out += fmt::format(
					"    [{}] {}\n", log_kind_name(e.kind),
					core::terminal_safe_quoted(e.text)); // a quoted kernel line: tabs as spaces
				if (e.fault)
					out += fmt::format("        decoded: {}\n", e.fault->explain());
			}
		}
		if (is_failure(r.status) && !r.output_tail.empty()) {
			std::string t = utf8_tail(core::terminal_safe_lines(r.output_tail), 600);
			if (t.size() < r.output_tail.size())
				t = "..." + t;
			out += fmt::format("{}: last output of the case process:\n{}{}", r.name, t,
					   t.ends_with('\n') ? "" : "\n");
		}
	}
	std::string note;
	for (const auto &r : results)
		if (!r.kernel_log_note.empty())
			note = r.kernel_log_note;
	if (!note.empty())
		out += safe(note) + "\n";
	const Tally t = tally(results);
	out += fmt::format("{} passed, {} failed, {} skipped\n", t.passed, t.failed, t.skipped);
	return out;
}

int exit_code_for(const std::vector<CaseResult> &results)
{
	for (const auto &r : results)
		if (is_failure(r.status))
			return 1;
	return 0;
}

nlohmann::ordered_json render_json(const RunInfo &run, const std::vector<CaseResult> &results)
{
	nlohmann::ordered_json j;
	j["schema_version"] = 1;
	j["rdnactl_version"] = run.rdnactl_version;
	j["exit_code"] = exit_code_for(results);
	j["started_at"] = run.started_at;
	j["kernel_release"] = run.kernel_release;
	j["device"] = run.device;
	j["api"] = run.api;
	j["runtime_version"] = run.runtime_version;
	j["driver_version"] = run.driver_version;
	j["selection"] = run.selection;
	j["amdgpu_params"] = run.amdgpu_params;
	j["rdnafix_params"] = run.rdnafix_params;
	j["devices"] = run.devices;
	j["cases"] = nlohmann::ordered_json::array();
	for (const auto &r : results)
		j["cases"].push_back(nlohmann::ordered_json(r));
	return j;
}

std::string json_text(const nlohmann::json &j)
{
	return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string json_text(const nlohmann::ordered_json &j)
{
	return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string utf8_tail(const std::string &s, std::size_t max)
{
	if (s.size() <= max)
		return s;
	std::size_t start = s.size() - max;
	// Skip at most 3 continuation bytes (10xxxxxx) of a sequence cut in two.
	for (int i = 0; i < 3 && start < s.size() && (static_cast<unsigned char>(s[start]) & 0xc0) == 0x80; ++i)
		++start;
	return s.substr(start);
}

std::string progress_line(std::size_t index, std::size_t total, const std::string &name)
{
	return fmt::format("\r\033[K[{}/{}] {}", index + 1, total, name);
}

} // namespace rdnafix::validate
