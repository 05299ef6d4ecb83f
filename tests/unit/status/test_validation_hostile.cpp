// "Last validation on this stack" against the history database that the
// unprivileged validate user owns (/var/lib/rdnafix/validate/history.db,
// StateDirectory=) and root's status reads every 5 minutes: the real binary
// under --root with a FIFO, symbolic links (to a FIFO, to a device node), a
// directory, a view with a recursive CTE in place of `runs`, JSON nested 2 M
// deep, and 100,000 runs.  Each must end quickly in bounded memory with the
// database named as unreadable (or read), never hang or spin.
#include "support.hpp"
#include "validation_fixture.hpp"

#include "../measured_run.hpp"

#include "status/validation.hpp"

#include "io/sqlite.hpp"
#include "machine/collect.hpp"
#include "history/history.hpp"
#include "software/stack.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

using namespace rdnafix::status;
using Catch::Matchers::ContainsSubstring;
using rdnafix::test::run_measured;
using rdnafix::test::TempDir;
namespace fs = std::filesystem;
namespace validate = rdnafix::validate;
namespace sq = rdnafix::io::sqlite;

namespace {

const fs::path &kFixture = rdnafix::test::kValidationFixture;
constexpr const char *kServiceDb = "var/lib/rdnafix/validate/history.db";
constexpr const char *kShown = "/var/lib/rdnafix/validate/history.db: unreadable";

using rdnafix::test::validation_fixture_snapshot;

std::vector<std::string> status_args(const fs::path &root)
{
	return {"status", "--root", root.string(),   "--env",    (kFixture / "env").string(),
		"--user", "grace",  "--no-coverage", "--verbose"}; // reasons are details
}

// The fixture's root with the service's state directory and without root's
// own history database (so the service's is the only one that can answer).
fs::path copy_root(const TempDir &t)
{
	const fs::path root = rdnafix::test::copy_validation_root(t);
	fs::create_directories(root / "var/lib/rdnafix/validate");
	return root;
}

rdnafix::test::MeasuredRun run_status(const fs::path &root, double timeout_s = 20)
{
	return run_measured(RDNACTL_PATH, status_args(root), timeout_s);
}

// One run on `here` recorded by the real validate::History: a pass of three
// cases with the parameters a real machine records.
void record_one(const fs::path &db, const validate::Stack &here, const std::string &when)
{
	validate::History h(db.string());
	validate::RunInfo i;
	i.started_at = when;
	i.kernel_release = here.get("kernel") ? *here.get("kernel") : "";
	i.device = "AMD Radeon RX 5700 XT (gfx1010)";
	i.api = "HIP";
	i.rdnactl_version = "0.1.0";
	i.selection = "quick";
	for (int p = 0; p < 24; ++p)
		i.amdgpu_params[fmt::format("param_{}", p)] = std::to_string(p);
	i.stack = here;
	std::vector<validate::CaseResult> cases(3);
	const char *names[] = {"conv.resnet50-conv1.fp32", "stream.triad", "capacity.vram"};
	for (int c = 0; c < 3; ++c) {
		cases[c].name = names[c];
		cases[c].status = validate::Status::pass;
		cases[c].gflops = 1000.0 + c;
		cases[c].seconds = 0.5;
	}
	h.record(i, cases);
}

// `n` runs on `here`: one recorded by History, the rest copied from it in one
// transaction, one minute apart; run n is the newest.
void write_many_runs(const fs::path &db, const validate::Stack &here, int n)
{
	record_one(db, here, "2026-01-01T00:00:00Z");
	auto c = sq::open(db.string());
	SQLite::Transaction tx(c);
	c.exec(fmt::format(
		"WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < {}) "
		"INSERT INTO runs (id, started_at, kernel_release, device, api, runtime_version, driver_version, "
		"amdgpu_params, rdnafix_params, rdnactl_version, selection, devices, stack, stack_key, not_run) "
		"SELECT i, strftime('%Y-%m-%dT%H:%M:%SZ', '2026-01-01', '+' || i || ' minutes'), kernel_release, "
		"device, api, runtime_version, driver_version, amdgpu_params, rdnafix_params, rdnactl_version, "
		"selection, devices, stack, stack_key, not_run FROM runs, n WHERE runs.id = 1;"
		"INSERT INTO results (run_id, case_name, status, reason, gflops, gbs, max_abs, max_rel, rms_range, "
		"seconds, kernel_log) SELECT r.id, c.case_name, c.status, c.reason, c.gflops, c.gbs, c.max_abs, "
		"c.max_rel, c.rms_range, c.seconds, c.kernel_log FROM runs r JOIN results c ON c.run_id = 1 "
		"WHERE r.id > 1;",
		n));
	tx.commit();
}

bool has(const std::string &text, const std::string &what)
{
	return text.find(what) != std::string::npos;
}

} // namespace

TEST_CASE("validation: a FIFO, a directory or a symbolic link at the service's history path is named, never "
	  "opened",
	  "[validation][hostile]")
{
	struct Case {
		const char *label;
		const char *expect; // in the unreadable line
		void (*make)(const fs::path &root);
	};
	const Case cases[] = {
		{"a FIFO", "is a FIFO",
		 [](const fs::path &r) { REQUIRE(::mkfifo((r / kServiceDb).c_str(), 0644) == 0); }},
		{"a symbolic link to a FIFO", "is a symbolic link",
		 [](const fs::path &r) {
			 REQUIRE(::mkfifo((r / "var/lib/rdnafix/fifo").c_str(), 0644) == 0);
			 fs::create_symlink("/var/lib/rdnafix/fifo", r / kServiceDb);
		 }},
		{"a symbolic link to a database", "is a symbolic link",
		 [](const fs::path &r) {
			 record_one(r / "var/lib/rdnafix/elsewhere.db", validate::Stack{}, "2026-01-01T00:00:00Z");
			 fs::create_symlink("../elsewhere.db", r / kServiceDb);
		 }},
		{"a directory", "is a directory", [](const fs::path &r) { fs::create_directories(r / kServiceDb); }},
	};
	for (const auto &c : cases) {
		INFO(c.label);
		TempDir t;
		const fs::path root = copy_root(t);
		c.make(root);
		const auto r = run_status(root);
		INFO(r.out);
		REQUIRE_FALSE(r.timed_out); // today: a FIFO blocks open(2) forever
		CHECK(r.exit_code != -1);
		CHECK(has(r.out, kShown));
		CHECK(has(r.out, c.expect));
		CHECK(r.seconds < 10);
	}
}

TEST_CASE("validation: a symbolic link to a device node is refused without opening the node", "[validation][hostile]")
{
	if (::geteuid() != 0)
		SKIP("mknod needs root");
	TempDir t;
	const fs::path root = copy_root(t);
	// A FIFO would show an open by blocking; a character device (1,3: null)
	// shows it by reading as an empty database.  Neither may be opened.
	REQUIRE(::mknod((root / "var/lib/rdnafix/null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
	fs::create_symlink("/var/lib/rdnafix/null", root / kServiceDb);
	auto r = run_status(root);
	INFO(r.out);
	REQUIRE_FALSE(r.timed_out);
	CHECK(has(r.out, kShown));
	CHECK(has(r.out, "is a symbolic link"));
	// The node itself at the path: named as what it is.
	fs::remove(root / kServiceDb);
	REQUIRE(::mknod((root / kServiceDb).c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
	r = run_status(root);
	INFO(r.out);
	CHECK(has(r.out, "is a character device"));
}

TEST_CASE("validation: a view with a recursive CTE in place of `runs` or `results` is refused, not run",
	  "[validation][hostile]")
{
	const std::string endless = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) ";
	const std::string runs_view =
		"CREATE VIEW runs AS " + endless +
		"SELECT i AS id, '2026-01-01T00:00:00Z' AS started_at, '' AS kernel_release, '' AS device, '' AS api, "
		"'' AS runtime_version, '' AS driver_version, '{}' AS amdgpu_params, '{}' AS rdnafix_params, "
		"'' AS rdnactl_version, '' AS selection, '[]' AS devices, '{}' AS stack, 'x' AS stack_key, "
		"'' AS not_run FROM c;"
		"CREATE TABLE results (run_id INTEGER, case_name TEXT, status TEXT, reason TEXT, gflops REAL, "
		"gbs REAL, max_abs REAL, max_rel REAL, rms_range REAL, seconds REAL, kernel_log TEXT);";
	const std::string results_view =
		"CREATE TABLE runs (id INTEGER PRIMARY KEY, started_at TEXT, kernel_release TEXT, device TEXT, api "
		"TEXT, runtime_version TEXT, driver_version TEXT, amdgpu_params TEXT, rdnafix_params TEXT, "
		"rdnactl_version TEXT, selection TEXT, devices TEXT, stack TEXT, stack_key TEXT, not_run TEXT);"
		"CREATE INDEX runs_by_stack ON runs(stack_key);"
		"CREATE VIEW results AS " +
		endless +
		"SELECT 1 AS run_id, 'c' || i AS case_name, 'pass' AS status, '' AS reason, NULL AS gflops, NULL "
		"AS gbs, NULL AS max_abs, NULL AS max_rel, NULL AS rms_range, NULL AS seconds, '[]' AS kernel_log "
		"FROM c;";
	for (const auto &[which, sql] : {std::pair{"runs", runs_view}, std::pair{"results", results_view}}) {
		INFO(which);
		TempDir t;
		const fs::path root = copy_root(t);
		{
			auto c = sq::open((root / kServiceDb).string());
			c.exec(sql);
			sq::set_user_version(c, validate::kHistorySchemaVersion);
		}
		if (std::string(which) == "results") { // one run on this stack, so status asks for its results
			const auto here = validate::collect_stack(validation_fixture_snapshot(root));
			auto c = sq::open((root / kServiceDb).string());
			SQLite::Statement ins(c,
					      "INSERT INTO runs VALUES (1, '2026-01-01T00:00:00Z', '', '', '', '', '', "
					      "'{}', '{}', '', '', '[]', ?1, ?2, '')");
			ins.bind(1, here.to_json().dump());
			ins.bind(2, here.key());
			ins.exec();
		}
		const auto r = run_status(root);
		INFO(r.out);
		REQUIRE_FALSE(r.timed_out); // today: the view never ends
		CHECK(has(r.out, kShown));
		CHECK(has(r.out, fmt::format("`{}` is a view", which)));
		CHECK(r.seconds < 10);
	}
}

TEST_CASE("validation: JSON nested 2 M deep costs neither memory nor time", "[validation][hostile]")
{
	TempDir t;
	const fs::path root = copy_root(t);
	const fs::path db = root / kServiceDb;
	const auto here = validate::collect_stack(validation_fixture_snapshot(root));
	record_one(db, here, "2026-01-01T00:00:00Z");
	record_one(db, here, "2026-01-02T00:00:00Z");
	{
		// Run 1: 500,000 '[' in each JSON column (under the 1 MiB value limit).
		auto c = sq::open(db.string());
		c.exec("UPDATE runs SET amdgpu_params = printf('%.*c', 500000, '['), devices = amdgpu_params, "
		       "rdnafix_params = amdgpu_params WHERE id = 1");
	}
	// The newest run on this stack is run 2, whatever run 1 holds.
	auto r = run_status(root);
	INFO(r.out);
	REQUIRE_FALSE(r.timed_out);
	CHECK(has(r.out, "last validation on this stack: pass"));
	CHECK(has(r.out, "run 2, /var/lib/rdnafix/validate/history.db"));
	{
		// Run 2 now: 500,000 '[' in its JSON (read, discarded unparsed) ...
		auto c = sq::open(db.string());
		c.exec("UPDATE runs SET amdgpu_params = printf('%.*c', 500000, '['), devices = amdgpu_params, "
		       "rdnafix_params = amdgpu_params WHERE id = 2");
	}
	r = run_status(root);
	INFO(r.out);
	REQUIRE_FALSE(r.timed_out);
	CHECK(has(r.out, "run 2, /var/lib/rdnafix/validate/history.db"));
	CHECK(r.peak_rss_mib < 32);
	{
		// ... and 2,000,000 (over the limit: the database is unreadable, named so).
		auto c = sq::open(db.string());
		c.exec("UPDATE runs SET amdgpu_params = printf('%.*c', 2000000, '[') WHERE id = 2");
	}
	r = run_status(root);
	INFO(r.out);
	REQUIRE_FALSE(r.timed_out); // today: 2.7 GB and seconds of parsing
	CHECK(has(r.out, kShown));
	CHECK(has(r.out, "holds a value longer than 1048576 bytes"));
	CHECK(r.peak_rss_mib < 32);
	std::cout << fmt::format("status, 2 M nested '[' in a run: {:.3f} s, peak RSS {:.1f} MiB\n", r.seconds,
				 r.peak_rss_mib);
}

TEST_CASE("validation: with 100,000 runs status reads one row: under 50 ms and 32 MiB", "[validation][scale]")
{
	TempDir t;
	const fs::path root = copy_root(t);
	const auto snap = validation_fixture_snapshot(root);
	const auto here = validate::collect_stack(snap);
	const auto t0 = std::chrono::steady_clock::now();
	write_many_runs(root / kServiceDb, here, 100000);
	std::cout << fmt::format("100,000 runs written in {:.2f} s ({} MiB)\n",
				 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
				 fs::file_size(root / kServiceDb) >> 20);

	// In process: the read itself, best of three.
	const auto dbs = validation_databases(root.string());
	double best = 1e9;
	for (int i = 0; i < 3; ++i) {
		const auto a = std::chrono::steady_clock::now();
		const auto v = read_last_validation(snap, dbs);
		best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
		REQUIRE(v.result == ValidationResult::pass);
		CHECK(v.run == 100000);
		CHECK(v.cases.size() == 3);
	}
	CHECK(best < 0.050);

	// The real binary: peak RSS, and its time against the same root without the database.
	const auto r = run_status(root);
	INFO(r.out);
	REQUIRE_FALSE(r.timed_out);
	CHECK(has(r.out, "run 100000, /var/lib/rdnafix/validate/history.db"));
	CHECK(r.peak_rss_mib < 32);
	fs::remove(root / kServiceDb);
	const auto plain = run_status(root);
	std::cout << fmt::format("status with 100,000 runs: read_last_validation {:.1f} ms; the binary {:.3f} s, "
				 "peak RSS {:.1f} MiB (without the database: {:.3f} s, {:.1f} MiB)\n",
				 best * 1000, r.seconds, r.peak_rss_mib, plain.seconds, plain.peak_rss_mib);
	CHECK(r.seconds - plain.seconds < 0.5); // generous: a shared machine; the in-process figure is the pin
}
