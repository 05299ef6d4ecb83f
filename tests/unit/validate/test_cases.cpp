// The case registry covers what the issue asks for, with valid shapes.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <set>

#include <catch2/matchers/catch_matchers.hpp>

#include "cases.hpp"

using namespace rdnafix::validate;

TEST_CASE("case registry: unique names, valid shapes, every case says where it comes from", "[cases]")
{
	std::set<std::string> names;
	for (const auto &c : all_cases()) {
		INFO(c.name);
		REQUIRE(names.insert(c.name).second);
		REQUIRE_FALSE(c.origin.empty());
		if (c.kind == CaseKind::conv2d || c.kind == CaseKind::selftest)
			REQUIRE(c.shape.check().empty());
	}
}

TEST_CASE("case registry: conv2d coverage required by the issue", "[cases]")
{
	std::set<int> ksizes;
	bool stride2 = false, pad = false, dil = false, grouped = false, depthwise = false, b1 = false, b32 = false,
	     odd = false, f16 = false, asym = false;
	std::set<MemKind> mems;
	for (const auto &c : all_cases()) {
		if (c.kind != CaseKind::conv2d)
			continue;
		const auto &s = c.shape;
		ksizes.insert(s.r);
		stride2 |= s.stride_h == 2;
		pad |= s.pad_h > 0;
		dil |= s.dil_h > 1;
		grouped |= s.groups > 1 && s.groups < s.c;
		depthwise |= s.groups == s.c && s.c > 1;
		b1 |= s.n == 1;
		b32 |= s.n == 32;
		odd |= s.h % 2 == 1;
		f16 |= c.dtype == DType::f16;
		asym |= s.r != s.s;
		mems.insert(c.mem);
	}
	REQUIRE(ksizes == std::set<int>{1, 3, 5, 7});
	REQUIRE((stride2 && pad && dil && grouped && depthwise && b1 && b32 && odd && f16 && asym));
	REQUIRE(mems.size() == 4);
}

TEST_CASE("case selection: quick is a subset of full; hidden and torch cases are only by name", "[cases]")
{
	const auto quick = select_cases(Selection::quick), full = select_cases(Selection::full);
	REQUIRE(quick.size() >= 10);
	REQUIRE(full.size() > quick.size());
	for (const auto *c : quick)
		REQUIRE(std::find(full.begin(), full.end(), c) != full.end());
	for (const auto *c : full) {
		REQUIRE_FALSE(c->hidden);
		REQUIRE(c->kind != CaseKind::torch);
	}
	REQUIRE(select_named({"selftest.segv"}).front()->hidden);
	REQUIRE_THROWS_WITH(select_named({"conv.nope"}),
			    "unknown case 'conv.nope'; `rdnactl validate --list` shows the valid names");
}

TEST_CASE("transfer sizes run from 4 KiB to 1 GiB", "[cases]")
{
	const auto full = transfer_sizes(true), quick = transfer_sizes(false);
	REQUIRE(full.front() == 4096);
	REQUIRE(full.back() == (std::size_t(1) << 30));
	REQUIRE(quick.back() == (std::size_t(64) << 20));
}
