#include "history.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace rdnafix::validate {

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
	};
	return m;
}

int migrate_history(sql::Db &db)
{
	const int from = db.user_version();
	const auto &m = history_migrations();
	if (from > int(m.size()))
		throw std::runtime_error(fmt::format("history database has schema version {}, this rdnactl knows up "
						     "to {}: use a newer rdnactl or another --history-db",
						     from, m.size()));
	for (int v = from; v < int(m.size()); ++v) {
		sql::Transaction tx(db);
		db.exec(m[std::size_t(v)]);
		db.set_user_version(v + 1);
		tx.commit();
	}
	return from;
}

std::string default_history_path(unsigned uid, const char *xdg_state_home, const char *home)
{
	if (uid == 0)
		return "/var/lib/rdnafix/history.db";
	if (xdg_state_home && *xdg_state_home == '/')
		return std::string(xdg_state_home) + "/rdnafix/history.db";
	if (home && *home)
		return std::string(home) + "/.local/state/rdnafix/history.db";
	return {};
}

History::History(const std::string &path) : db_(path)
{
	migrate_history(db_);
}

std::int64_t History::record(const RunInfo &run, const std::vector<CaseResult> &cases)
{
	sql::Transaction tx(db_);
	sql::Stmt ins(db_, "INSERT INTO runs (started_at, kernel_release, device, api, runtime_version, "
			   "driver_version, amdgpu_params, rdnafix_params, rdnactl_version, selection) "
			   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
	ins.bind(1, run.started_at)
		.bind(2, run.kernel_release)
		.bind(3, run.device)
		.bind(4, run.api)
		.bind(5, run.runtime_version)
		.bind(6, run.driver_version)
		.bind(7, run.amdgpu_params.dump())
		.bind(8, run.rdnafix_params.dump())
		.bind(9, run.rdnactl_version)
		.bind(10, run.selection);
	ins.run();
	const std::int64_t id = db_.last_insert_rowid();
	sql::Stmt rc(db_, "INSERT INTO results (run_id, case_name, status, reason, gflops, gbs, max_abs, max_rel, "
			  "rms_range, seconds, kernel_log) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
	for (const auto &c : cases) {
		const auto j = to_json(c);
		rc.bind(1, id)
			.bind(2, c.name)
			.bind(3, std::string(status_name(c.status)))
			.bind(4, c.reason)
			.bind(5, c.gflops)
			.bind(6, c.gbs)
			.bind(7, c.max_abs)
			.bind(8, c.max_rel)
			.bind(9, c.rms_range)
			.bind(10, std::optional<double>(c.seconds))
			.bind(11, j.contains("kernel_log") ? j["kernel_log"].dump() : std::string("[]"));
		rc.run();
	}
	tx.commit();
	return id;
}

std::vector<StoredRun> History::runs()
{
	std::vector<StoredRun> out;
	std::map<std::int64_t, std::size_t> index;
	sql::Stmt rs(db_,
		     "SELECT id, started_at, kernel_release, device, api, runtime_version, driver_version, "
		     "amdgpu_params, rdnafix_params, rdnactl_version, selection FROM runs ORDER BY started_at, id");
	while (rs.step()) {
		StoredRun r;
		r.id = rs.int64(0);
		r.info.started_at = rs.text(1);
		r.info.kernel_release = rs.text(2);
		r.info.device = rs.text(3);
		r.info.api = rs.text(4);
		r.info.runtime_version = rs.text(5);
		r.info.driver_version = rs.text(6);
		r.info.amdgpu_params = nlohmann::json::parse(rs.text(7), nullptr, false);
		r.info.rdnafix_params = nlohmann::json::parse(rs.text(8), nullptr, false);
		r.info.rdnactl_version = rs.text(9);
		r.info.selection = rs.text(10);
		index[r.id] = out.size();
		out.push_back(std::move(r));
	}
	sql::Stmt cs(db_, "SELECT run_id, case_name, status, reason, gflops, gbs, max_abs, max_rel, rms_range, seconds "
			  "FROM results ORDER BY run_id, rowid");
	while (cs.step()) {
		auto it = index.find(cs.int64(0));
		if (it == index.end())
			continue;
		StoredCase c;
		c.name = cs.text(1);
		c.status = parse_status(cs.text(2)).value_or(Status::error);
		c.reason = cs.text(3);
		c.gflops = cs.real(4);
		c.gbs = cs.real(5);
		c.max_abs = cs.real(6);
		c.max_rel = cs.real(7);
		c.rms_range = cs.real(8);
		c.seconds = cs.real(9);
		out[it->second].cases.push_back(std::move(c));
	}
	return out;
}

std::string Regression::describe() const
{
	if (kind == Kind::status)
		return fmt::format("{}: {} -> {} after kernel {} -> {} (runs {} -> {})", case_name, from_status,
				   to_status, from_kernel, to_kernel, from_run, to_run);
	return fmt::format("{}: throughput {:.4g} -> {:.4g} ({:.1f} % lower) after kernel {} -> {} (runs {} -> {})",
			   case_name, from_value, to_value, drop * 100.0, from_kernel, to_kernel, from_run, to_run);
}

std::vector<Regression> find_regressions(const std::vector<StoredRun> &runs, double threshold)
{
	struct Latest {
		const StoredCase *c;
		std::int64_t run;
	};
	struct KernelState {
		std::string kernel;
		std::size_t last_pos = 0; // position of its latest run in `runs`
		std::map<std::string, Latest> cases;
	};
	std::map<std::string, std::vector<KernelState>> per_device;
	for (std::size_t pos = 0; pos < runs.size(); ++pos) {
		const auto &run = runs[pos];
		auto &kernels = per_device[run.info.device];
		KernelState *ks = nullptr;
		for (auto &k : kernels)
			if (k.kernel == run.info.kernel_release)
				ks = &k;
		if (!ks) {
			kernels.push_back({run.info.kernel_release, pos, {}});
			ks = &kernels.back();
		}
		ks->last_pos = pos;
		for (const auto &c : run.cases)
			if (c.status != Status::skip)
				ks->cases[c.name] = {&c, run.id};
	}
	std::vector<Regression> out;
	for (auto &[device, kernels] : per_device) {
		std::sort(kernels.begin(), kernels.end(),
			  [](const KernelState &a, const KernelState &b) { return a.last_pos < b.last_pos; });
		for (std::size_t i = 1; i < kernels.size(); ++i) {
			const auto &prev = kernels[i - 1], &next = kernels[i];
			for (const auto &[name, now] : next.cases) {
				auto it = prev.cases.find(name);
				if (it == prev.cases.end())
					continue;
				const StoredCase &before = *it->second.c;
				const StoredCase &after = *now.c;
				if (before.status != Status::pass)
					continue;
				Regression r;
				r.device = device;
				r.case_name = name;
				r.from_kernel = prev.kernel;
				r.to_kernel = next.kernel;
				r.from_run = it->second.run;
				r.to_run = now.run;
				r.from_status = status_name(before.status);
				r.to_status = status_name(after.status);
				if (is_failure(after.status)) {
					r.kind = Regression::Kind::status;
					out.push_back(r);
					continue;
				}
				const auto a = before.throughput(), b = after.throughput();
				if (after.status == Status::pass && a && b && *a > 0 && *b < *a * (1.0 - threshold)) {
					r.kind = Regression::Kind::throughput;
					r.from_value = *a;
					r.to_value = *b;
					r.drop = 1.0 - *b / *a;
					out.push_back(r);
				}
			}
		}
	}
	return out;
}

} // namespace rdnafix::validate
