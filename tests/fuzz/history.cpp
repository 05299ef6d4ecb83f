// Fuzz target: reading validation history rows (history/history_store.cpp
// History::runs: the JSON columns, the stack, case statuses and figures) and
// everything `history` and `status` do with them (compare_runs,
// find_regressions, render_history, render_history_json, verdict,
// last_run_on_stack).  The database belongs to the validate user, so every
// column is hostile (issue N2).  A real SQLite database in memory, schema
// from the real migrations; the input gives its rows as lines:
//   R<TAB>started_at<TAB>kernel_release<TAB>device<TAB>api<TAB>runtime_version<TAB>driver_version<TAB>
//     amdgpu_params<TAB>rdnafix_params<TAB>rdnactl_version<TAB>selection<TAB>devices<TAB>stack<TAB>not_run
//   C<TAB>case_name<TAB>status<TAB>reason<TAB>gflops<TAB>gbs<TAB>max_abs<TAB>max_rel<TAB>rms_range<TAB>seconds
// (a C row belongs to the R row above it; missing fields are ''; a figure
// that is a whole number is bound as a REAL, anything else as TEXT, as a
// hand-edited database may hold).  Seeds: tests/fuzz/corpus/SOURCE.md.
#include "fuzz.hpp"
#include "history/history.hpp"
#include "render.hpp"

#include <SQLiteCpp/Statement.h>

#include <charconv>
#include <string>
#include <vector>

using namespace rdnafix;

namespace {

std::vector<std::string_view> split(std::string_view s, char sep)
{
	std::vector<std::string_view> out;
	for (;;) {
		const auto at = s.find(sep);
		out.push_back(s.substr(0, at));
		if (at == std::string_view::npos)
			return out;
		s.remove_prefix(at + 1);
	}
}

void bind_figure(SQLite::Statement &st, int index, std::string_view v)
{
	double d = 0;
	const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
	if (v.empty())
		st.bind(index); // NULL: no figure
	else if (ec == std::errc() && end == v.data() + v.size())
		st.bind(index, d);
	else
		st.bind(index, std::string(v));
}

void load(SQLite::Database &db, std::string_view in)
{
	db.exec("DELETE FROM results; DELETE FROM runs;");
	SQLite::Statement run(db, "INSERT INTO runs (started_at, kernel_release, device, api, runtime_version, "
				  "driver_version, amdgpu_params, rdnafix_params, rdnactl_version, selection, devices, "
				  "stack, not_run) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
	SQLite::Statement res(db, "INSERT INTO results (run_id, case_name, status, reason, gflops, gbs, max_abs, "
				  "max_rel, rms_range, seconds) VALUES (?,?,?,?,?,?,?,?,?,?)");
	std::int64_t run_id = -1;
	for (std::string_view line : split(in, '\n')) {
		auto f = split(line, '\t');
		const std::string_view kind = f[0];
		f.erase(f.begin());
		if (kind == "R") {
			f.resize(13);
			for (int i = 0; i < 13; ++i)
				run.bind(i + 1, std::string(f[i]));
			run.exec();
			run.reset();
			run_id = db.getLastInsertRowid();
		} else if (kind == "C" && run_id >= 0) {
			f.resize(9);
			res.bind(1, run_id);
			for (int i = 0; i < 3; ++i)
				res.bind(i + 2, std::string(f[i]));
			for (int i = 3; i < 9; ++i)
				bind_figure(res, i + 2, f[i]);
			try {
				res.exec();
			} catch (const SQLite::Exception &) {
				// a case name twice in one run: the primary key refuses it, as in a real database
			}
			try {
				res.reset();
			} catch (const SQLite::Exception &) {
				// reset() repeats the refusal
			}
		}
	}
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	static validate::History h(":memory:");
	load(h.db(), fuzz::text(data, size));
	const auto runs = h.runs();
	const auto comparisons = validate::compare_runs(runs);
	const auto regressions = validate::find_regressions(runs);
	(void)validate::render_history(runs, regressions, comparisons);
	// `history --json` prints this: it must serialise whatever the rows hold.
	const std::string json = validate::json_text(validate::render_history_json(runs, regressions, comparisons));
	fuzz::check(nlohmann::json::accept(json), "history --json gives valid JSON");
	for (const auto &r : runs) {
		(void)validate::verdict(r);
		(void)validate::last_run_on_stack(runs, r.info.stack.key());
	}
	return 0;
}
