// Comparator metrics on hand-computed data, the per-element bound on a real
// float-accumulated conv2d, and --inject-error.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <limits>

#include "cases.hpp"
#include "cases/kinds.hpp"
#include "compare.hpp"
#include "conv_ref.hpp"

using namespace rdnafix::validate;
using Catch::Approx;

TEST_CASE("metrics: max abs, max rel, RMS / range on known numbers", "[compare]")
{
	const std::vector<double> ref{0.0, 1.0, -2.0, 4.0};
	const std::vector<double> absum{1.0, 1.0, 2.0, 4.0};
	const std::vector<float> got{0.0f, 1.5f, -2.0f, 3.0f}; // errors 0, 0.5, 0, 1
	Tolerance tol = tolerance_for(DType::f32);
	const auto m = measure(ref, absum, got, 4, tol);
	REQUIRE(m.count == 4);
	REQUIRE(m.max_abs == Approx(1.0));
	REQUIRE(m.max_rel == Approx(0.5)); // 0.5/1 beats 1/4; ref 0 is excluded
	REQUIRE(m.range == Approx(6.0));
	REQUIRE(m.rms_range == Approx(std::sqrt((0.25 + 1.0) / 4.0) / 6.0));
	REQUIRE(m.over_bound == 2);
	REQUIRE(m.worst_index == 1); // 0.5 at absum 1 is further outside its bound than 1 at absum 4
	const auto v = judge(m, tol);
	REQUIRE_FALSE(v.pass);
	REQUIRE(v.reason.find("2 of 4 elements outside the error bound") != std::string::npos);
}

TEST_CASE("metrics: identical data passes, NaN fails", "[compare]")
{
	const std::vector<double> ref{1.0, 2.0, 3.0};
	const std::vector<double> absum{1.0, 2.0, 3.0};
	std::vector<float> got{1.0f, 2.0f, 3.0f};
	const auto tol = tolerance_for(DType::f16);
	auto m = measure(ref, absum, got, 9, tol);
	REQUIRE(judge(m, tol).pass);
	REQUIRE(m.max_abs == 0);
	got[1] = std::numeric_limits<float>::quiet_NaN();
	m = measure(ref, absum, got, 9, tol);
	REQUIRE(m.nonfinite == 1);
	REQUIRE(m.worst_index == 1);
	REQUIRE(judge(m, tol).reason.find("NaN/Inf") != std::string::npos);
	REQUIRE_THROWS_AS(measure(ref, absum, std::vector<float>{1.0f}, 9, tol), std::invalid_argument);
}

TEST_CASE("the per-element bound accepts float accumulation and rejects a one-ulp-scale wrong answer", "[compare]")
{
	// Real CNN shapes from the registry at reduced spatial size, accumulated in float.
	for (const char *name : {"selftest.pass"}) {
		const CaseDef *c = find_case(name);
		REQUIRE(c);
		const auto r = cpu_conv_selfcheck(*c, false);
		INFO(r.reason);
		REQUIRE(r.status == Status::pass);
		REQUIRE(*r.max_abs > 0); // float accumulation really differs from the double reference
		REQUIRE(*r.max_abs < 1e-4);
	}
	// fp16 output rounding: a result rounded to fp16 passes with the f16 tolerance, fails with f32's.
	ConvShape s;
	s.c = 16, s.h = s.w = 9, s.k = 8, s.r = s.s = 3, s.pad_h = s.pad_w = 1;
	const auto x = random_inputs(s.x_elems(), 5, DType::f16);
	const auto w = random_inputs(s.w_elems(), 6, DType::f16);
	const auto ref = conv2d_reference(s, x, w);
	std::vector<float> half_out(ref.y.size());
	for (std::size_t i = 0; i < ref.y.size(); ++i)
		half_out[i] = static_cast<float>(static_cast<_Float16>(float(ref.y[i])));
	REQUIRE(judge(measure(ref.y, ref.absum, half_out, s.reduction(), tolerance_for(DType::f16)),
		      tolerance_for(DType::f16))
			.pass);
	REQUIRE_FALSE(judge(measure(ref.y, ref.absum, half_out, s.reduction(), tolerance_for(DType::f32)),
			    tolerance_for(DType::f32))
			      .pass);
}

TEST_CASE("error injection corrupts exactly one element and makes the case fail", "[compare][inject]")
{
	const CaseDef *c = find_case("selftest.pass");
	REQUIRE(c);
	const auto good = cpu_conv_selfcheck(*c, false);
	const auto bad = cpu_conv_selfcheck(*c, true);
	REQUIRE(good.status == Status::pass);
	REQUIRE(bad.status == Status::fail);
	REQUIRE(bad.reason.find("1 of ") == 0);
	REQUIRE(*bad.max_abs > 100);

	std::vector<float> v{1.0f, 2.0f, -3.0f, 4.0f};
	const auto idx = inject_error(v);
	REQUIRE(idx == 2);
	REQUIRE(v[0] == 1.0f);
	REQUIRE(v[1] == 2.0f);
	REQUIRE(v[3] == 4.0f);
	REQUIRE(v[2] == -3.0f + 1000.0f * 4.0f);
}

#include "render.hpp"

TEST_CASE("torch verdict: documented tolerances decide, skips pass through", "[compare][torch]")
{
	CaseResult r;
	r.name = "torch.conv2d";
	r.status = Status::skip;
	r.reason = "torch not importable: ModuleNotFoundError: No module named 'torch'";
	REQUIRE(judge_torch(r).status == Status::skip);
	r.status = Status::error; // the script's "measured" is not a valid status: how the parent sees it
	r.details = {{"worst", {{"rms_range_f32", 2e-7}, {"rms_range_f16", 3e-4}}}, {"nonfinite", 0}};
	REQUIRE(judge_torch(r).status == Status::error); // not marked as measured by the script
	r.details["measured"] = true;
	REQUIRE(judge_torch(r).status == Status::pass);
	r.details["worst"]["rms_range_f16"] = 0.05;
	auto j = judge_torch(r);
	REQUIRE(j.status == Status::fail);
	REQUIRE(j.reason.find("fp16") == 0);
	r.details["worst"]["rms_range_f16"] = 3e-4;
	r.details["worst"]["rms_range_f32"] = 1e-3; // what an injected error produces
	REQUIRE(judge_torch(r).status == Status::fail);
	r.details["worst"]["rms_range_f32"] = 2e-7;
	r.details["nonfinite"] = 3;
	REQUIRE(judge_torch(r).reason.find("3 NaN/Inf") == 0);
}

TEST_CASE("exit code and table: 0 only when every case passed or skipped", "[report]")
{
	CaseResult a, b;
	a.name = "a";
	a.status = Status::pass;
	a.gflops = 1234.5;
	b.name = "b";
	b.status = Status::skip;
	REQUIRE(exit_code_for({a, b}) == 0);
	for (Status s : {Status::fail, Status::crash, Status::hang, Status::error}) {
		b.status = s;
		REQUIRE(exit_code_for({a, b}) == 1);
	}
	const auto t = render_table({a, b});
	REQUIRE(t.find("case") == 0);
	REQUIRE(t.find("1234.5") != std::string::npos);
	REQUIRE(t.find("error") != std::string::npos);
}
