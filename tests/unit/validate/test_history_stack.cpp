// Schema 5 of the history store: the stack of each run (runs.stack, .stack_key)
// and why a run did not run (runs.not_run).  Migration from every older
// version keeps the data and gives old runs the stack they recorded (kernel,
// parameters); the listing of an old file stays read-only; a damaged stack
// column is read as hostile text, never an error; a run without cases is kept.
#include <catch2/catch_test_macros.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <unistd.h>

#include "history/history.hpp"

using namespace rdnafix::validate;
namespace sq = rdnafix::io::sqlite;

namespace {

struct TempDb {
	std::string path;
	TempDb()
	{
		char tmpl[] = "/tmp/rdnafix-history-stack-XXXXXX";
		REQUIRE(::mkdtemp(tmpl));
		path = std::string(tmpl) + "/history.db";
	}
	~TempDb() { std::filesystem::remove_all(std::filesystem::path(path).parent_path()); }
};

std::string slurp(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// A database at schema `version` with one run (kernel 6.1.0-26-amd64, and from
// version 2 on amdgpu noretry=1 plus a parameter the stack does not keep).
void make_old(const std::string &path, int version)
{
	auto db = sq::open(path);
	for (int i = 0; i < version; ++i)
		db.exec(history_migrations()[std::size_t(i)]);
	sq::set_user_version(db, version);
	if (version == 0)
		return;
	db.exec("INSERT INTO runs (id, started_at, kernel_release, device) VALUES "
		"(1, '2026-10-01T10:00:00Z', '6.1.0-26-amd64', 'gpu0');"
		"INSERT INTO results (run_id, case_name, status, gflops) VALUES (1, 'conv.a.f32', 'pass', 10.0);");
	if (version >= 2)
		db.exec("UPDATE runs SET amdgpu_params = '{\"noretry\": \"1\", \"dc\": \"-1\"}', "
			"rdnafix_params = '{\"noretry\": \"0\"}' WHERE id = 1");
}

RunInfo stacked(const std::string &kernel, const std::string &not_run = "")
{
	RunInfo i;
	i.started_at = "2026-11-24T10:00:00Z";
	i.kernel_release = kernel;
	i.device = "gpu0";
	i.stack.set("kernel", kernel);
	i.stack.set("env.CUDA_VISIBLE_DEVICES", "0");
	i.not_run = not_run;
	return i;
}

CaseResult result(const std::string &name, Status st)
{
	CaseResult c;
	c.name = name;
	c.status = st;
	return c;
}

} // namespace

TEST_CASE("schema 5: migration from every older version keeps runs and gives them their recorded stack",
	  "[history][stack]")
{
	for (int v = 0; v < kHistorySchemaVersion; ++v) {
		INFO("from version " << v);
		TempDb t;
		make_old(t.path, v);
		History h(t.path);
		CHECK(h.schema_version() == v);
		CHECK(sq::user_version(h.db()) == kHistorySchemaVersion);
		auto runs = h.runs();
		REQUIRE(runs.size() == (v == 0 ? 0u : 1u));
		if (v > 0) {
			const auto &old = runs[0];
			CHECK(old.stack_legacy);
			CHECK(old.info.not_run.empty());
			CHECK(*old.info.stack.get("kernel") == "6.1.0-26-amd64");
			if (v >= 2) {
				CHECK(*old.info.stack.get("amdgpu.noretry") == "1");
				CHECK(*old.info.stack.get("rdnafix.noretry") == "0");
				CHECK_FALSE(old.info.stack.get("amdgpu.dc")); // not a parameter the stack keeps
			} else {
				CHECK(old.info.stack.facts.size() == 1);
			}
			CHECK(verdict(old) == RunVerdict::pass);
		}
		// A new run on the migrated file keeps its stack and key.
		const RunInfo now = stacked("6.12.57");
		const auto id = h.record(now, {result("conv.a.f32", Status::fail)});
		runs = h.runs();
		REQUIRE(runs.back().id == id);
		CHECK_FALSE(runs.back().stack_legacy);
		CHECK(runs.back().info.stack == now.stack);
		CHECK(verdict(runs.back()) == RunVerdict::fail);
		SQLite::Statement key(h.db(), "SELECT stack_key FROM runs WHERE id = ?1");
		key.bind(1, id);
		REQUIRE(key.executeStep());
		CHECK(key.getColumn(0).getString() == now.stack.key());
	}
}

TEST_CASE("schema 5: a not-run run without cases is stored and listed", "[history][stack]")
{
	TempDb t;
	History h(t.path);
	const auto a = h.record(stacked("6.1.0-28-amd64", "no_runtime"), {});
	const auto b = h.record(stacked("6.1.0-28-amd64"), {result("x", Status::skip)});
	const auto runs = History::open_read_only(t.path).runs();
	REQUIRE(runs.size() == 2);
	CHECK(runs[0].id == a);
	CHECK(runs[0].cases.empty());
	CHECK(runs[0].info.not_run == "no_runtime");
	CHECK(verdict(runs[0]) == RunVerdict::not_run);
	CHECK(runs[1].id == b);
	CHECK(verdict(runs[1]) == RunVerdict::not_run); // every case skipped: nothing ran
	CHECK(std::string(verdict_name(RunVerdict::not_run)) == "not_run");
	// Both runs share a stack: the last one on it is run b.
	const auto last = last_run_on_stack(runs, runs[0].info.stack.key());
	REQUIRE(last);
	CHECK(last->id == b);
	CHECK_FALSE(last_run_on_stack(runs, Stack{}.key()));
}

TEST_CASE("schema 5: the listing of a version-4 file is read-only and gives legacy stacks",
	  "[history][stack][readonly]")
{
	TempDb t;
	make_old(t.path, 4);
	const std::string before = slurp(t.path);
	{
		auto h = History::open_read_only(t.path);
		CHECK(h.schema_version() == 4);
		const auto runs = h.runs();
		REQUIRE(runs.size() == 1);
		CHECK(runs[0].stack_legacy);
		CHECK(*runs[0].info.stack.get("kernel") == "6.1.0-26-amd64");
		CHECK_THROWS(h.record(stacked("6.1"), {}));
	}
	CHECK(slurp(t.path) == before);
	auto db = sq::open(t.path);
	CHECK(sq::user_version(db) == 4);
}

TEST_CASE("schema 5: hostile text in the stack column is read as an empty or cleaned stack",
	  "[history][stack][hostile]")
{
	TempDb t;
	{
		History h(t.path);
		for (int i = 0; i < 7; ++i)
			h.record(stacked("6.12.57"), {result("a", Status::pass)});
		auto &db = h.db();
		db.exec("UPDATE runs SET stack = '{not json' WHERE id = 1");
		db.exec("UPDATE runs SET stack = '[1, 2, 3]' WHERE id = 2");
		db.exec("UPDATE runs SET stack = '{\"kernel\": 5, \"env.X\": {\"a\": 1}, \"ok\": \"yes\"}' WHERE id = "
			"3");
		db.exec("UPDATE runs SET stack = X'7b226b223a2022ff227d' WHERE id = 4"); // {"k": "\xff"} as a blob
		db.exec("UPDATE runs SET stack = 12345, not_run = X'ff00' WHERE id = 5");
		db.exec("UPDATE runs SET stack = '{\"k\": \"' || hex(randomblob(50000)) || '\"}' WHERE id = 6");
		db.exec("UPDATE runs SET stack_key = 'forged' WHERE id = 7");
	}
	std::vector<StoredRun> runs;
	REQUIRE_NOTHROW(runs = History::open_read_only(t.path).runs());
	REQUIRE(runs.size() == 7);
	CHECK(runs[0].info.stack.empty());
	CHECK(runs[1].info.stack.empty());
	CHECK(runs[2].info.stack.facts == std::map<std::string, std::string>{{"ok", "yes"}});
	CHECK(runs[3].info.stack.facts.size() <= 1); // invalid UTF-8 inside JSON: not parsed, or cleaned
	CHECK(runs[4].info.stack.empty());
	CHECK(runs[4].info.not_run.size() <= 3 + 1); // U+FFFD for the bad byte (NUL may stay)
	REQUIRE(runs[5].info.stack.get("k"));
	CHECK(runs[5].info.stack.get("k")->size() <= kStackValueMax);
	for (const auto &r : runs)
		CHECK_FALSE(r.stack_legacy);
	// The key is computed from the facts, never read from the file.
	CHECK(runs[6].info.stack.key() == stacked("6.12.57").stack.key());
	CHECK(last_run_on_stack(runs, stacked("6.12.57").stack.key())->id == 7);
}
