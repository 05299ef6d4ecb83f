// io::sqlite: opening, PRAGMA user_version migrations (each step in its own
// transaction; a failing step leaves the version where it was), NULL binding.
#include <catch2/catch_test_macros.hpp>

#include <filesystem>

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
