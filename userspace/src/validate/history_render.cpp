// `rdnactl history` in words and JSON (render.hpp: render_history,
// render_history_json): the runs, what changed between them, the
// regressions.  Pure; machine text is escaped with core::terminal_safe.
#include <set>

#include <fmt/format.h>

#include "core/text_safe.hpp"
#include "render.hpp"

#include "rdnafix_version.hpp"

namespace rdnafix::validate {

namespace {

std::string safe(std::string_view s)
{
	return core::terminal_safe(s);
}

std::string result_word(const StoredRun &r)
{
	const RunVerdict v = verdict(r);
	if (v != RunVerdict::not_run)
		return verdict_name(v);
	return r.info.not_run.empty() ? "not run" : "not run (" + safe(r.info.not_run) + ")";
}

nlohmann::ordered_json optional_text(const std::optional<std::string> &v)
{
	return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json changes_json(const std::vector<StackChange> &changes)
{
	nlohmann::ordered_json j = nlohmann::ordered_json::array();
	for (const auto &c : changes)
		j.push_back({{"name", c.name}, {"from", optional_text(c.from)}, {"to", optional_text(c.to)}});
	return j;
}

nlohmann::ordered_json run_json(const StoredRun &r)
{
	nlohmann::ordered_json jr{{"id", r.id},
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
				  {"stack", r.info.stack.to_json()},
				  {"stack_key", r.info.stack.key()},
				  {"stack_recorded", !r.stack_legacy},
				  {"not_run", r.info.not_run},
				  {"verdict", verdict_name(verdict(r))},
				  {"cases", nlohmann::ordered_json::array()}};
	for (const auto &c : r.cases) {
		nlohmann::ordered_json jc{{"name", c.name}, {"status", status_name(c.status)}};
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
	return jr;
}

nlohmann::ordered_json comparison_json(const RunComparison &c)
{
	nlohmann::ordered_json j{{"device", c.device},
				 {"run", c.run},
				 {"started_at", c.started_at},
				 {"against", c.against},
				 {"against_started_at", c.against_started_at},
				 {"same_stack", c.same_stack()},
				 {"changes", changes_json(c.changes)},
				 {"not_run", c.not_run},
				 {"regression", c.has_regression()},
				 {"cases", nlohmann::ordered_json::array()},
				 {"description", c.describe()}};
	for (const auto &d : c.cases) {
		nlohmann::ordered_json jd{{"case", d.case_name},
					  {"from_run", d.from_run},
					  {"from_status", d.from_status},
					  {"to_status", d.to_status},
					  {"same_stack", d.same_stack},
					  {"regression", d.regression},
					  {"kind", d.throughput ? "throughput" : "status"}};
		if (d.throughput) {
			jd["from_value"] = d.from_value;
			jd["to_value"] = d.to_value;
			jd["drop"] = d.drop;
			jd["unit"] = d.unit;
		}
		j["cases"].push_back(std::move(jd));
	}
	return j;
}

nlohmann::ordered_json regression_json(const Regression &g)
{
	nlohmann::ordered_json jg{{"kind", g.kind == Regression::Kind::status ? "status" : "throughput"},
				  {"device", g.device},
				  {"case", g.case_name},
				  {"from_kernel", g.from_kernel},
				  {"to_kernel", g.to_kernel},
				  {"from_run", g.from_run},
				  {"to_run", g.to_run},
				  {"from_status", g.from_status},
				  {"to_status", g.to_status},
				  {"same_stack", g.changes.empty()},
				  {"changes", changes_json(g.changes)},
				  {"description", g.describe()}};
	if (g.kind == Regression::Kind::throughput) {
		jg["from_value"] = g.from_value;
		jg["to_value"] = g.to_value;
		jg["drop"] = g.drop;
	}
	return jg;
}

// An element of a top-level array as json_text indents it (4 spaces deep).
// Dumped strings hold no raw newline, so every newline starts a line.
std::string element(const nlohmann::ordered_json &j)
{
	const std::string text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
	std::string out = "    ";
	for (char c : text) {
		out += c;
		if (c == '\n')
			out += "    ";
	}
	return out;
}

} // namespace

std::string render_history_header()
{
	return fmt::format("{:>5}  {:<20}  {:<24}  {:<28} {:>5} {:>5} {:>5}  {:<8}  {}\n", "run", "started (UTC)",
			   "kernel", "device", "pass", "fail", "skip", "stack", "result");
}

std::string render_history_row(const StoredRun &r)
{
	int p = 0, f = 0, s = 0;
	for (const auto &c : r.cases)
		(c.status == Status::pass ? p : c.status == Status::skip ? s : f)++;
	return fmt::format("{:>5}  {:<20}  {:<24}  {:<28} {:>5} {:>5} {:>5}  {:<8}  {}\n", r.id,
			   safe(r.info.started_at), safe(r.info.kernel_release),
			   r.info.device.empty() ? "-" : safe(r.info.device), p, f, s, r.info.stack.key().substr(0, 8),
			   result_word(r));
}

std::string render_history_tail(const std::vector<Regression> &regressions,
				const std::vector<RunComparison> &comparisons)
{
	std::string out;
	std::set<std::string> devices;
	for (const auto &c : comparisons)
		devices.insert(c.device);
	if (comparisons.empty()) {
		out += "no stack or case changes between runs\n";
	} else {
		out += "what changed (each run against the run before it on its device):\n";
		for (const auto &c : comparisons)
			out += "  " + (devices.size() > 1 ? (c.device.empty() ? "-" : safe(c.device)) + ": " : "") +
			       c.describe() + "\n";
	}
	if (regressions.empty()) {
		out += "no regressions\n";
	} else {
		out += fmt::format("{} regression(s):\n", regressions.size());
		for (const auto &g : regressions)
			out += "  " + g.describe() + "\n"; // terminal-safe already
	}
	return out;
}

std::string render_history(const std::vector<StoredRun> &runs, const std::vector<Regression> &regressions,
			   const std::vector<RunComparison> &comparisons)
{
	if (runs.empty())
		return "no validation runs recorded yet (rdnactl validate records one)\n";
	std::string out = render_history_header();
	for (const auto &r : runs)
		out += render_history_row(r);
	return out + render_history_tail(regressions, comparisons);
}

nlohmann::json render_history_json(const std::vector<StoredRun> &runs, const std::vector<Regression> &regressions,
				   const std::vector<RunComparison> &comparisons)
{
	nlohmann::json j;
	j["schema_version"] = kHistoryJsonSchemaVersion;
	j["rdnactl_version"] = RDNAFIX_VERSION;
	j["exit_code"] = regressions.empty() ? 0 : 1;
	j["runs"] = nlohmann::json::array();
	for (const auto &r : runs)
		j["runs"].push_back(nlohmann::json(run_json(r)));
	j["comparisons"] = nlohmann::json::array();
	for (const auto &c : comparisons)
		j["comparisons"].push_back(nlohmann::json(comparison_json(c)));
	j["regressions"] = nlohmann::json::array();
	for (const auto &g : regressions)
		j["regressions"].push_back(nlohmann::json(regression_json(g)));
	return j;
}

// The identity keys.  exit_code is known only at the end (regressions are
// found while the runs stream), so the writer puts it last.
std::string HistoryJsonWriter::head()
{
	return fmt::format("{{\n  \"schema_version\": {},\n  \"rdnactl_version\": \"{}\",\n", kHistoryJsonSchemaVersion,
			   RDNAFIX_VERSION);
}

void HistoryJsonWriter::run(const StoredRun &r)
{
	out_ += any_ ? ",\n" : head() + "  \"runs\": [\n";
	out_ += element(run_json(r));
	any_ = true;
}

void HistoryJsonWriter::finish(const std::vector<Regression> &regressions,
			       const std::vector<RunComparison> &comparisons)
{
	out_ += any_ ? "\n  ],\n" : head() + "  \"runs\": [],\n";
	out_ += "  \"comparisons\": [";
	for (std::size_t i = 0; i < comparisons.size(); ++i)
		out_ += (i ? ",\n" : "\n") + element(comparison_json(comparisons[i]));
	out_ += comparisons.empty() ? "],\n" : "\n  ],\n";
	out_ += "  \"regressions\": [";
	for (std::size_t i = 0; i < regressions.size(); ++i)
		out_ += (i ? ",\n" : "\n") + element(regression_json(regressions[i]));
	out_ += regressions.empty() ? "],\n" : "\n  ],\n";
	out_ += fmt::format("  \"exit_code\": {}\n}}\n", regressions.empty() ? 0 : 1);
}

} // namespace rdnafix::validate
