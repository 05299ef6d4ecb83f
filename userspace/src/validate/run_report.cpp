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

std::string fold_looked_in(const std::string &report)
{
	std::string out;
	std::size_t tried = 0, found = 0;
	bool in_list = false;
	auto close = [&] {
		if (in_list)
			out += fmt::format(
				"  looked in: {} library path(s), {} found{} (rdnactl validate --verbose lists "
				"them)\n",
				tried, found, found ? " but not enough to run" : "");
		in_list = false;
		tried = found = 0;
	};
	std::size_t pos = 0;
	while (pos < report.size()) {
		const std::size_t nl = report.find('\n', pos);
		const std::string line = report.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
		pos = nl == std::string::npos ? report.size() : nl + 1;
		if (line == "  looked in:") {
			close();
			in_list = true;
			continue;
		}
		if (in_list && line.starts_with("    ")) {
			++tried;
			found += line.ends_with(": ok");
			continue;
		}
		close();
		out += line + "\n";
	}
	close();
	if (!report.empty() && report.back() != '\n' && !out.empty() && out.back() == '\n')
		out.pop_back();
	return out;
}

std::optional<std::int64_t> record_history(const ValidateOptions &o, const RunInfo &run,
					   const std::vector<CaseResult> &results)
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
		return h.record(run, results);
	} catch (const SQLite::Exception &e) { // e.g. a table missing from a damaged file
		std::cerr << "rdnactl validate: warning: history not recorded in " << core::terminal_safe(path) << ": "
			  << core::terminal_safe(e.what()) << std::endl;
	} catch (const std::exception &e) {
		std::cerr << "rdnactl validate: warning: history not recorded: " << core::terminal_safe(e.what())
			  << std::endl;
	}
	return std::nullopt;
}

StackCheck load_stack_check(const ValidateOptions &o, const Stack &now)
{
	const std::string path = history_path(o.history_db);
	std::error_code ec;
	if (path.empty() || !std::filesystem::exists(path, ec))
		return check_stack({}, now);
	try {
		auto h = History::open_read_only(path);
		auto last = h.last_run(); // check_stack needs the newest run only
		return check_stack(last ? std::vector<StoredRun>{std::move(*last)} : std::vector<StoredRun>{}, now);
	} catch (const std::exception &e) { // SQLite::Exception is one
		std::cerr << "rdnactl validate: warning: cannot read the history in " << core::terminal_safe(path)
			  << " to compare the stack (validating as a new stack): " << core::terminal_safe(e.what())
			  << std::endl;
	}
	return check_stack({}, now);
}

int finish_validate(const ValidateOptions &o, const RunInfo &run, const std::vector<CaseResult> &results,
		    const StackCheck &stack)
{
	if (o.json)
		std::cout << json_text(render_json(run, results));
	else if (!o.brief)
		std::cout << render_table(results, o.colour) << render_findings(results);
	std::cout.flush();
	std::optional<std::int64_t> id;
	if (!o.no_history) {
		id = record_history(o, run, results);
		if (id && !o.json && !o.brief)
			std::cout << core::terminal_safe(
					     fmt::format("recorded as run {} in {}", *id, history_path(o.history_db)))
				  << "\n";
	}
	if (o.brief)
		std::cout << brief_line(stack, results_text(results), id) << std::endl;
	return exit_code_for(results);
}

int report_not_run(const ValidateOptions &o, RunInfo run, const std::string &reason, const std::string &headline,
		   const std::string &report, const StackCheck &stack)
{
	run.not_run = reason;
	if (!o.brief)
		std::cerr << "rdnactl validate: " << headline << "\n"
			  << safe_lines(report.empty() ? "(no report)"
					: o.verbose    ? report
						       : fold_looked_in(report))
			  << std::flush;
	const std::optional<std::int64_t> id = o.no_history ? std::nullopt : record_history(o, run, {});
	if (o.json) {
		auto j = render_json(run, {});
		j["exit_code"] = 2;
		j["not_run"] = {{"reason", reason}, {"message", headline}, {"report", report}};
		std::cout << json_text(j);
	} else if (o.brief) {
		std::cout << brief_line(stack, "not run: " + not_run_text(reason), id) << std::endl;
	} else if (id) {
		std::cout << core::terminal_safe(fmt::format("not run ({}): recorded as run {} in {}", reason, *id,
							     history_path(o.history_db)))
			  << "\n";
	}
	return 2;
}

} // namespace rdnafix::validate
