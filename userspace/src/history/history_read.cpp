// Reading runs back from the history store: one run by id, every run one at
// a time (the listing streams), the newest run, the newest run on a stack
// (status: one indexed lookup).  Every stored value is read as hostile text:
// JSON through parse_stored_json, the case count capped.
#include <stdexcept>

#include <fmt/format.h>

#include "core/text_safe.hpp"
#include "history/history.hpp"

namespace rdnafix::validate {

namespace {

// A JSON column as read back: the database may have been written by another
// program or user, so text that is not JSON (or too large or deep for
// parse_stored_json), or JSON of another kind than the column holds
// (`fallback`'s: an object or an array), reads as `fallback`, never as a
// value `history --json` would print in place of the column's object.
nlohmann::json stored_column(std::string_view text, nlohmann::json fallback)
{
	nlohmann::json j = parse_stored_json(text);
	return j.type() == fallback.type() ? j : fallback;
}

constexpr const char *kRunColumns = "SELECT id, started_at, kernel_release, device, api, runtime_version, "
				    "driver_version, amdgpu_params, rdnafix_params, rdnactl_version, selection, "
				    "devices, stack, not_run FROM runs";

std::string text(SQLite::Statement &st, int col)
{
	return st.getColumn(col).getString();
}

StoredRun run_from_row(SQLite::Statement &rs)
{
	StoredRun r;
	r.id = rs.getColumn(0).getInt64();
	r.info.started_at = text(rs, 1);
	r.info.kernel_release = text(rs, 2);
	r.info.device = text(rs, 3);
	r.info.api = text(rs, 4);
	r.info.runtime_version = text(rs, 5);
	r.info.driver_version = text(rs, 6);
	r.info.amdgpu_params = stored_column(text(rs, 7), nlohmann::json::object());
	r.info.rdnafix_params = stored_column(text(rs, 8), nlohmann::json::object());
	r.info.rdnactl_version = text(rs, 9);
	r.info.selection = text(rs, 10);
	r.info.devices = stored_column(text(rs, 11), nlohmann::json::array());
	r.info.not_run = core::utf8_valid(text(rs, 13));
	// Damaged JSON gives an empty stack, never an error; stack_key is
	// recomputed by Stack, not trusted.
	const std::string stack = text(rs, 12);
	r.stack_legacy = stack.empty();
	r.info.stack = r.stack_legacy ? legacy_stack(r.info) : Stack::from_text(stack);
	return r;
}

// The prepared statements of a read: one run by id, its cases.
struct RunReader {
	SQLite::Statement run, cases;
	explicit RunReader(SQLite::Database &db)
	    : run(db, std::string(kRunColumns) + " WHERE id = ?1"),
	      cases(db, fmt::format("SELECT case_name, status, reason, gflops, gbs, max_abs, max_rel, rms_range, "
				    "seconds FROM results WHERE run_id = ?1 ORDER BY rowid LIMIT {}",
				    kMaxCasesPerRun + 1))
	{
	}

	std::optional<StoredRun> read(std::int64_t id)
	{
		run.reset();
		run.bind(1, id);
		if (!run.executeStep())
			return std::nullopt;
		StoredRun r = run_from_row(run);
		cases.reset();
		cases.bind(1, id);
		while (cases.executeStep()) {
			if (r.cases.size() == std::size_t(kMaxCasesPerRun))
				throw std::runtime_error(
					fmt::format("run {} has more than {} case results: the database is damaged", id,
						    kMaxCasesPerRun));
			StoredCase c;
			c.name = text(cases, 0);
			c.status = parse_status(text(cases, 1)).value_or(Status::error);
			c.reason = text(cases, 2);
			c.gflops = io::sqlite::optional_real(cases.getColumn(3));
			c.gbs = io::sqlite::optional_real(cases.getColumn(4));
			c.max_abs = io::sqlite::optional_real(cases.getColumn(5));
			c.max_rel = io::sqlite::optional_real(cases.getColumn(6));
			c.rms_range = io::sqlite::optional_real(cases.getColumn(7));
			c.seconds = io::sqlite::optional_real(cases.getColumn(8));
			r.cases.push_back(std::move(c));
		}
		return r;
	}
};

} // namespace

std::optional<StoredRun> History::read_run(std::int64_t id)
{
	RunReader reader(db_);
	return reader.read(id);
}

void History::for_each_run(const std::function<void(StoredRun &&)> &f)
{
	RunReader reader(db_);
	// Only the ids are sorted; each run is then one lookup by primary key.
	SQLite::Statement ids(db_, "SELECT id FROM runs ORDER BY started_at, id");
	while (ids.executeStep())
		if (auto r = reader.read(ids.getColumn(0).getInt64()))
			f(std::move(*r));
}

std::vector<StoredRun> History::runs()
{
	std::vector<StoredRun> out;
	for_each_run([&out](StoredRun &&r) { out.push_back(std::move(r)); });
	return out;
}

std::optional<StoredRun> History::last_run()
{
	SQLite::Statement st(db_, "SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT 1");
	if (!st.executeStep())
		return std::nullopt;
	return read_run(st.getColumn(0).getInt64());
}

std::optional<StoredRun> History::last_run_on_stack(const std::string &key)
{
	// Candidates newest first through runs_by_stack (stack_key, then the
	// rowid): the runs recorded with this key, then those recorded before
	// schema 5 (stack_key ''), whose key legacy_stack gives.  A candidate
	// whose recomputed key differs (a forged or damaged row) is passed over;
	// at most kCandidates of each are looked at.
	constexpr int kCandidates = 64;
	RunReader reader(db_);
	SQLite::Statement ids(
		db_, fmt::format("SELECT id FROM runs WHERE stack_key = ?1 ORDER BY id DESC LIMIT {}", kCandidates));
	std::optional<StoredRun> best;
	for (const std::string &k : {key, std::string()}) {
		if (k.empty() && best)
			break; // a legacy run is older than any run recorded with a key
		ids.reset();
		ids.bind(1, k);
		while (ids.executeStep()) {
			auto r = reader.read(ids.getColumn(0).getInt64());
			if (r && r->info.stack.key() == key) {
				best = std::move(r);
				break;
			}
		}
	}
	return best;
}

} // namespace rdnafix::validate
