// The real rdnactl binary and its history database: a damaged schema version
// is an error naming the file (never a crash), validate prints its results
// before recording and keeps its exit code when recording fails, the listing
// never writes, two first-time writers both record, a repeated --case keeps
// the run, JSON survives non-UTF-8, and floating options refuse NaN/inf.
#include <catch2/catch_test_macros.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include <unistd.h>

#include <SQLiteCpp/Database.h>
#include <nlohmann/json.hpp>

#include "io/child_runner.hpp"
#include "io/sqlite.hpp"

using rdnafix::io::ChildSpec;
using rdnafix::io::run_child;
namespace sq = rdnafix::io::sqlite;

namespace {

struct Out {
	int rc = -1;
	std::string out; // stdout + stderr, in the order written
};

Out rdnactl(std::vector<std::string> args, double timeout = 120)
{
	ChildSpec spec{RDNACTL_PATH, std::move(args), timeout, 2};
	spec.output_tail_bytes = 1 << 22;
	const auto o = run_child(spec);
	REQUIRE(o.exited); // a crash (SIGSEGV, SIGABRT) fails here
	return {o.exit_code, o.output_tail};
}

// stdout only (stderr to /dev/null), for JSON documents.
Out rdnactl_stdout(const std::string &args, const std::string &env = "")
{
	ChildSpec spec{
		"/bin/sh", {"-c", env + " exec " + std::string(RDNACTL_PATH) + " " + args + " 2>/dev/null"}, 120, 2};
	spec.output_tail_bytes = 1 << 22;
	const auto o = run_child(spec);
	REQUIRE(o.exited);
	return {o.exit_code, o.output_tail};
}

struct TempDir {
	std::string path;
	TempDir()
	{
		char tmpl[] = "/tmp/rdnafix-cli-history-XXXXXX";
		REQUIRE(::mkdtemp(tmpl));
		path = tmpl;
	}
	~TempDir() { std::filesystem::remove_all(path); }
};

std::string slurp(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

bool has(const std::string &text, const std::string &what)
{
	return text.find(what) != std::string::npos;
}

} // namespace

TEST_CASE("history and validate refuse a negative schema version naming the file; validate still reports",
	  "[cli][history][hostile]")
{
	TempDir d;
	const std::string db = d.path + "/history.db";
	{
		auto c = sq::open(db);
		sq::set_user_version(c, -1);
	}
	auto o = rdnactl({"history", "--history-db", db});
	INFO(o.out);
	CHECK(o.rc == 2);
	CHECK(has(o.out, db));
	CHECK(has(o.out, "schema version -1"));
	o = rdnactl({"validate", "--case", "selftest.pass", "--history-db", db});
	INFO(o.out);
	CHECK(o.rc == 0); // recording failed; the cases passed
	const auto table = o.out.find("1 passed, 0 failed, 0 skipped");
	const auto warning = o.out.find("warning: history not recorded");
	REQUIRE(table != std::string::npos);
	REQUIRE(warning != std::string::npos);
	CHECK(table < warning); // results first, then the recording
	CHECK(has(o.out, "schema version -1"));
	o = rdnactl({"validate", "--case", "selftest.segv", "--history-db", db, "--json"});
	CHECK(o.rc == 1); // the failure's exit code, not the recording's
}

TEST_CASE("validate --json prints its document before a failed recording and keeps exit 0", "[cli][history]")
{
	TempDir d;
	const std::string db = d.path + "/history.db";
	{
		auto c = sq::open(db);
		sq::set_user_version(c, 99);
	}
	const auto o = rdnactl_stdout("validate --case selftest.pass --json --history-db " + db);
	INFO(o.out);
	CHECK(o.rc == 0);
	const auto j = nlohmann::json::parse(o.out);
	CHECK(j["cases"][0]["status"] == "pass");
}

TEST_CASE("`history` never migrates, writes or creates a database", "[cli][history][readonly]")
{
	TempDir d;
	const std::string db = d.path + "/old.db";
	{
		auto c = sq::open(db);
		c.exec("CREATE TABLE runs (id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, kernel_release TEXT NOT "
		       "NULL,"
		       " device TEXT NOT NULL DEFAULT '');"
		       "CREATE TABLE results (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, case_name "
		       "TEXT NOT NULL, status TEXT NOT NULL, gflops REAL, gbs REAL, PRIMARY KEY (run_id, case_name));"
		       "INSERT INTO runs VALUES (1, '2026-10-01T10:00:00Z', '6.1.0-26-amd64', 'gpu0');"
		       "INSERT INTO results VALUES (1, 'conv.a.f32', 'pass', 10.0, NULL);");
		sq::set_user_version(c, 1);
	}
	const std::string before = slurp(db);
	auto o = rdnactl({"history", "--history-db", db, "--json"});
	INFO(o.out);
	CHECK(o.rc == 0);
	const auto j = nlohmann::json::parse(o.out);
	REQUIRE(j["runs"].size() == 1);
	CHECK(j["runs"][0]["kernel_release"] == "6.1.0-26-amd64");
	CHECK(slurp(db) == before);
	{
		auto c = sq::open(db);
		CHECK(sq::user_version(c) == 1);
	}
	// A missing --history-db is an error naming it, and nothing is created.
	const std::string missing = d.path + "/sub/none.db";
	o = rdnactl({"history", "--history-db", missing});
	CHECK(o.rc == 2);
	CHECK(has(o.out, missing));
	CHECK_FALSE(std::filesystem::exists(d.path + "/sub"));
	// The default location, missing: nothing recorded yet is not an error (root's default is
	// /var/lib/rdnafix, which this test must not touch).
	if (::geteuid() == 0)
		return;
	const std::string state = d.path + "/state";
	const auto e = rdnactl_stdout("history", "XDG_STATE_HOME=" + state);
	CHECK(e.rc == 0);
	CHECK(has(e.out, "no validation history at " + state + "/rdnafix/history.db"));
	CHECK_FALSE(std::filesystem::exists(state));
}

TEST_CASE("two first-time validate runs on one fresh database both record", "[cli][history][race]")
{
	TempDir d;
	const std::string db = d.path + "/history.db";
	auto holder = sq::open(db); // holds the write lock while both start
	holder.exec("BEGIN IMMEDIATE");
	const std::string cmd = std::string(RDNACTL_PATH) + " validate --case selftest.pass --history-db " + db;
	ChildSpec spec{"/bin/sh",
		       {"-c", cmd + " > " + d.path + "/a.out 2>&1 & " + cmd + " > " + d.path + "/b.out 2>&1 & wait"},
		       60,
		       2};
	std::thread release([&] {
		std::this_thread::sleep_for(std::chrono::milliseconds(3500));
		holder.exec("COMMIT");
	});
	const auto o = run_child(spec);
	release.join();
	const std::string a = slurp(d.path + "/a.out"), b = slurp(d.path + "/b.out");
	INFO(a << "\n---\n" << b);
	CHECK(has(a, "recorded as run"));
	CHECK(has(b, "recorded as run"));
	const auto j = nlohmann::json::parse(rdnactl({"history", "--history-db", db, "--json"}).out);
	CHECK(j["runs"].size() == 2);
}

TEST_CASE("a repeated --case does not lose the run", "[cli][history][duplicate]")
{
	TempDir d;
	const std::string db = d.path + "/history.db";
	auto o = rdnactl({"validate", "--case", "selftest.pass", "--case", "selftest.pass", "--history-db", db});
	INFO(o.out);
	CHECK(o.rc == 0);
	CHECK(has(o.out, "recorded as run 1"));
	CHECK_FALSE(has(o.out, "not recorded"));
	const auto j = nlohmann::json::parse(rdnactl({"history", "--history-db", db, "--json"}).out);
	REQUIRE(j["runs"].size() == 1);
	CHECK(j["runs"][0]["cases"].size() == 1);
}

TEST_CASE("floating options refuse NaN and infinity naming the option and the range", "[cli][nan]")
{
	struct Bad {
		std::vector<std::string> args;
		std::string option, range;
	};
	const std::vector<Bad> bad = {
		{{"validate", "--list", "--timeout", "nan"}, "--timeout", "0.1"},
		{{"validate", "--list", "--timeout", "inf"}, "--timeout", "86400"},
		{{"validate", "--list", "--kill-grace", "NaN"}, "--kill-grace", "3600"},
		{{"validate", "--list", "--kill-grace=-nan"}, "--kill-grace", "3600"},
		{{"validate", "--list", "--capacity-fraction", "nan"}, "--capacity-fraction", "0.95"},
		{{"validate", "--list", "--capacity-fraction", "infinity"}, "--capacity-fraction", "0.95"},
		{{"history", "--history-db", "/nonexistent/x.db", "--threshold", "nan"}, "--threshold", "1"},
		{{"history", "--history-db", "/nonexistent/x.db", "--threshold=-inf"}, "--threshold", "1"},
	};
	for (const auto &b : bad) {
		const auto o = rdnactl(b.args);
		INFO(b.args.back() << ": " << o.out);
		CHECK(o.rc == 2);
		CHECK(has(o.out, b.option));
		CHECK(has(o.out, b.range));
		CHECK(has(o.out, "finite"));
	}
	CHECK(rdnactl({"validate", "--list", "--timeout", "0.5"}).rc == 0);
}

TEST_CASE("an empty --history-db is an error, not the default location", "[cli][history]")
{
	for (const char *cmd : {"validate", "history"}) {
		std::vector<std::string> args{cmd, "--history-db", ""};
		if (std::string(cmd) == "validate")
			args.push_back("--list"); // records nothing even where "" were taken as the default
		const auto o = rdnactl(args);
		INFO(cmd << ": " << o.out);
		CHECK(o.rc == 2);
		CHECK(has(o.out, "--history-db"));
		CHECK(has(o.out, "empty"));
	}
}

TEST_CASE("a damaged database (current version, tables missing, or not a database) names the file", "[cli][history]")
{
	TempDir d;
	const std::string db = d.path + "/history.db";
	{
		auto c = sq::open(db);
		sq::set_user_version(c, 4);
	}
	auto o = rdnactl({"history", "--history-db", db});
	INFO(o.out);
	CHECK(o.rc == 2);
	CHECK(has(o.out, "cannot read history database " + db));
	const std::string junk = d.path + "/junk.db";
	std::ofstream(junk) << std::string(4096, 'x');
	o = rdnactl({"history", "--history-db", junk});
	CHECK(o.rc == 2);
	CHECK(has(o.out, junk));
	o = rdnactl({"validate", "--case", "selftest.pass", "--history-db", junk});
	CHECK(o.rc == 0);
	CHECK(has(o.out, "history not recorded"));
	CHECK(has(o.out, junk));
}
