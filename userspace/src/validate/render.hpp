#pragma once
// Words for results: the table, the JSON document and the history listing
// (the only place a Status or Regression kind becomes text besides its
// *_name function), and the exit code.  Pure (returns strings); run.cpp prints them.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/history.hpp"
#include "history/result.hpp"

namespace rdnafix::validate {

// `colour`: the result column coloured (core/term_style.hpp).
std::string render_table(const std::vector<CaseResult> &results, bool colour = false);
// Kernel-log excerpts and failure reasons below the table.
std::string render_findings(const std::vector<CaseResult> &results);
// 0 all ran cases passed (skips allowed), 1 any failed/crashed/hung/errored.
int exit_code_for(const std::vector<CaseResult> &results);
// `validate --json` (docs/schema/validate.json): identity keys first.
nlohmann::ordered_json render_json(const RunInfo &run, const std::vector<CaseResult> &results);
// A JSON document as printed: indented, a trailing newline, and bytes that
// are not UTF-8 replaced by U+FFFD instead of failing.
std::string json_text(const nlohmann::json &j);
std::string json_text(const nlohmann::ordered_json &j);
// `validate --list --json` (docs/schema/validate-list.json).
nlohmann::ordered_json render_list_json();
// The last `max` bytes of `s` at most, starting on a UTF-8 sequence boundary.
std::string utf8_tail(const std::string &s, std::size_t max);
std::string progress_line(std::size_t index, std::size_t total, const std::string &name);

// The history listing (history_render.cpp): the runs, what changed between
// them (compare_runs) and the regressions (find_regressions).
std::string render_history(const std::vector<StoredRun> &runs, const std::vector<Regression> &regressions,
			   const std::vector<RunComparison> &comparisons = {});
nlohmann::json render_history_json(const std::vector<StoredRun> &runs, const std::vector<Regression> &regressions,
				   const std::vector<RunComparison> &comparisons = {});
// The same in parts, for a listing printed while the runs are read: the
// table's header, one run's row, and what follows the table.
std::string render_history_header();
std::string render_history_row(const StoredRun &r);
std::string render_history_tail(const std::vector<Regression> &regressions,
				const std::vector<RunComparison> &comparisons);
// schema_version of `history --json` (docs/schema/history.json).
inline constexpr int kHistoryJsonSchemaVersion = 1;
// `history --json` written while the runs are read: {"schema_version": 1,
// "rdnactl_version": ..., "runs": [...], "comparisons": [...],
// "regressions": [...], "exit_code": N}, indented as json_text.  The members
// are render_history_json's.
class HistoryJsonWriter {
public:
	explicit HistoryJsonWriter(std::string &out) : out_(out) {}
	// Appends one run's element to out (drain it as it grows).
	void run(const StoredRun &r);
	void finish(const std::vector<Regression> &regressions, const std::vector<RunComparison> &comparisons);

private:
	static std::string head();
	std::string &out_;
	bool any_ = false;
};

} // namespace rdnafix::validate
