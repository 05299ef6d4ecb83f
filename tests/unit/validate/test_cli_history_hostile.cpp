// The real rdnactl binary against history databases that are not what they
// seem, and at scale: `history --history-db FIFO` ends, `validate` refuses a
// foreign SQLite file and a device node instead of adding tables to it or
// creating <name>-journal beside it, `--no-history --history-db` is a usage
// error, and `history` streams 100,000 runs (--json as well) in bounded
// memory.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../measured_run.hpp"
#include "history/history.hpp"
#include "io/sqlite.hpp"
#include "render.hpp"

using rdnafix::test::run_measured;
namespace sq = rdnafix::io::sqlite;
namespace validate = rdnafix::validate;
namespace fs = std::filesystem;

namespace {

struct TempDir {
	std::string path;
	TempDir()
	{
		char tmpl[] = "/tmp/rdnafix-history-hostile-XXXXXX";
		REQUIRE(::mkdtemp(tmpl));
		path = tmpl;
	}
	~TempDir() { fs::remove_all(path); }
};

bool has(const std::string &text, const std::string &what)
{
	return text.find(what) != std::string::npos;
}

rdnafix::test::MeasuredRun rdnactl(const std::vector<std::string> &args, double timeout_s = 60)
{
	return run_measured(RDNACTL_PATH, args, timeout_s);
}

validate::CaseResult result(const std::string &name, validate::Status s, double gflops)
{
	validate::CaseResult r;
	r.name = name;
	r.status = s;
	r.gflops = gflops;
	r.seconds = 0.5;
	return r;
}

validate::RunInfo info(const std::string &kernel, const std::string &when)
{
	validate::RunInfo i;
	i.started_at = when;
	i.kernel_release = kernel;
	i.device = "AMD Radeon RX 6700 XT (gfx1031)";
	i.api = "HIP";
	for (int p = 0; p < 24; ++p)
		i.amdgpu_params[fmt::format("param_{}", p)] = std::to_string(p);
	i.stack.set("kernel", kernel);
	i.stack.set("runtime.hip", "6.2.4");
	return i;
}

} // namespace

TEST_CASE("history --history-db on a FIFO or a foreign SQLite file ends with exit 2 naming it",
	  "[cli][history][hostile]")
{
	TempDir d;
	const std::string fifo = d.path + "/fifo.db";
	REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
	auto o = rdnactl({"history", "--history-db", fifo}, 20);
	INFO(o.out);
	REQUIRE_FALSE(o.timed_out); // today: open(2) of the FIFO blocks forever
	CHECK(o.exit_code == 2);
	CHECK(has(o.out, fifo + " is a FIFO"));

	const std::string foreign = d.path + "/notes.db";
	{
		auto c = sq::open(foreign);
		c.exec("CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('mine');");
	}
	o = rdnactl({"history", "--history-db", foreign}, 20);
	INFO(o.out);
	CHECK(o.exit_code == 2);
	CHECK(has(o.out, "not an rdnactl history"));
	CHECK(has(o.out, "notes"));
}

TEST_CASE("validate --history-db refuses a foreign SQLite file and leaves it as it was", "[cli][history][hostile]")
{
	TempDir d;
	const std::string db = d.path + "/notes.db";
	{
		auto c = sq::open(db);
		c.exec("CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('mine');");
	}
	const auto o = rdnactl({"validate", "--case", "selftest.pass", "--history-db", db});
	INFO(o.out);
	CHECK(o.exit_code == 0); // the case passed; recording was refused
	CHECK(has(o.out, "warning: history not recorded"));
	CHECK(has(o.out, "not an rdnactl history (schema version 0, tables of its own: notes)"));
	auto c = sq::open_read_only(db);
	CHECK(sq::user_version(c) == 0);                                  // today: set to 5
	CHECK(sq::schema_tables(c) == std::vector<std::string>{"notes"}); // today: runs, results added
}

TEST_CASE("validate --history-db on a device node refuses and creates nothing beside it", "[cli][history][hostile]")
{
	TempDir d;
	const std::string node = d.path + "/null";
	if (::geteuid() == 0)
		REQUIRE(::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
	else
		fs::create_symlink("/dev/null", node); // the same node, through a link
	const auto o = rdnactl({"validate", "--case", "selftest.pass", "--history-db", node});
	INFO(o.out);
	CHECK(o.exit_code == 0);
	CHECK(has(o.out, "is a character device, not a database file"));
	CHECK_FALSE(fs::exists(node + "-journal")); // today: created beside the node (as root)
	CHECK_FALSE(fs::exists("/dev/null-journal"));
	CHECK(std::distance(fs::directory_iterator(d.path), fs::directory_iterator()) == 1);
}

TEST_CASE("validate --no-history --history-db is a usage error naming both", "[cli][history]")
{
	TempDir d;
	const auto o =
		rdnactl({"validate", "--case", "selftest.pass", "--no-history", "--history-db", d.path + "/h.db"});
	INFO(o.out);
	CHECK(o.exit_code == 2);
	CHECK(has(o.out, "--no-history"));
	CHECK(has(o.out, "--history-db"));
	CHECK_FALSE(has(o.out, "selftest.pass")); // refused before anything ran
	CHECK_FALSE(fs::exists(d.path + "/h.db"));
}

TEST_CASE("history --json streams the document render_history_json builds", "[cli][history][json]")
{
	TempDir d;
	const std::string db = d.path + "/history.db";
	{
		validate::History h(db);
		h.record(
			info("6.1.0-28-amd64", "2026-11-01T10:00:00Z"),
			{result("conv.a", validate::Status::pass, 1000), result("conv.b", validate::Status::pass, 50)});
		h.record(info("6.1.0-28-amd64", "2026-11-02T10:00:00Z"),
			 {result("conv.a", validate::Status::pass, 990), result("conv.b", validate::Status::fail, 0)});
		h.record(info("6.12.9-amd64", "2026-11-03T10:00:00Z"),
			 {result("conv.a", validate::Status::pass, 500), result("conv.b", validate::Status::pass, 50)});
		auto ni = info("6.12.9-amd64", "2026-11-04T10:00:00Z");
		ni.not_run = "no_runtime";
		h.record(ni, {});
	}
	auto h = validate::History::open_read_only(db);
	const auto runs = h.runs();
	const auto expected =
		validate::render_history_json(runs, validate::find_regressions(runs), validate::compare_runs(runs));
	REQUIRE(expected["regressions"].size() == 2); // conv.b pass -> fail; conv.a throughput across the kernel
	const auto o = rdnactl({"history", "--history-db", db, "--json"});
	CHECK(o.exit_code == 1);
	CHECK(nlohmann::json::parse(o.out) == expected);
	// Text: the same listing as render_history.
	const auto t = rdnactl({"history", "--history-db", db});
	CHECK(t.out == validate::render_history(runs, validate::find_regressions(runs), validate::compare_runs(runs)));
	// An empty history, both ways.
	const std::string empty = d.path + "/empty.db";
	validate::History{empty};
	CHECK(nlohmann::json::parse(rdnactl({"history", "--history-db", empty, "--json"}).out) ==
	      validate::render_history_json({}, {}, {}));
}

TEST_CASE("history streams 100,000 runs in bounded memory", "[cli][history][scale]")
{
	TempDir d;
	const std::string db = d.path + "/history.db";
	{
		validate::History h(db);
		h.record(info("6.12.9-amd64", "2026-01-01T00:00:00Z"),
			 {result("conv.a", validate::Status::pass, 1000), result("conv.b", validate::Status::pass, 50),
			  result("stream.triad", validate::Status::pass, 400)});
	}
	{
		auto c = sq::open(db);
		SQLite::Transaction tx(c);
		c.exec("WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) "
		       "INSERT INTO runs (id, started_at, kernel_release, device, api, runtime_version, "
		       "driver_version, amdgpu_params, rdnafix_params, rdnactl_version, selection, devices, stack, "
		       "stack_key, not_run) SELECT i, strftime('%Y-%m-%dT%H:%M:%SZ', '2026-01-01', '+' || i || "
		       "' minutes'), kernel_release, device, api, runtime_version, driver_version, amdgpu_params, "
		       "rdnafix_params, rdnactl_version, selection, devices, stack, stack_key, not_run FROM runs, n "
		       "WHERE runs.id = 1;"
		       "INSERT INTO results (run_id, case_name, status, reason, gflops, gbs, max_abs, max_rel, "
		       "rms_range, seconds, kernel_log) SELECT r.id, c.case_name, c.status, c.reason, c.gflops, c.gbs, "
		       "c.max_abs, c.max_rel, c.rms_range, c.seconds, c.kernel_log FROM runs r JOIN results c ON "
		       "c.run_id = 1 WHERE r.id > 1;");
		tx.commit();
	}
	const auto o = rdnactl({"history", "--history-db", db}, 280);
	REQUIRE_FALSE(o.timed_out);
	CHECK(o.exit_code == 0);
	CHECK(std::count(o.out.begin(), o.out.end(), '\n') == 100000 + 3); // header, rows, two closing lines
	CHECK(has(o.out, "100000  2026-03-11"));
	CHECK(o.peak_rss_mib < 48); // today: 2.2 GiB
	const auto j = rdnactl({"history", "--history-db", db, "--json"}, 280);
	REQUIRE_FALSE(j.timed_out);
	CHECK(j.exit_code == 0);
	CHECK(j.peak_rss_mib < 48);
	std::cout << fmt::format("history with 100,000 runs: text {:.2f} s, {:.1f} MiB; --json {:.2f} s, {:.1f} MiB\n",
				 o.seconds, o.peak_rss_mib, j.seconds, j.peak_rss_mib);
}
