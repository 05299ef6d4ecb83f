#include "render.hpp"

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

std::string render_table(const std::vector<CaseResult> &results)
{
	std::size_t w = 4;
	for (const auto &r : results)
		w = std::max(w, r.name.size());
	std::string out = fmt::format("{:<{}}  {:<6} {:>10} {:>10} {:>10} {:>10} {:>9} {:>8}\n", "case", w, "result",
				      "max abs", "max rel", "rms/range", "GFLOP/s", "GB/s", "time s");
	for (const auto &r : results)
		out += fmt::format("{:<{}}  {:<6} {:>10} {:>10} {:>10} {:>10} {:>9} {:>8.2f}\n", r.name, w,
				   status_name(r.status), num(r.max_abs), num(r.max_rel), num(r.rms_range),
				   num(r.gflops, "{:.1f}"), num(r.gbs, "{:.1f}"), r.seconds);
	return out;
}

std::string render_findings(const std::vector<CaseResult> &results)
{
	std::string out;
	std::size_t passed = 0, failed = 0, skipped = 0;
	for (const auto &r : results) {
		if (r.status == Status::pass)
			++passed;
		else if (r.status == Status::skip)
			++skipped;
		else
			++failed;
		if (!r.reason.empty())
			out += fmt::format("{}: {}: {}\n", r.name, status_name(r.status), safe(r.reason));
		if (!r.kernel_log.empty()) {
			out += fmt::format("{}: {} kernel log line(s) while it ran:\n", r.name, r.kernel_log.size());
			for (const auto &e : r.kernel_log) {
				out += fmt::format("    [{}] {}\n", log_kind_name(e.kind), safe(e.text));
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
	out += fmt::format("{} passed, {} failed, {} skipped\n", passed, failed, skipped);
	return out;
}

int exit_code_for(const std::vector<CaseResult> &results)
{
	for (const auto &r : results)
		if (is_failure(r.status))
			return 1;
	return 0;
}

nlohmann::json render_json(const RunInfo &run, const std::vector<CaseResult> &results)
{
	nlohmann::json j;
	j["started_at"] = run.started_at;
	j["kernel_release"] = run.kernel_release;
	j["device"] = run.device;
	j["api"] = run.api;
	j["runtime_version"] = run.runtime_version;
	j["driver_version"] = run.driver_version;
	j["rdnactl_version"] = run.rdnactl_version;
	j["selection"] = run.selection;
	j["amdgpu_params"] = run.amdgpu_params;
	j["rdnafix_params"] = run.rdnafix_params;
	j["devices"] = run.devices;
	j["cases"] = nlohmann::json::array();
	for (const auto &r : results)
		j["cases"].push_back(nlohmann::json(r));
	j["exit_code"] = exit_code_for(results);
	return j;
}

std::string json_text(const nlohmann::json &j)
{
	return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
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

std::string render_history(const std::vector<StoredRun> &runs, const std::vector<Regression> &regressions)
{
	std::string out;
	if (runs.empty())
		return "no validation runs recorded yet (rdnactl validate records one)\n";
	out += fmt::format("{:>5}  {:<20}  {:<24}  {:<28} {:>5} {:>5} {:>5}\n", "run", "started (UTC)", "kernel",
			   "device", "pass", "fail", "skip");
	for (const auto &r : runs) {
		int p = 0, f = 0, s = 0;
		for (const auto &c : r.cases)
			(c.status == Status::pass ? p : c.status == Status::skip ? s : f)++;
		out += fmt::format("{:>5}  {:<20}  {:<24}  {:<28} {:>5} {:>5} {:>5}\n", r.id, safe(r.info.started_at),
				   safe(r.info.kernel_release), r.info.device.empty() ? "-" : safe(r.info.device), p, f,
				   s);
	}
	if (regressions.empty()) {
		out += "no regressions between kernel releases\n";
	} else {
		out += fmt::format("{} regression(s) between kernel releases:\n", regressions.size());
		for (const auto &g : regressions)
			out += "  " + safe(g.describe()) + "\n";
	}
	return out;
}

nlohmann::json render_history_json(const std::vector<StoredRun> &runs, const std::vector<Regression> &regressions)
{
	nlohmann::json j;
	j["runs"] = nlohmann::json::array();
	for (const auto &r : runs) {
		nlohmann::json jr{{"id", r.id},
				  {"started_at", r.info.started_at},
				  {"kernel_release", r.info.kernel_release},
				  {"device", r.info.device},
				  {"api", r.info.api},
				  {"runtime_version", r.info.runtime_version},
				  {"driver_version", r.info.driver_version},
				  {"rdnactl_version", r.info.rdnactl_version},
				  {"selection", r.info.selection},
				  {"amdgpu_params", r.info.amdgpu_params},
				  {"rdnafix_params", r.info.rdnafix_params},
				  {"devices", r.info.devices},
				  {"cases", nlohmann::json::array()}};
		for (const auto &c : r.cases) {
			nlohmann::json jc{{"name", c.name}, {"status", status_name(c.status)}};
			if (!c.reason.empty())
				jc["reason"] = c.reason;
			for (auto [k, v] : {std::pair{"gflops", c.gflops},
					    {"gbs", c.gbs},
					    {"max_abs", c.max_abs},
					    {"max_rel", c.max_rel},
					    {"rms_range", c.rms_range},
					    {"seconds", c.seconds}})
				if (v)
					jc[k] = *v;
			jr["cases"].push_back(std::move(jc));
		}
		j["runs"].push_back(std::move(jr));
	}
	j["regressions"] = nlohmann::json::array();
	for (const auto &g : regressions) {
		nlohmann::json jg{{"kind", g.kind == Regression::Kind::status ? "status" : "throughput"},
				  {"device", g.device},
				  {"case", g.case_name},
				  {"from_kernel", g.from_kernel},
				  {"to_kernel", g.to_kernel},
				  {"from_run", g.from_run},
				  {"to_run", g.to_run},
				  {"from_status", g.from_status},
				  {"to_status", g.to_status},
				  {"description", g.describe()}};
		if (g.kind == Regression::Kind::throughput) {
			jg["from_value"] = g.from_value;
			jg["to_value"] = g.to_value;
			jg["drop"] = g.drop;
		}
		j["regressions"].push_back(std::move(jg));
	}
	return j;
}

} // namespace rdnafix::validate
