// The history store: the SQLite schema and its migrations, recording a run,
// reading every run back.  Through io/sqlite.hpp (SQLiteCpp).
#include <map>
#include <stdexcept>

#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>

#include "history.hpp"

namespace rdnafix::validate {

namespace {

SQLite::Database open_history(const std::string &path)
{
	try {
		return io::sqlite::open(path);
	} catch (const SQLite::Exception &e) {
		throw std::runtime_error(fmt::format("cannot open history database {}: {}", path, e.what()));
	}
}

} // namespace

const std::vector<std::string> &history_migrations()
{
	static const std::vector<std::string> m = {
		// 0 -> 1: runs and their case results
		"CREATE TABLE runs ("
		"  id INTEGER PRIMARY KEY,"
		"  started_at TEXT NOT NULL,"
		"  kernel_release TEXT NOT NULL,"
		"  device TEXT NOT NULL DEFAULT '');"
		"CREATE TABLE results ("
		"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
		"  case_name TEXT NOT NULL,"
		"  status TEXT NOT NULL,"
		"  gflops REAL,"
		"  gbs REAL,"
		"  PRIMARY KEY (run_id, case_name));",
		// 1 -> 2: driver parameters, runtime, error figures
		"ALTER TABLE runs ADD COLUMN api TEXT NOT NULL DEFAULT '';"
		"ALTER TABLE runs ADD COLUMN runtime_version TEXT NOT NULL DEFAULT '';"
		"ALTER TABLE runs ADD COLUMN driver_version TEXT NOT NULL DEFAULT '';"
		"ALTER TABLE runs ADD COLUMN amdgpu_params TEXT NOT NULL DEFAULT '{}';"
		"ALTER TABLE runs ADD COLUMN rdnafix_params TEXT NOT NULL DEFAULT '{}';"
		"ALTER TABLE results ADD COLUMN reason TEXT NOT NULL DEFAULT '';"
		"ALTER TABLE results ADD COLUMN max_abs REAL;"
		"ALTER TABLE results ADD COLUMN max_rel REAL;"
		"ALTER TABLE results ADD COLUMN rms_range REAL;"
		"ALTER TABLE results ADD COLUMN seconds REAL;",
		// 2 -> 3: what was run, by which rdnactl, and the attached kernel log
		"ALTER TABLE runs ADD COLUMN rdnactl_version TEXT NOT NULL DEFAULT '';"
		"ALTER TABLE runs ADD COLUMN selection TEXT NOT NULL DEFAULT '';"
		"ALTER TABLE results ADD COLUMN kernel_log TEXT NOT NULL DEFAULT '[]';"
		"CREATE INDEX results_by_case ON results(case_name);",
		// 3 -> 4: what the machine Snapshot says of each AMD GPU (gfx target, effective noretry)
		"ALTER TABLE runs ADD COLUMN devices TEXT NOT NULL DEFAULT '[]';",
	};
	return m;
}

int migrate_history(SQLite::Database &db)
{
	const int from = io::sqlite::user_version(db);
	const auto &m = history_migrations();
	if (from > int(m.size()))
		throw std::runtime_error(fmt::format("history database has schema version {}, this rdnactl knows up "
						     "to {}: use a newer rdnactl or another --history-db",
						     from, m.size()));
	return io::sqlite::migrate(db, m);
}

History::History(const std::string &path) : db_(open_history(path))
{
	migrate_history(db_);
}

std::int64_t History::record(const RunInfo &run, const std::vector<CaseResult> &cases)
{
	SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
	SQLite::Statement ins(db_,
			      "INSERT INTO runs (started_at, kernel_release, device, api, runtime_version, "
			      "driver_version, amdgpu_params, rdnafix_params, rdnactl_version, selection, devices) "
			      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
	ins.bind(1, run.started_at);
	ins.bind(2, run.kernel_release);
	ins.bind(3, run.device);
	ins.bind(4, run.api);
	ins.bind(5, run.runtime_version);
	ins.bind(6, run.driver_version);
	ins.bind(7, run.amdgpu_params.dump());
	ins.bind(8, run.rdnafix_params.dump());
	ins.bind(9, run.rdnactl_version);
	ins.bind(10, run.selection);
	ins.bind(11, run.devices.dump());
	ins.exec();
	const std::int64_t id = db_.getLastInsertRowid();
	SQLite::Statement rc(db_, "INSERT INTO results (run_id, case_name, status, reason, gflops, gbs, max_abs, "
				  "max_rel, rms_range, seconds, kernel_log) "
				  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
	for (const auto &c : cases) {
		const nlohmann::json j = c;
		rc.bind(1, id);
		rc.bind(2, c.name);
		rc.bind(3, std::string(status_name(c.status)));
		rc.bind(4, c.reason);
		io::sqlite::bind(rc, 5, c.gflops);
		io::sqlite::bind(rc, 6, c.gbs);
		io::sqlite::bind(rc, 7, c.max_abs);
		io::sqlite::bind(rc, 8, c.max_rel);
		io::sqlite::bind(rc, 9, c.rms_range);
		io::sqlite::bind(rc, 10, c.seconds);
		rc.bind(11, j.contains("kernel_log") ? j["kernel_log"].dump() : std::string("[]"));
		rc.exec();
		rc.reset();
		rc.clearBindings();
	}
	tx.commit();
	return id;
}

std::vector<StoredRun> History::runs()
{
	std::vector<StoredRun> out;
	std::map<std::int64_t, std::size_t> index;
	SQLite::Statement rs(db_, "SELECT id, started_at, kernel_release, device, api, runtime_version, "
				  "driver_version, amdgpu_params, rdnafix_params, rdnactl_version, selection, devices "
				  "FROM runs ORDER BY started_at, id");
	auto text = [](SQLite::Statement &st, int col) { return st.getColumn(col).getString(); };
	while (rs.executeStep()) {
		StoredRun r;
		r.id = rs.getColumn(0).getInt64();
		r.info.started_at = text(rs, 1);
		r.info.kernel_release = text(rs, 2);
		r.info.device = text(rs, 3);
		r.info.api = text(rs, 4);
		r.info.runtime_version = text(rs, 5);
		r.info.driver_version = text(rs, 6);
		r.info.amdgpu_params = nlohmann::json::parse(text(rs, 7), nullptr, false);
		r.info.rdnafix_params = nlohmann::json::parse(text(rs, 8), nullptr, false);
		r.info.rdnactl_version = text(rs, 9);
		r.info.selection = text(rs, 10);
		r.info.devices = nlohmann::json::parse(text(rs, 11), nullptr, false);
		index[r.id] = out.size();
		out.push_back(std::move(r));
	}
	SQLite::Statement cs(db_, "SELECT run_id, case_name, status, reason, gflops, gbs, max_abs, max_rel, "
				  "rms_range, seconds FROM results ORDER BY run_id, rowid");
	while (cs.executeStep()) {
		auto it = index.find(cs.getColumn(0).getInt64());
		if (it == index.end())
			continue;
		StoredCase c;
		c.name = text(cs, 1);
		c.status = parse_status(text(cs, 2)).value_or(Status::error);
		c.reason = text(cs, 3);
		c.gflops = io::sqlite::optional_real(cs.getColumn(4));
		c.gbs = io::sqlite::optional_real(cs.getColumn(5));
		c.max_abs = io::sqlite::optional_real(cs.getColumn(6));
		c.max_rel = io::sqlite::optional_real(cs.getColumn(7));
		c.rms_range = io::sqlite::optional_real(cs.getColumn(8));
		c.seconds = io::sqlite::optional_real(cs.getColumn(9));
		out[it->second].cases.push_back(std::move(c));
	}
	return out;
}

} // namespace rdnafix::validate
