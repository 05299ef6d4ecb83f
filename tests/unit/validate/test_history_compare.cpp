// compare_runs: each run against the run before it on its device names the
// stack facts that changed and the cases that changed ("kernel 6.12.57 →
// 6.12.63; everything else equal: conv.fwd_3x3 pass → fail"), a pass→fail on
// one stack included; old runs without a stored stack still compare; the
// listing and its JSON carry the same.
#include <catch2/catch_test_macros.hpp>

#include "history/history.hpp"
#include "render.hpp"

using namespace rdnafix::validate;

namespace {

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

using Facts = std::vector<std::pair<std::string, std::string>>;

StoredRun run(std::int64_t id, const std::string &at, Facts facts, std::vector<StoredCase> cases,
	      const std::string &device = "gpu0")
{
	StoredRun r;
	r.id = id;
	r.info.started_at = at;
	r.info.device = device;
	for (const auto &[n, v] : facts) {
		r.info.stack.set(n, v);
		if (n == "kernel")
			r.info.kernel_release = v;
	}
	r.cases = std::move(cases);
	return r;
}

const Facts base{{"kernel", "6.12.57"}, {"amdgpu.noretry", "0"}, {"hip", "6.2.41133"}};

Facts with(Facts f, const std::string &name, const std::string &value)
{
	for (auto &[n, v] : f)
		if (n == name) {
			v = value;
			return f;
		}
	f.emplace_back(name, value);
	return f;
}

} // namespace

TEST_CASE("compare: a kernel change and a case that now fails, in one line", "[history][compare]")
{
	const std::vector<StoredRun> runs{
		run(5, "2026-11-20T09:00:00Z", base, {sc("conv.fwd_3x3", Status::pass, 100.0), sc("s", Status::pass)}),
		run(7, "2026-11-24T10:00:00Z", with(base, "kernel", "6.12.63"),
		    {sc("conv.fwd_3x3", Status::fail), sc("s", Status::pass)}),
	};
	const auto c = compare_runs(runs);
	REQUIRE(c.size() == 1);
	CHECK(c[0].run == 7);
	CHECK(c[0].against == 5);
	CHECK(c[0].has_regression());
	CHECK(c[0].describe() == "run 7 (2026-11-24 10:00, after run 5): kernel 6.12.57 \u2192 6.12.63; everything "
				 "else equal: conv.fwd_3x3 pass \u2192 fail");
	const auto r = find_regressions(runs);
	REQUIRE(r.size() == 1);
	CHECK(r[0].describe() == "conv.fwd_3x3: pass -> fail after kernel 6.12.57 \u2192 6.12.63 (runs 5 -> 7)");
}

TEST_CASE("compare: several changes, the environment before module parameters", "[history][compare]")
{
	Facts after = with(with(base, "amdgpu.noretry", "1"), "env.HSA_OVERRIDE_GFX_VERSION", "10.3.0");
	const auto c = compare_runs({run(1, "2026-11-20T09:00:00Z", base, {sc("a", Status::pass)}),
				     run(2, "2026-11-21T09:00:00Z", after, {sc("a", Status::pass)})});
	REQUIRE(c.size() == 1);
	CHECK_FALSE(c[0].has_regression());
	CHECK(c[0].describe() ==
	      "run 2 (2026-11-21 09:00, after run 1): env.HSA_OVERRIDE_GFX_VERSION unset \u2192 10.3.0; "
	      "amdgpu.noretry 0 \u2192 1; everything else equal: no case changed");
}

TEST_CASE("compare: pass→fail on the same stack is reported, fail→pass listed but not a regression",
	  "[history][compare]")
{
	const std::vector<StoredRun> runs{
		run(5, "2026-11-20T09:00:00Z", base, {sc("a", Status::pass), sc("b", Status::fail)}),
		run(6, "2026-11-20T10:00:00Z", base, {sc("a", Status::pass), sc("b", Status::fail)}), // nothing new
		run(7, "2026-11-20T11:00:00Z", base, {sc("a", Status::crash), sc("b", Status::pass)}),
	};
	const auto c = compare_runs(runs);
	REQUIRE(c.size() == 1);
	CHECK(c[0].describe() ==
	      "run 7 (2026-11-20 11:00): same stack as run 6: a pass \u2192 crash, b fail \u2192 pass");
	REQUIRE(c[0].cases.size() == 2);
	CHECK(c[0].cases[0].regression);
	CHECK_FALSE(c[0].cases[1].regression);
	CHECK(find_regressions(runs).size() == 1);
}

TEST_CASE("compare: a run that did not run names the change; the next run compares with the last results",
	  "[history][compare]")
{
	StoredRun none = run(2, "2026-11-22T08:00:00Z", with(base, "kernel", "6.12.63"), {});
	none.info.not_run = "no_runtime";
	const std::vector<StoredRun> runs{
		run(1, "2026-11-20T09:00:00Z", base, {sc("a", Status::pass)}),
		none,
		run(3, "2026-11-22T09:00:00Z", with(with(base, "kernel", "6.12.63"), "hip", "6.4.43482"),
		    {sc("a", Status::fail)}),
	};
	const auto c = compare_runs(runs);
	REQUIRE(c.size() == 2);
	CHECK(c[0].describe() == "run 2 (2026-11-22 08:00, after run 1): kernel 6.12.57 \u2192 6.12.63; everything "
				 "else equal: not run (no_runtime)");
	CHECK(c[1].describe() == "run 3 (2026-11-22 09:00, after run 2): hip 6.2.41133 \u2192 6.4.43482; everything "
				 "else equal: a pass (run 1) \u2192 fail");
	const auto r = find_regressions(runs);
	REQUIRE(r.size() == 1);
	CHECK(r[0].from_run == 1);
	CHECK(r[0].changes.size() == 2); // run 1 -> run 3: kernel and hip
}

TEST_CASE("compare: throughput drops count across a stack change only, with the unit", "[history][compare]")
{
	const std::vector<StoredRun> runs{
		run(1, "2026-11-20T09:00:00Z", base,
		    {sc("conv", Status::pass, 1000.0), sc("copy", Status::pass, {}, 50.0)}),
		run(2, "2026-11-20T10:00:00Z", base,
		    {sc("conv", Status::pass, 500.0), sc("copy", Status::pass, {}, 50.0)}),
		run(3, "2026-11-21T10:00:00Z", with(base, "kernel", "6.12.63"),
		    {sc("conv", Status::pass, 400.0), sc("copy", Status::pass, {}, 40.0)}),
	};
	const auto c = compare_runs(runs);
	REQUIRE(c.size() == 1); // run 2: the same stack, a slower conv is noise
	CHECK(c[0].describe() ==
	      "run 3 (2026-11-21 10:00, after run 2): kernel 6.12.57 \u2192 6.12.63; everything "
	      "else equal: conv 500 \u2192 400 GFLOP/s (20.0 % lower), copy 50 \u2192 40 GB/s (20.0 % "
	      "lower)");
	CHECK(find_regressions(runs, 0.25).empty());
}

TEST_CASE("compare: devices are compared each with itself", "[history][compare]")
{
	const auto c = compare_runs({
		run(1, "2026-11-20T09:00:00Z", base, {sc("a", Status::pass)}, "gpu A"),
		run(2, "2026-11-20T09:10:00Z", with(base, "kernel", "6.1"), {sc("a", Status::fail)}, "gpu B"),
		run(3, "2026-11-20T09:20:00Z", base, {sc("a", Status::pass)}, "gpu A"),
	});
	CHECK(c.empty());
}

TEST_CASE("compare: a run recorded before schema 5 compares by kernel and parameters only", "[history][compare]")
{
	StoredRun old = run(1, "2026-10-01T09:00:00Z", {{"kernel", "6.12.57"}, {"amdgpu.noretry", "0"}},
			    {sc("a", Status::pass)});
	old.stack_legacy = true;
	Facts now = with(with(base, "env.HSA_OVERRIDE_GFX_VERSION", "10.3.0"), "gpu.0000:03:00.0", "gfx1031 1002:73df");
	now = with(now, "rdnafix.version", "0.4.0");
	// Everything it could record is equal: the same stack, no new facts named.
	auto c = compare_runs({old, run(2, "2026-11-20T09:00:00Z", now, {sc("a", Status::fail)})});
	REQUIRE(c.size() == 1);
	CHECK(c[0].same_stack());
	CHECK(c[0].describe() == "run 2 (2026-11-20 09:00): same stack as run 1: a pass \u2192 fail");
	// A kernel change is named, nothing else.
	c = compare_runs({old, run(2, "2026-11-20T09:00:00Z", with(now, "kernel", "6.12.63"), {})});
	REQUIRE(c.size() == 1);
	REQUIRE(c[0].changes.size() == 1);
	CHECK(c[0].changes[0].name == "kernel");
}

TEST_CASE("history listing: what changed and the regressions, in text and JSON, escaped", "[history][compare]")
{
	const std::vector<StoredRun> runs{
		run(1, "2026-11-20T09:00:00Z", base, {sc("a", Status::pass)}),
		run(2, "2026-11-21T09:00:00Z", with(base, "env.CUDA_VISIBLE_DEVICES", "0\x1b[2J"),
		    {sc("a", Status::fail)}),
	};
	const auto cmps = compare_runs(runs);
	const auto regs = find_regressions(runs);
	const std::string t = render_history(runs, regs, cmps);
	INFO(t);
	CHECK(t.find("what changed (each run against the run before it on its device):\n  run 2 (2026-11-21 09:00, "
		     "after run 1): env.CUDA_VISIBLE_DEVICES unset \u2192 0\\e[2J; everything else equal: a pass "
		     "\u2192 "
		     "fail\n") != std::string::npos);
	CHECK(t.find("1 regression(s):\n  a: pass -> fail after env.CUDA_VISIBLE_DEVICES unset \u2192 0\\e[2J (runs 1 "
		     "-> 2)\n") != std::string::npos);
	CHECK(t.find(runs[1].info.stack.key().substr(0, 8) + "  fail\n") != std::string::npos);
	const auto j = render_history_json(runs, regs, cmps);
	REQUIRE(j["comparisons"].size() == 1);
	CHECK(j["comparisons"][0]["changes"][0]["from"].is_null());
	CHECK(j["comparisons"][0]["changes"][0]["to"] == "0\x1b[2J"); // JSON carries the value, escaped by the encoder
	CHECK(j["comparisons"][0]["regression"] == true);
	CHECK(j["regressions"][0]["same_stack"] == false);
	CHECK(j["runs"][1]["verdict"] == "fail");
	CHECK(j["runs"][1]["stack"]["env.CUDA_VISIBLE_DEVICES"] == "0\x1b[2J");
	const std::string none = render_history({runs[0]}, {}, {});
	CHECK(none.find("no stack or case changes between runs\nno regressions\n") != std::string::npos);
	// A run without cases that did not run is listed with its reason.
	StoredRun idle = run(3, "2026-11-22T09:00:00Z", base, {});
	idle.info.not_run = "no_runtime";
	const std::string listed = render_history({runs[0], idle}, {}, compare_runs({runs[0], idle}));
	INFO(listed);
	CHECK(listed.find("  not run (no_runtime)\n") != std::string::npos);
	CHECK(listed.find("no stack or case changes between runs\n") != std::string::npos); // same stack, nothing ran
	CHECK(render_history_json({idle}, {}, {})["runs"][0]["verdict"] == "not_run");
}
