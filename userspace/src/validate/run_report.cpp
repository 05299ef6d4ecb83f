// The end of `rdnactl validate`: results first, the history second; and the
// answer (text or JSON) when the GPU cases cannot run.
#include "run_report.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "core/text_safe.hpp"
#include "render.hpp"

namespace rdnafix::validate {

namespace {

// Each line of machine-supplied text made safe for a terminal, lines kept,
// and the last one ended.
std::string safe_lines(const std::string &text)
{
	std::string o = core::terminal_safe_lines(text);
	if (!o.empty() && o.back() != '\n')
		o += '\n';
	return o;
}

} // namespace

std::string record_history(const ValidateOptions &o, const RunInfo &run, const std::vector<CaseResult> &results)
{
	const std::string path = history_path(o.history_db);
	try {
		if (path.empty())
			throw std::runtime_error("no history location: neither $XDG_STATE_HOME nor $HOME is set "
						 "(use --history-db PATH)");
		const auto dir = std::filesystem::path(path).parent_path();
		if (!dir.empty())
			std::filesystem::create_directories(dir);
		History h(path);
		const auto id = h.record(run, results);
		return fmt::format("recorded as run {} in {}", id, path);
	} catch (const SQLite::Exception &e) { // e.g. a table missing from a damaged file
		std::cerr << "rdnactl validate: warning: history not recorded in " << core::terminal_safe(path) << ": "
			  << core::terminal_safe(e.what()) << std::endl;
	} catch (const std::exception &e) {
		std::cerr << "rdnactl validate: warning: history not recorded: " << core::terminal_safe(e.what())
			  << std::endl;
	}
	return {};
}

int finish_validate(const ValidateOptions &o, const RunInfo &run, const std::vector<CaseResult> &results)
{
	if (o.json)
		std::cout << json_text(render_json(run, results));
	else
		std::cout << render_table(results) << render_findings(results);
	std::cout.flush();
	if (!o.no_history) {
		const std::string msg = record_history(o, run, results);
		if (!o.json && !msg.empty())
			std::cout << core::terminal_safe(msg) << "\n";
	}
	return exit_code_for(results);
}

int report_not_run(const ValidateOptions &o, const RunInfo &run, const std::string &reason, const std::string &headline,
		   const std::string &report)
{
	std::cerr << "rdnactl validate: " << headline << "\n" << safe_lines(report.empty() ? "(no report)" : report);
	if (o.json) {
		auto j = render_json(run, {});
		j["exit_code"] = 2;
		j["not_run"] = {{"reason", reason}, {"message", headline}, {"report", report}};
		std::cout << json_text(j);
	}
	return 2;
}

} // namespace rdnafix::validate
