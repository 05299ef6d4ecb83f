// The history store under hostile and concurrent use: a damaged schema
// version is refused with the file and the version named (never a crash), two
// first-time writers on a fresh database both keep their run, the listing
// opens read-only and never migrates, and a case recorded twice in one run
// does not lose the run.
#include <catch2/catch_test_macros.hpp>

#include <filesystem>
#include <chrono>
#include <fstream>
#include <functional>
#include <iterator>
#include <latch>
#include <thread>

#include <unistd.h>

#include "history/history.hpp"
#include "render.hpp"

using namespace rdnafix::validate;
namespace sq = rdnafix::io::sqlite;

namespace {

struct TempDb {
	std::string path;
	TempDb()
	{
		char tmpl[] = "/tmp/rdnafix-history-store-XXXXXX";
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

std::string error_of(const std::function<void()> &fn)
{
	try {
		fn();
	} catch (const std::exception &e) {
		return e.what();
	}
	return "(no exception)";
}

RunInfo info(const std::string &kernel)
{
	RunInfo i;
	i.started_at = "2026-11-24T07:00:00Z";
	i.kernel_release = kernel;
	i.device = "gpu0";
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

TEST_CASE("a negative or huge schema version is refused naming the file and the version", "[history][hostile]")
{
	for (int v : {-1, -2147483647 - 1, kHistorySchemaVersion + 1, 2147483647}) {
		TempDb t;
		{
			auto db = sq::open(t.path);
			sq::set_user_version(db, v);
		}
		const std::string w = error_of([&] { History h(t.path); });
		INFO(w);
		CHECK(w.find(t.path) != std::string::npos);
		CHECK(w.find("schema version " + std::to_string(v)) != std::string::npos);
		CHECK(w.find("0.." + std::to_string(kHistorySchemaVersion)) != std::string::npos);
		// the listing refuses it the same way, and nothing was changed
		const std::string r = error_of([&] { History::open_read_only(t.path).runs(); });
		CHECK(r.find("schema version " + std::to_string(v)) != std::string::npos);
		auto db = sq::open(t.path);
		CHECK(sq::user_version(db) == v);
	}
}

TEST_CASE("two first-time writers on a fresh database both keep their run", "[history][race]")
{
	TempDb t;
	// A third connection holds the write lock while both writers open the fresh file, so
	// both see version 0 before either can migrate: the one that migrates second must
	// re-read the version inside its write transaction.
	auto holder = sq::open(t.path);
	holder.exec("BEGIN IMMEDIATE");
	std::latch opened(2);
	std::string err[2];
	std::int64_t ids[2] = {0, 0};
	std::vector<std::thread> writers;
	for (int i = 0; i < 2; ++i)
		writers.emplace_back([&, i] {
			try {
				opened.count_down();
				History h(t.path);
				ids[i] = h.record(info("6.12." + std::to_string(i)),
						  {result("selftest.pass", Status::pass)});
			} catch (const std::exception &e) {
				err[i] = e.what();
			}
		});
	opened.wait();
	std::this_thread::sleep_for(std::chrono::milliseconds(300));
	holder.exec("COMMIT");
	for (auto &w : writers)
		w.join();
	CHECK(err[0] == "");
	CHECK(err[1] == "");
	const auto runs = History::open_read_only(t.path).runs();
	REQUIRE(runs.size() == 2);
	CHECK(runs[0].id != runs[1].id);
	CHECK(runs[0].cases.size() == 1);
	CHECK(runs[1].cases.size() == 1);
}

TEST_CASE("many concurrent writers on one fresh database lose nothing", "[history][race]")
{
	TempDb t;
	constexpr int n = 6;
	std::latch go(n);
	std::vector<std::thread> writers;
	std::vector<std::string> err(n);
	for (int i = 0; i < n; ++i)
		writers.emplace_back([&, i] {
			go.arrive_and_wait();
			try {
				History h(t.path);
				h.record(info("6.1"), {result("a", Status::pass), result("b", Status::fail)});
			} catch (const std::exception &e) {
				err[std::size_t(i)] = e.what();
			}
		});
	for (auto &w : writers)
		w.join();
	for (const auto &e : err)
		CHECK(e == "");
	CHECK(History::open_read_only(t.path).runs().size() == std::size_t(n));
}

TEST_CASE("the listing opens read-only: an old database is read, not migrated, and not written", "[history][readonly]")
{
	TempDb t;
	{
		auto db = sq::open(t.path);
		db.exec(history_migrations()[0]);
		sq::set_user_version(db, 1);
		db.exec("INSERT INTO runs (id, started_at, kernel_release, device) VALUES "
			"(1, '2026-10-01T10:00:00Z', '6.1.0-26-amd64', 'gpu0');"
			"INSERT INTO results (run_id, case_name, status, gflops) VALUES (1, 'conv.a.f32', 'pass', "
			"10.0);");
	}
	const std::string before = slurp(t.path);
	{
		auto h = History::open_read_only(t.path);
		CHECK(h.schema_version() == 1);
		const auto runs = h.runs();
		REQUIRE(runs.size() == 1);
		CHECK(runs[0].info.kernel_release == "6.1.0-26-amd64");
		CHECK(runs[0].info.devices == nlohmann::json::array()); // what a migration would have defaulted
		REQUIRE(runs[0].cases.size() == 1);
		CHECK(runs[0].cases[0].gflops == 10.0);
		CHECK_THROWS(h.record(info("6.1"), {result("x", Status::pass)})); // read-only
	}
	CHECK(slurp(t.path) == before);
	auto db = sq::open(t.path);
	CHECK(sq::user_version(db) == 1);
	// a missing file is not created
	const std::string missing = std::filesystem::path(t.path).parent_path() / "missing.db";
	const std::string w = error_of([&] { History::open_read_only(missing); });
	CHECK(w.find(missing) != std::string::npos);
	CHECK_FALSE(std::filesystem::exists(missing));
}

TEST_CASE("a case recorded twice in one run keeps the run and the worse result", "[history][duplicate]")
{
	TempDb t;
	History h(t.path);
	h.record(info("6.1"), {result("a", Status::pass), result("a", Status::crash), result("b", Status::pass),
			       result("b", Status::pass)});
	const auto runs = h.runs();
	REQUIRE(runs.size() == 1);
	REQUIRE(runs[0].cases.size() == 2);
	CHECK(runs[0].cases[0].name == "a");
	CHECK(runs[0].cases[0].status == Status::crash);
	CHECK(runs[0].cases[1].name == "b");
}

TEST_CASE("machine values that are not UTF-8 do not fail the recording", "[history][utf8]")
{
	TempDb t;
	History h(t.path);
	RunInfo i = info("6.1");
	i.amdgpu_params = {{"noretry", "1\xff"}};
	i.devices = nlohmann::json::array({{{"gfx_target", "gfx\xfe"}}});
	h.record(i, {result("a", Status::pass)});
	const auto runs = h.runs();
	REQUIRE(runs.size() == 1);
	CHECK(runs[0].info.amdgpu_params["noretry"] == "1\xef\xbf\xbd");
	CHECK(runs[0].info.devices[0]["gfx_target"] == "gfx\xef\xbf\xbd");
}

// Found by tests/fuzz/history.cpp: a JSON column that is not JSON (a damaged or
// hand-edited database) was read as nlohmann's "discarded" value, and
// `history --json` printed `"amdgpu_params": <discarded>`, which is not JSON.
TEST_CASE("JSON columns that are not JSON of their kind read as empty, and --json stays JSON", "[history][hostile]")
{
	TempDb t;
	{
		History h(t.path);
		h.record(info("6.1"), {result("a", Status::pass)});
		h.db().exec("UPDATE runs SET amdgpu_params = '{\"noretry\": ', rdnafix_params = '[1]', devices = 'x'");
	}
	auto h = History::open_read_only(t.path);
	const auto runs = h.runs();
	REQUIRE(runs.size() == 1);
	CHECK(runs[0].info.amdgpu_params == nlohmann::json::object());
	CHECK(runs[0].info.rdnafix_params == nlohmann::json::object());
	CHECK(runs[0].info.devices == nlohmann::json::array());
	const std::string out = json_text(render_history_json(runs, {}));
	CHECK(nlohmann::json::accept(out));
}
