// Tests of kmod/rdnafix_select.h: the targets/exclude selector syntax and the
// decision whether a device is targeted.
#include <catch2/catch_test_macros.hpp>

#include <string>
#include <vector>

#include "policy_support.hpp"
#include "rdnafix_policy.h"

using namespace kmod_test;

TEST_CASE("selector lists: valid syntax", "[selectors]")
{
	struct Case {
		std::string in;
		std::vector<int> kinds;
	};
	const std::vector<Case> cases = {
		{"rdna1", {RDNAFIX_SEL_RDNA1}},
		{"rdna1,rdna2", {RDNAFIX_SEL_RDNA1, RDNAFIX_SEL_RDNA2}},
		{"gfx1031", {RDNAFIX_SEL_GFX}},
		{"gfx1010,gfx1036", {RDNAFIX_SEL_GFX, RDNAFIX_SEL_GFX}},
		{"10000:03:00.0", {RDNAFIX_SEL_BDF}},
		{"ffffffff:00:00.0", {RDNAFIX_SEL_BDF}},
		{"dgpu,apu", {RDNAFIX_SEL_DGPU, RDNAFIX_SEL_APU}},
		{"0000:03:00.0", {RDNAFIX_SEL_BDF}},
		{"0000:0A:1f.7\n", {RDNAFIX_SEL_BDF}},
		{"rdna2,0001:c1:00.0,apu", {RDNAFIX_SEL_RDNA2, RDNAFIX_SEL_BDF, RDNAFIX_SEL_APU}},
	};
	for (const auto &c : cases) {
		INFO("list '" << c.in << "'");
		rdnafix_sel_list l{};
		unsigned bad = 99;
		REQUIRE(rdnafix_parse_sel_list(c.in.c_str(), false, &l, &bad) == 0);
		REQUIRE(l.count == c.kinds.size());
		for (size_t i = 0; i < c.kinds.size(); i++)
			CHECK(l.sel[i].kind == c.kinds[i]);
	}
	rdnafix_sel_list l{};
	REQUIRE(rdnafix_parse_sel_list("0001:c1:1f.5", false, &l, nullptr) == 0);
	CHECK(l.sel[0].bdf.domain == 1);
	CHECK(l.sel[0].bdf.bus == 0xc1);
	CHECK(l.sel[0].bdf.devfn == (0x1f << 3 | 5));
	CHECK(std::string(l.sel[0].text) == "0001:c1:1f.5");
	// PCI domains above 0xffff (VMD, Hyper-V) are not truncated
	REQUIRE(rdnafix_parse_sel_list("1a2b3:c1:00.1", false, &l, nullptr) == 0);
	CHECK(l.sel[0].bdf.domain == 0x1a2b3);
	REQUIRE(rdnafix_parse_sel_list("ffffffff:00:00.0", false, &l, nullptr) == 0);
	CHECK(l.sel[0].bdf.domain == 0xffffffffU);
	const rdnafix_dev far = make_dev(0x73df, "10000:03:00.0");
	const rdnafix_dev near = make_dev(0x73df, "0000:03:00.0");
	const rdnafix_sel_list only_far = parse_list("10000:03:00.0", false);
	CHECK(rdnafix_sel_list_match(&only_far, &far, rdnafix_gpu_lookup(far.vendor, far.device)) == 0);
	CHECK(rdnafix_sel_list_match(&only_far, &near, rdnafix_gpu_lookup(near.vendor, near.device)) == -1);

	// 16 entries are fine, and the empty list is fine for exclude only
	std::string sixteen;
	for (int i = 0; i < 16; i++)
		sixteen += (i ? "," : "") + std::string("rdna1");
	CHECK(rdnafix_parse_sel_list(sixteen.c_str(), false, &l, nullptr) == 0);
	CHECK(l.count == 16);
	CHECK(rdnafix_parse_sel_list("", true, &l, nullptr) == 0);
	CHECK(l.count == 0);
	CHECK(rdnafix_parse_sel_list("\n", true, &l, nullptr) == 0);
	CHECK(l.count == 0);
}

TEST_CASE("selector lists: invalid input is refused and the bad element located", "[selectors]")
{
	struct Case {
		std::string in;
		unsigned bad_off;
	};
	std::string seventeen;
	for (int i = 0; i < 17; i++)
		seventeen += (i ? "," : "") + std::string("rdna1");
	const std::vector<Case> cases = {
		{"", 0},
		{"rdna3", 0},
		{"rdna1,", 6},
		{",rdna1", 0},
		{"rdna1,,rdna2", 6},
		{"rdna1 ,rdna2", 0},
		{"rdna1, rdna2", 6},
		{"RDNA1", 0},
		{"gfx", 0},
		{"gfx1", 0},
		{"gfx10311", 0},
		{"GFX1031", 0},
		{"gfx103g", 0},
		{"rdna2,0000:03:00.8", 6},
		{"0000:03:20.0", 0},
		{"0000:3:00.0", 0},
		{"000000000:03:00.0", 0},
		{"000:03:00.0", 0},
		// gfxNNNN must name a GMC v10 target (issue 10): CDNA, RDNA3, and gfx1037 (KFD says gfx1036)
		{"gfx90a", 0},
		{"rdna2,gfx1100", 6},
		{"gfx1037", 0},
		{"gfx1151", 0},
		{"0000:03:00:0", 0},
		{"0000-03-00.0", 0},
		{"03:00.0", 0},
		{"apu,dgpu,x", 9},
		{"rdna1\n\n", 0},
		{seventeen, 96},
		{std::string(300, 'a'), 0},
		{"-1", 0},
	};
	for (const auto &c : cases) {
		INFO("list '" << c.in << "'");
		rdnafix_sel_list l{};
		l.count = 77;
		unsigned bad = 99;
		CHECK(rdnafix_parse_sel_list(c.in.c_str(), false, &l, &bad) == -EINVAL);
		CHECK(l.count == 77); // untouched
		CHECK(bad == c.bad_off);
	}
	// targets must not be empty, exclude may
	rdnafix_sel_list l{};
	CHECK(rdnafix_parse_sel_list("", false, &l, nullptr) == -EINVAL);
	CHECK(rdnafix_parse_sel_list(",", true, &l, nullptr) == -EINVAL);
}

TEST_CASE("selectors match RDNA1/RDNA2/RDNA3, APU/dGPU and PCI addresses", "[selectors]")
{
	const rdnafix_dev rx5700xt = make_dev(0x731f, "0000:03:00.0");  // RDNA1 dGPU gfx1010
	const rdnafix_dev rx6750xt = make_dev(0x73df, "0000:0c:00.0");  // RDNA2 dGPU gfx1031
	const rdnafix_dev rembrandt = make_dev(0x1681, "0000:e5:00.0"); // RDNA2 APU gfx1035
	const rdnafix_dev raphael = make_dev(0x164e, "0000:12:00.0");   // RDNA2 APU gfx1036
	const rdnafix_dev mendocino = make_dev(0x1506, "0000:04:00.0"); // GC 10.3.7, gfx1036
	const rdnafix_dev skillfish = make_dev(0x13fe, "0000:01:00.0"); // RDNA1 APU gfx1013
	const rdnafix_dev rx7900 = make_dev(0x744c, "0000:03:00.0");    // RDNA3: never
	const rdnafix_dev nvidia = make_dev(0x73df, "0000:0c:00.0", 0x10de);

	// default targets
	CHECK(targeted("rdna1,rdna2", "", rx5700xt));
	CHECK(targeted("rdna1,rdna2", "", rx6750xt));
	CHECK(targeted("rdna1,rdna2", "", rembrandt));
	CHECK(targeted("rdna1,rdna2", "", skillfish));
	CHECK_FALSE(targeted("rdna1,rdna2", "", rx7900));
	CHECK_FALSE(targeted("rdna1,rdna2", "", nvidia));

	// generation
	CHECK(targeted("rdna1", "", rx5700xt));
	CHECK(targeted("rdna1", "", skillfish));
	CHECK_FALSE(targeted("rdna1", "", rx6750xt));
	CHECK(targeted("rdna2", "", rx6750xt));
	CHECK_FALSE(targeted("rdna2", "", rx5700xt));

	// gfx target
	CHECK(targeted("gfx1031", "", rx6750xt));
	CHECK_FALSE(targeted("gfx1031", "", rx5700xt));
	CHECK(targeted("gfx1036", "", raphael));
	CHECK(targeted("gfx1036", "", mendocino));
	CHECK_FALSE(targeted("gfx1030", "", rx6750xt));

	// APU / dGPU
	CHECK(targeted("apu", "", rembrandt));
	CHECK(targeted("apu", "", skillfish));
	CHECK_FALSE(targeted("apu", "", rx6750xt));
	CHECK(targeted("dgpu", "", rx6750xt));
	CHECK_FALSE(targeted("dgpu", "", raphael));

	// PCI address
	CHECK(targeted("0000:0c:00.0", "", rx6750xt));
	CHECK(targeted("0000:0C:00.0", "", rx6750xt));
	CHECK_FALSE(targeted("0000:0c:00.1", "", rx6750xt));
	CHECK_FALSE(targeted("0001:0c:00.0", "", rx6750xt));

	// only GMC v10 parts, whatever the selectors say
	CHECK_FALSE(targeted("dgpu,apu,gfx1030,0000:03:00.0", "", rx7900));
	CHECK(decide("dgpu,apu,gfx1030,0000:03:00.0", "", rx7900).verdict == RDNAFIX_NOT_GFX10);

	// exclude wins
	CHECK_FALSE(targeted("rdna2", "0000:0c:00.0", rx6750xt));
	CHECK(targeted("rdna2", "0000:0c:00.0", rembrandt));
	CHECK_FALSE(targeted("rdna1,rdna2", "apu", rembrandt));
	CHECK(targeted("rdna1,rdna2", "apu", rx6750xt));
	CHECK_FALSE(targeted("rdna1,rdna2", "gfx1010", rx5700xt));

	// which selector decided
	auto d = decide("rdna1,gfx1031,dgpu", "", rx6750xt);
	CHECK(d.verdict == RDNAFIX_TARGETED);
	CHECK(d.sel == 1);
	d = decide("rdna2", "gfx1035,apu", rembrandt);
	CHECK(d.verdict == RDNAFIX_EXCLUDED);
	CHECK(d.sel == 0);
	d = decide("rdna1", "", rx6750xt);
	CHECK(d.verdict == RDNAFIX_NOT_SELECTED);
	CHECK(d.sel == -1);
}
