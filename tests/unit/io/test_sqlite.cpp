// io::sqlite: opening, PRAGMA user_version migrations (each step in its own
// transaction; a failing step leaves the version where it was), NULL binding.
#include <catch2/catch_test_macros.hpp>

#include <chrono>
#include <filesystem>

#include <sys/stat.h>
#include <unistd.h>

#include "io/sqlite.hpp"

using namespace rdnafix::io;

namespace {

struct TempDb {
	std::string path;
	TempDb()
	{
		char tmpl[] = "/tmp/rdnafix-sqlite-test-XXXXXX";
		REQUIRE(::mkdtemp(tmpl));
		path = std::string(tmpl) + "/test.db";
	}
	~TempDb() { std::filesystem::remove_all(std::filesystem::path(path).parent_path()); }
};

const std::vector<std::string> kSteps = {"CREATE TABLE t (a INTEGER);", "ALTER TABLE t ADD COLUMN b REAL;"};

} // namespace

TEST_CASE("sqlite: a new database is migrated step by step and keeps its version", "[io][sqlite]")
{
	TempDb t;
	{
		auto db = sqlite::open(t.path);
		REQUIRE(sqlite::user_version(db) == 0);
		REQUIRE(sqlite::migrate(db, {kSteps[0]}) == 0);
		REQUIRE(sqlite::user_version(db) == 1);
		db.exec("INSERT INTO t (a) VALUES (7)");
	}
	auto db = sqlite::open(t.path); // reopened: version and data persist
	REQUIRE(sqlite::migrate(db, kSteps) == 1);
	REQUIRE(sqlite::user_version(db) == 2);
	REQUIRE(sqlite::migrate(db, kSteps) == 2); // nothing left to do
	SQLite::Statement st(db, "SELECT a, b FROM t");
	REQUIRE(st.executeStep());
	REQUIRE(st.getColumn(0).getInt() == 7);
	REQUIRE_FALSE(sqlite::optional_real(st.getColumn(1)));
}

TEST_CASE("sqlite: a failing step rolls back and leaves the version", "[io][sqlite]")
{
	TempDb t;
	auto db = sqlite::open(t.path);
	REQUIRE_THROWS_AS(sqlite::migrate(db, {kSteps[0], "CREATE TABLE u (x); THIS IS NOT SQL;"}), SQLite::Exception);
	REQUIRE(sqlite::user_version(db) == 1);
	REQUIRE_FALSE(db.tableExists("u"));
	sqlite::set_user_version(db, 5);
	REQUIRE_THROWS_AS(sqlite::migrate(db, kSteps), std::invalid_argument);
}

TEST_CASE("sqlite: optional doubles bind as NULL and read back as nullopt", "[io][sqlite]")
{
	auto db = sqlite::open(":memory:");
	db.exec("CREATE TABLE t (v REAL)");
	SQLite::Statement ins(db, "INSERT INTO t (v) VALUES (?1)");
	for (std::optional<double> v : {std::optional<double>(2.5), std::optional<double>()}) {
		sqlite::bind(ins, 1, v);
		ins.exec();
		ins.reset();
	}
	SQLite::Statement sel(db, "SELECT v FROM t ORDER BY rowid");
	REQUIRE(sel.executeStep());
	REQUIRE(sqlite::optional_real(sel.getColumn(0)) == 2.5);
	REQUIRE(sel.executeStep());
	REQUIRE_FALSE(sqlite::optional_real(sel.getColumn(0)));
}

TEST_CASE("sqlite: foreign keys are enforced", "[io][sqlite]")
{
	auto db = sqlite::open(":memory:");
	db.exec("CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (p INTEGER REFERENCES p(id));");
	REQUIRE_THROWS_AS(db.exec("INSERT INTO c (p) VALUES (1)"), SQLite::Exception);
}

TEST_CASE("sqlite: open_untrusted refuses what is not a regular file before SQLite opens it", "[io][sqlite][hostile]")
{
	TempDb t;
	const std::string dir = std::filesystem::path(t.path).parent_path();
	{
		auto db = sqlite::open(t.path);
		db.exec("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);");
	}
	const std::string fifo = dir + "/fifo", link = dir + "/link";
	REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
	std::filesystem::create_symlink(t.path, link);
	auto refused = [](const std::string &path, const sqlite::ReadLimits &limits) -> std::string {
		try {
			sqlite::open_untrusted(path, limits);
		} catch (const sqlite::NotADatabaseFile &e) {
			return e.missing() ? std::string("missing: ") + e.what() : e.what();
		}
		return "";
	};
	CHECK(refused(fifo, {}) == fifo + " is a FIFO, not a database file (valid: a regular file that rdnactl "
					  "validate wrote)");
	CHECK(refused(dir, {}).starts_with(dir + " is a directory"));
	CHECK(refused(link, {}).starts_with(link + " is a symbolic link"));
	CHECK(refused(dir + "/none", {}) == "missing: " + dir + "/none: no such file");
	// Followed when the caller asks: to the database, or to the FIFO (still refused).
	sqlite::ReadLimits follow;
	follow.follow_symlink = true;
	CHECK(refused(link, follow).empty());
	std::filesystem::remove(link);
	std::filesystem::create_symlink(fifo, link);
	CHECK(refused(link, follow) == link + " is a FIFO, not a database file (valid: a regular file that rdnactl "
					      "validate wrote)");
	auto db = sqlite::open_untrusted(t.path);
	CHECK(db.execAndGet("SELECT a FROM t").getInt() == 1);
	CHECK_THROWS(db.exec("INSERT INTO t VALUES (2)")); // read-only
}

TEST_CASE("sqlite: open_untrusted bounds the work and the length of a value", "[io][sqlite][hostile]")
{
	TempDb t;
	{
		auto db = sqlite::open(t.path);
		db.exec("CREATE TABLE t (a TEXT); INSERT INTO t VALUES (printf('%.*c', 2000000, '['));");
	}
	sqlite::ReadLimits limits;
	limits.budget_ms = 200;
	auto db = sqlite::open_untrusted(t.path, limits);
	const auto t0 = std::chrono::steady_clock::now();
	try {
		db.execAndGet("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT count(*) FROM c");
		FAIL("an endless query ended");
	} catch (const SQLite::Exception &e) {
		CHECK(sqlite::describe(e, limits) == "gave up after 200 ms of SQLite work (the budget for reading it)");
	}
	CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
	auto fresh = sqlite::open_untrusted(t.path); // the budget counts from the open
	try {
		fresh.execAndGet("SELECT a FROM t");
		FAIL("a 2 MB value was read");
	} catch (const SQLite::Exception &e) {
		CHECK(sqlite::describe(e, {}) == "holds a value longer than 1048576 bytes");
	}
}

TEST_CASE("sqlite: a view or a virtual table is named as such; a writer refuses a FIFO", "[io][sqlite][hostile]")
{
	TempDb t;
	auto db = sqlite::open(t.path);
	db.exec("CREATE TABLE runs (a); CREATE VIEW results AS SELECT 1; CREATE VIRTUAL TABLE v USING rtree(id, x0, "
		"x1);");
	CHECK(sqlite::object_type(db, "runs") == "table");
	CHECK(sqlite::object_type(db, "RESULTS") == "view");
	CHECK(sqlite::object_type(db, "v") == "virtual table");
	CHECK(sqlite::object_type(db, "none").empty());
	CHECK(sqlite::schema_tables(db) ==
	      std::vector<std::string>{"results", "runs", "v", "v_node", "v_parent", "v_rowid"});
	const std::string fifo = std::filesystem::path(t.path).parent_path() / "fifo";
	REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
	CHECK(sqlite::not_regular_file(fifo) == "a FIFO");
	CHECK(sqlite::not_regular_file(t.path).empty());
	CHECK(sqlite::not_regular_file(fifo + ".none").empty());
}
