// The history store: the SQLite schema and its migrations, recording a run,
// reading every run back.  Through io/sqlite.hpp (SQLiteCpp).
#include <map>
#include <stdexcept>

#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/text_safe.hpp"
#include "history/history.hpp"

namespace rdnafix::validate {

namespace {

SQLite::Database open_history(const std::string &path)
{
	// SQLite would open a FIFO (and wait) or a device node (and write
	// <name>-journal beside it): refused before it sees the path.
	if (const std::string kind = io::sqlite::not_regular_file(path); !kind.empty())
		throw std::runtime_error(fmt::format("history database {} is {}, not a database file (valid: a regular "
						     "file, or a path where rdnactl validate creates one); nothing "
						     "was written",
						     path, kind));
	try {
		return io::sqlite::open(path);
	} catch (const SQLite::Exception &e) {
		throw std::runtime_error(fmt::format("cannot open history database {}: {}", path, e.what()));
	}
}

std::runtime_error version_error(const std::string &path, int version)
{
	const int known = kHistorySchemaVersion;
	if (version < 0)
		return std::runtime_error(fmt::format("history database {} has schema version {}, valid are 0..{}: the "
						      "file is damaged or is not an rdnactl history database; move it "
						      "aside or use another --history-db",
						      path, version, known));
	return std::runtime_error(fmt::format("history database {} has schema version {}, this rdnactl knows 0..{}: "
					      "use a newer rdnactl or another --history-db",
					      path, version, known));
}

// A file with tables of its own and no schema version is somebody else's
// database: rdnactl's tables are not added to it.
void refuse_foreign(SQLite::Database &db, const std::string &path)
{
	// Both reads in one snapshot: rdnactl's migration creates its tables and
	// sets the version in one transaction, but a writer that commits between
	// two separate reads would look like "version 0 with tables".
	SQLite::Transaction snapshot(db, SQLite::TransactionBehavior::DEFERRED);
	if (io::sqlite::user_version(db) != 0)
		return;
	const auto tables = io::sqlite::schema_tables(db);
	if (tables.empty())
		return;
	throw std::runtime_error(fmt::format("{} is an SQLite database but not an rdnactl history (schema version 0, "
					     "tables of its own: {}); nothing was added to it: use another "
					     "--history-db",
					     path, fmt::join(tables, ", ")));
}

// Version 1 and later have `runs` and `results` as tables: a view (which
// could run any query) or a virtual table in their place is not a history.
void require_tables(SQLite::Database &db, const std::string &path)
{
	for (const char *name : {"runs", "results"}) {
		const std::string type = io::sqlite::object_type(db, name);
		if (type != "table")
			throw std::runtime_error(fmt::format(
				"cannot read history database {}: not an rdnactl history: `{}` is {} (valid: a table)",
				path, name, type.empty() ? "missing" : "a " + type));
	}
}

// Machine-supplied values (sysfs parameters) as stored JSON text: bytes that
// are not UTF-8 become U+FFFD instead of failing the recording.
std::string stored_json(const nlohmann::json &j)
{
	return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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
		// 4 -> 5: the whole software stack (stack.hpp; '' = not recorded, read as
		// legacy_stack) with its key, and why the GPU cases did not run
		"ALTER TABLE runs ADD COLUMN stack TEXT NOT NULL DEFAULT '';"
		"ALTER TABLE runs ADD COLUMN stack_key TEXT NOT NULL DEFAULT '';"
		"ALTER TABLE runs ADD COLUMN not_run TEXT NOT NULL DEFAULT '';"
		"CREATE INDEX runs_by_stack ON runs(stack_key);",
	};
	return m;
}

int migrate_history(SQLite::Database &db)
{
	static_assert(kHistorySchemaVersion > 0);
	if (history_migrations().size() != std::size_t(kHistorySchemaVersion))
		throw std::logic_error("history: kHistorySchemaVersion and the migration list disagree");
	try {
		return io::sqlite::migrate(db, history_migrations());
	} catch (const io::sqlite::SchemaVersionError &e) {
		throw version_error(db.getFilename(), e.version());
	}
}

History::History(SQLite::Database db, int file_version, bool read_only)
    : db_(std::move(db)), file_version_(file_version), read_only_(read_only)
{
}

History::History(const std::string &path) : db_(open_history(path))
{
	try {
		refuse_foreign(db_, path);
		file_version_ = migrate_history(db_);
	} catch (const SQLite::Exception &e) {
		throw std::runtime_error(fmt::format("cannot migrate history database {}: {}", path, e.what()));
	}
}

History History::open_read_only(const std::string &path, const io::sqlite::ReadLimits &limits)
{
	try {
		auto db = io::sqlite::open_untrusted(path, limits);
		const int v = io::sqlite::user_version(db);
		if (v < 0 || v > kHistorySchemaVersion)
			throw version_error(path, v);
		refuse_foreign(db, path);
		if (v > 0)
			require_tables(db, path);
		if (v == kHistorySchemaVersion)
			return History(std::move(db), v, true);
		const std::int64_t bytes =
			db.execAndGet("PRAGMA page_count").getInt64() * db.execAndGet("PRAGMA page_size").getInt64();
		if (bytes > kMaxMigratedCopyBytes)
			throw std::runtime_error(fmt::format(
				"history database {} has the older schema version {} and {} MiB: larger than the {} "
				"MiB "
				"rdnactl reads through a migrated copy (rdnactl validate upgrades the file in place)",
				path, v, bytes >> 20, kMaxMigratedCopyBytes >> 20));
		auto mem = io::sqlite::copy_to_memory(db);
		io::sqlite::harden(mem, limits);
		migrate_history(mem);
		return History(std::move(mem), v, true);
	} catch (const io::sqlite::NotADatabaseFile &e) {
		throw io::sqlite::NotADatabaseFile(std::string("cannot read history database: ") + e.what(), e.detail(),
						   e.missing());
	} catch (const SQLite::Exception &e) {
		throw std::runtime_error(
			fmt::format("cannot read history database {}: {}", path, io::sqlite::describe(e, limits)));
	}
}

std::int64_t History::record(const RunInfo &run, const std::vector<CaseResult> &cases)
{
	if (read_only_)
		throw std::runtime_error("history database opened read-only");
	// One row per case name (the primary key): a repeated case keeps its first failure.
	std::vector<const CaseResult *> keep;
	std::map<std::string, std::size_t> pos;
	for (const auto &c : cases) {
		auto [it, fresh] = pos.try_emplace(c.name, keep.size());
		if (fresh)
			keep.push_back(&c);
		else if (is_failure(c.status) && !is_failure(keep[it->second]->status))
			keep[it->second] = &c;
	}
	SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
	SQLite::Statement ins(db_,
			      "INSERT INTO runs (started_at, kernel_release, device, api, runtime_version, "
			      "driver_version, amdgpu_params, rdnafix_params, rdnactl_version, selection, devices, "
			      "stack, stack_key, not_run) "
			      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)");
	ins.bind(1, run.started_at);
	ins.bind(2, run.kernel_release);
	ins.bind(3, run.device);
	ins.bind(4, run.api);
	ins.bind(5, run.runtime_version);
	ins.bind(6, run.driver_version);
	ins.bind(7, stored_json(run.amdgpu_params));
	ins.bind(8, stored_json(run.rdnafix_params));
	ins.bind(9, run.rdnactl_version);
	ins.bind(10, run.selection);
	ins.bind(11, stored_json(run.devices));
	ins.bind(12, stored_json(run.stack.to_json()));
	ins.bind(13, run.stack.key());
	ins.bind(14, run.not_run);
	ins.exec();
	const std::int64_t id = db_.getLastInsertRowid();
	SQLite::Statement rc(db_, "INSERT INTO results (run_id, case_name, status, reason, gflops, gbs, max_abs, "
				  "max_rel, rms_range, seconds, kernel_log) "
				  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
	for (const auto *cp : keep) {
		const CaseResult &c = *cp;
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
		rc.bind(11, j.contains("kernel_log") ? stored_json(j["kernel_log"]) : std::string("[]"));
		rc.exec();
		rc.reset();
		rc.clearBindings();
	}
	tx.commit();
	return id;
}

} // namespace rdnafix::validate
