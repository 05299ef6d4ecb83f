// History database: schema, migration from an old version with data kept,
// round trip of a run, default locations, and the regression decision.
#include <catch2/catch_test_macros.hpp>

#include <filesystem>
#include <unistd.h>

#include "history/history.hpp"

using namespace rdnafix::validate;

namespace {

struct TempDb {
	std::string path;
	TempDb()
	{
		char tmpl[] = "/tmp/rdnafix-history-test-XXXXXX";
		REQUIRE(::mkdtemp(tmpl));
		path = std::string(tmpl) + "/history.db";
	}
	~TempDb() { std::filesystem::remove_all(std::filesystem::path(path).parent_path()); }
};

StoredCase sc(const std::string &name, Status st, std::optional<double> gflops = std::nullopt,
	      std::optional<double> gbs = std::nullopt)
{
	StoredCase c;
	c.name = name;
	c.status = st;
	c.gflops = gflops;
	c.gbs = gbs;
	return c;
}

StoredRun run(std::int64_t id, const std::string &kernel, std::vector<StoredCase> cases,
	      const std::string &device = "AMD Radeon RX 6700 XT (gfx1031)")
{
	StoredRun r;
	r.id = id;
	r.info.kernel_release = kernel;
	r.info.stack.set("kernel", kernel);
	r.info.device = device;
	r.cases = std::move(cases);
	return r;
}

} // namespace

TEST_CASE("a version-1 database is migrated to the current schema with its data kept", "[history]")
{
	TempDb t;
	{
		auto db = rdnafix::io::sqlite::open(t.path);
		db.exec(history_migrations()[0]); // exactly what rdnactl 0.1 with schema v1 created
		rdnafix::io::sqlite::set_user_version(db, 1);
		db.exec("INSERT INTO runs (id, started_at, kernel_release, device) VALUES "
			"(1, '2026-10-01T10:00:00Z', '6.1.0-26-amd64', 'gpu0'), "
			"(2, '2026-11-01T10:00:00Z', '6.12.9-amd64', 'gpu0');"
			"INSERT INTO results (run_id, case_name, status, gflops, gbs) VALUES "
			"(1, 'conv.a.f32', 'pass', 1000.0, NULL), (1, 'stream.copy-triad', 'pass', NULL, 400.0), "
			"(2, 'conv.a.f32', 'fail', 990.0, NULL), (2, 'stream.copy-triad', 'pass', NULL, 300.0);");
	}
	History h(t.path);
	REQUIRE(rdnafix::io::sqlite::user_version(h.db()) == kHistorySchemaVersion);
	const auto runs = h.runs();
	REQUIRE(runs.size() == 2);
	REQUIRE(runs[0].info.kernel_release == "6.1.0-26-amd64");
	REQUIRE(runs[0].info.amdgpu_params == nlohmann::json::object()); // default of the v2 column
	REQUIRE(runs[0].info.devices == nlohmann::json::array());        // default of the v4 column
	REQUIRE(runs[1].cases.size() == 2);
	REQUIRE(runs[1].cases[0].status == Status::fail);
	REQUIRE(runs[1].cases[1].gbs == 300.0);
	const auto regs = find_regressions(runs);
	REQUIRE(regs.size() == 2);
	// migrating again is a no-op
	REQUIRE(migrate_history(h.db()) == kHistorySchemaVersion);
}

TEST_CASE("a database newer than this rdnactl is refused with a clear message", "[history]")
{
	TempDb t;
	{
		auto db = rdnafix::io::sqlite::open(t.path);
		rdnafix::io::sqlite::set_user_version(db, kHistorySchemaVersion + 1);
	}
	try {
		History h(t.path);
		FAIL("expected an exception");
	} catch (const std::runtime_error &e) {
		REQUIRE(std::string(e.what()).find("newer rdnactl") != std::string::npos);
	}
}

TEST_CASE("a recorded run reads back with its parameters and figures", "[history]")
{
	TempDb t;
	History h(t.path);
	RunInfo info;
	info.started_at = "2026-11-20T23:00:00Z";
	info.kernel_release = "6.12.57+deb13-amd64";
	info.device = "NVIDIA H200 (sm_90)";
	info.api = "CUDA";
	info.runtime_version = "12080";
	info.amdgpu_params = {{"noretry", "-1"}, {"vm_fragment_size", "-1"}};
	info.rdnafix_params = {{"enable", "Y"}};
	info.devices = nlohmann::json::array({{{"pci_bdf", "0000:03:00.0"},
					       {"gfx_target", "gfx1010"},
					       {"noretry_effective", 1},
					       {"rdnafix_noretry_applied", 1}}});
	CaseResult a;
	a.name = "conv.resnet50-conv2x-3x3.f32";
	a.status = Status::pass;
	a.max_abs = 1e-6;
	a.gflops = 12345.0;
	a.seconds = 1.5;
	CaseResult b;
	b.name = "selftest.segv";
	b.status = Status::crash;
	b.reason = "signal 11";
	b.kernel_log.push_back(
		{LogKind::fault_status, "GCVM_L2_PROTECTION_FAULT_STATUS:0x00701031", decode_fault_status(0x00701031)});
	const auto id = h.record(info, {a, b});
	const auto runs = h.runs();
	REQUIRE(runs.size() == 1);
	REQUIRE(runs[0].id == id);
	REQUIRE(runs[0].info.amdgpu_params["noretry"] == "-1");
	REQUIRE(runs[0].info.rdnafix_params["enable"] == "Y");
	REQUIRE(runs[0].info.api == "CUDA");
	REQUIRE(runs[0].info.devices == info.devices);
	REQUIRE(runs[0].cases.size() == 2);
	REQUIRE(runs[0].cases[0].gflops == 12345.0);
	REQUIRE(runs[0].cases[0].max_abs == 1e-6);
	REQUIRE(runs[0].cases[1].status == Status::crash);
	REQUIRE(runs[0].cases[1].reason == "signal 11");
	SQLite::Statement st(h.db(), "SELECT kernel_log FROM results WHERE case_name = 'selftest.segv'");
	REQUIRE(st.executeStep());
	REQUIRE(st.getColumn(0).getString().find("\"client\":\"TCP\"") != std::string::npos);
}

TEST_CASE("default history location: root, XDG_STATE_HOME, ~/.local/state", "[history]")
{
	REQUIRE(default_history_path(0, "/x", "/root") == "/var/lib/rdnafix/history.db");
	REQUIRE(default_history_path(1000, "/home/u/state", "/home/u") == "/home/u/state/rdnafix/history.db");
	REQUIRE(default_history_path(1000, "relative", "/home/u") == "/home/u/.local/state/rdnafix/history.db");
	REQUIRE(default_history_path(1000, nullptr, "/home/u") == "/home/u/.local/state/rdnafix/history.db");
	REQUIRE(default_history_path(1000, nullptr, nullptr).empty());
}

TEST_CASE("regressions: pass->fail and >10 % throughput loss across a stack change", "[history][regression]")
{
	std::vector<StoredRun> runs{
		run(1, "6.1",
		    {sc("conv", Status::pass, 1000.0), sc("stream", Status::pass, {}, 500.0),
		     sc("xfer", Status::pass, {}, 20.0), sc("cap", Status::pass)}),
		run(2, "6.1", {sc("conv", Status::pass, 1010.0)}), // latest under 6.1 wins
		run(3, "6.12",
		    {sc("conv", Status::pass, 900.0),       // -10.9 %: regression
		     sc("stream", Status::pass, {}, 460.0), // -8 %: within threshold
		     sc("xfer", Status::hang),              // pass -> hang
		     sc("cap", Status::skip)}),             // skip is not compared
	};
	const auto regs = find_regressions(runs);
	REQUIRE(regs.size() == 2);
	const auto &tp = regs[0].case_name == "conv" ? regs[0] : regs[1];
	const auto &st = regs[0].case_name == "conv" ? regs[1] : regs[0];
	REQUIRE(tp.kind == Regression::Kind::throughput);
	REQUIRE(tp.from_value == 1010.0);
	REQUIRE(tp.to_value == 900.0);
	REQUIRE(tp.from_run == 2);
	REQUIRE(tp.from_kernel == "6.1");
	REQUIRE(tp.to_kernel == "6.12");
	REQUIRE(tp.describe().find("10.9 % lower") != std::string::npos);
	REQUIRE(tp.describe().find("after kernel 6.1 \u2192 6.12") != std::string::npos);
	REQUIRE(st.kind == Regression::Kind::status);
	REQUIRE(st.case_name == "xfer");
	REQUIRE(st.to_status == "hang");
	// a stricter threshold flags the stream case too
	REQUIRE(find_regressions(runs, 0.05).size() == 3);
}

TEST_CASE("regressions: no false alarms, and pass->fail on one stack is one", "[history][regression]")
{
	// pass->fail on the same stack is a regression ("on the same stack")
	const auto same = find_regressions(
		{run(1, "6.1", {sc("a", Status::pass, 100.0)}), run(2, "6.1", {sc("a", Status::fail)})});
	REQUIRE(same.size() == 1);
	REQUIRE(same[0].changes.empty());
	REQUIRE(same[0].describe() == "a: pass -> fail on the same stack (runs 1 -> 2)");
	// a throughput drop on one stack is noise, not a regression
	REQUIRE(find_regressions(
			{run(1, "6.1", {sc("a", Status::pass, 100.0)}), run(2, "6.1", {sc("a", Status::pass, 10.0)})})
			.empty());
	// fail->fail; fail->pass; different devices are never compared
	REQUIRE(find_regressions({run(1, "6.1", {sc("a", Status::fail)}), run(2, "6.12", {sc("a", Status::fail)})})
			.empty());
	REQUIRE(find_regressions({run(1, "6.1", {sc("a", Status::fail)}), run(2, "6.12", {sc("a", Status::pass, 1.0)})})
			.empty());
	REQUIRE(find_regressions({run(1, "6.1", {sc("a", Status::pass, 100.0)}, "gpu A"),
				  run(2, "6.12", {sc("a", Status::pass, 10.0)}, "gpu B")})
			.empty());
	// a drop on a new kernel is reported when it happened, even after going back to
	// the old kernel; the way back (faster) is not a regression
	const auto back = find_regressions({run(1, "6.1", {sc("a", Status::pass, 100.0)}),
					    run(2, "6.12", {sc("a", Status::pass, 50.0)}),
					    run(3, "6.1", {sc("a", Status::pass, 100.0)})});
	REQUIRE(back.size() == 1);
	REQUIRE(back[0].to_run == 2);
}
