// Knowledge rules: noretry default history, XNACK, override verdicts, ISA
// families, TTM ceiling.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "core/parse.hpp"
#include "core/rules.hpp"

using Catch::Matchers::ContainsSubstring;
using rdnafix::core::GcVersion;
using rdnafix::core::GfxTarget;
using rdnafix::core::KernelVersion;
namespace rules = rdnafix::rules;

namespace {
KernelVersion kv(const char *release)
{
	auto k = rdnafix::core::parse_kernel_release(release);
	REQUIRE(k.ok());
	return *k;
}
constexpr GcVersion kNavi10{10, 1, 10};
constexpr GcVersion kNavi14{10, 1, 1};
constexpr GcVersion kNavi21{10, 3, 0};
constexpr GcVersion kNavi22{10, 3, 2};
constexpr GcVersion kRembrandt{10, 3, 3};
constexpr GcVersion kMendocino{10, 3, 7};
constexpr GcVersion kVega10{9, 0, 1};
constexpr GcVersion kRaven{9, 1, 0};
constexpr GcVersion kRenoir{9, 3, 0};
constexpr GcVersion kStrixHalo{11, 5, 1};
} // namespace

TEST_CASE("noretry: an explicit parameter always wins", "[rules][noretry]")
{
	for (const char *k : {"5.10.0-20-amd64", "6.1.0-56-amd64", "6.12.117+deb12-amd64", "7.2.13+deb14-amd64"}) {
		auto d0 = rules::effective_noretry(kv(k), kNavi22, 0);
		CHECK(d0.value == 0);
		CHECK(d0.from_parameter);
		CHECK_THAT(d0.explanation, ContainsSubstring("amdgpu.noretry=0 is set explicitly"));
		auto d1 = rules::effective_noretry(kv(k), kNavi10, 1);
		CHECK(d1.value == 1);
		CHECK(d1.from_parameter);
	}
	CHECK(rules::effective_noretry(kv("6.12.0"), kNavi10, 2).value == 1); // non-zero is true
	// The explanation still says what the default would have been.
	CHECK_THAT(rules::effective_noretry(kv("6.14.0-27-generic"), kNavi10, 0).explanation,
		   ContainsSubstring("the default for GC 10.1.10 on kernel 6.14.0 would be 0"));
	CHECK_THAT(rules::effective_noretry(kv("7.2.13"), kNavi10, 0).explanation, ContainsSubstring("would be 1"));
}

TEST_CASE("noretry: default by kernel and GC version (docs/amdgpu-facts.md §4)", "[rules][noretry]")
{
	struct Row {
		const char *kernel;
		GcVersion gc;
		int expected;
	};
	const Row rows[] = {
		// <= 5.17: every Navi 0; Vega10 1; Raven 0
		{"5.15.0-91-generic", kNavi10, 0},
		{"5.15.0-91-generic", kNavi22, 0},
		{"5.17.15", kRembrandt, 0},
		{"5.10.0-28-amd64", kVega10, 1},
		{"5.10.0-28-amd64", kRaven, 0},
		{"5.10.0-28-amd64", kRenoir, 0},
		// 5.18 - 6.0: 10.3.3-10.3.7 are 1; Navi21/22 still 0; RDNA1 0; Renoir 1
		{"5.18.0", kRembrandt, 1},
		{"6.0.12", kMendocino, 1},
		{"6.0.12", kNavi21, 0},
		{"5.19.0-50-generic", kNavi22, 0},
		{"6.0.0", kNavi10, 0},
		{"5.18.3", kRenoir, 1},
		// 6.1 - 6.17, 6.18.0: RDNA2 1, RDNA1 0
		{"6.1.0-56-amd64", kNavi22, 1},
		{"6.1.0-56-amd64", kNavi10, 0},
		{"6.12.117+deb12-amd64", kNavi14, 0},
		{"6.12.117+deb12-amd64", kNavi21, 1},
		{"6.14.0-27-generic", kNavi10, 0},
		{"6.17.0-5-generic", kNavi10, 0},
		{"6.18.0", kNavi10, 0},
		{"7.0.0", kNavi10, 0},
		{"6.8.0-40-generic", kStrixHalo, 1},
		// 7.1+: every GFX10 1
		{"7.1.0", kNavi10, 1},
		{"7.2.13+deb14-amd64", kNavi10, 1},
		{"7.2.13+deb14-amd64", kNavi22, 1},
	};
	for (const auto &r : rows) {
		INFO(r.kernel << " GC " << r.gc.to_string());
		auto d = rules::effective_noretry(kv(r.kernel), r.gc);
		CHECK(d.value == r.expected);
		CHECK_FALSE(d.from_parameter);
		CHECK(d.certain);
		// The printed rule cites the upstream function, not a file the user lacks.
		CHECK_THAT(d.explanation,
			   ContainsSubstring("drivers/gpu/drm/amd/amdgpu/amdgpu_gmc.c: amdgpu_gmc_noretry_set"));
		CHECK_THAT(d.explanation, ContainsSubstring(r.gc.to_string()));
	}
}

TEST_CASE("noretry: the 6.18.y / 7.0.y backport window is flagged uncertain for RDNA1 only", "[rules][noretry]")
{
	auto d = rules::effective_noretry(kv("6.18.5"), kNavi10);
	CHECK(d.value == 1);
	CHECK_FALSE(d.certain);
	CHECK_THAT(d.explanation, ContainsSubstring("older builds default to 0"));
	auto d2 = rules::effective_noretry(kv("7.0.3"), kNavi14);
	CHECK_FALSE(d2.certain);
	// RDNA2 is 1 on both sides of the change: certain.
	auto d3 = rules::effective_noretry(kv("6.18.5"), kNavi22);
	CHECK(d3.value == 1);
	CHECK(d3.certain);
}

TEST_CASE("kfd xnack: never for GC 10.1.1 and newer (12.1.0 again on 7.2)", "[rules]")
{
	CHECK_FALSE(rules::kfd_xnack_possible(kv("6.12.0"), kNavi10));
	CHECK_FALSE(rules::kfd_xnack_possible(kv("7.2.13"), kNavi22));
	CHECK_FALSE(rules::kfd_xnack_possible(kv("7.2.13"), kStrixHalo));
	CHECK(rules::kfd_xnack_possible(kv("6.12.0"), GcVersion{9, 4, 2}));
	CHECK(rules::kfd_xnack_possible(kv("7.2.13"), GcVersion{12, 1, 0}));
	CHECK_FALSE(rules::kfd_xnack_possible(kv("6.12.0"), GcVersion{12, 1, 0}));
}

TEST_CASE("override: equal to native is pointless", "[rules][override]")
{
	auto a = rules::assess_override({10, 3, 1}, {10, 3, 1});
	CHECK(a.verdict == rules::OverrideVerdict::pointless);
	CHECK_THAT(a.reason, ContainsSubstring("gfx1031"));
}

TEST_CASE("override: RDNA2 members -> 10.3.0 are ISA-safe workarounds", "[rules][override]")
{
	for (unsigned s : {1u, 2u, 3u, 4u, 5u, 6u}) {
		INFO("gfx103" << s);
		auto a = rules::assess_override({10, 3, s}, {10, 3, 0});
		CHECK(a.verdict == rules::OverrideVerdict::isa_safe);
		CHECK_THAT(a.reason, ContainsSubstring("gfx10-3-generic"));
		CHECK(rules::safe_override_for({10, 3, s}) == GfxTarget{10, 3, 0});
	}
	CHECK(rules::safe_override_for({10, 3, 0}) == std::nullopt); // native gfx1030
	CHECK(rules::assess_override({12, 0, 0}, {12, 0, 1}).verdict == rules::OverrideVerdict::isa_safe);
}

TEST_CASE("override: cross-family overrides are unsafe with the reason", "[rules][override]")
{
	auto rdna1 = rules::assess_override({10, 1, 0}, {10, 3, 0});
	CHECK(rdna1.verdict == rules::OverrideVerdict::unsafe);
	CHECK_THAT(rdna1.reason, ContainsSubstring("v_fmac_legacy_f32"));
	CHECK_THAT(rdna1.reason, ContainsSubstring("APERTURE_VIOLATION"));
	CHECK(rules::safe_override_for({10, 1, 0}) == std::nullopt);
	for (unsigned s : {1u, 2u, 3u})
		CHECK(rules::assess_override({10, 1, s}, {10, 3, 0}).verdict == rules::OverrideVerdict::unsafe);

	auto halo = rules::assess_override({11, 5, 1}, {11, 0, 0});
	CHECK(halo.verdict == rules::OverrideVerdict::unsafe);
	CHECK_THAT(halo.reason, ContainsSubstring("ROCm/ROCm#5824"));
	CHECK(rules::assess_override({11, 5, 0}, {11, 0, 0}).verdict == rules::OverrideVerdict::unsafe);
	CHECK(rules::assess_override({11, 0, 3}, {11, 5, 1}).verdict == rules::OverrideVerdict::unsafe);
	auto cdna = rules::assess_override({9, 0, 10}, {10, 3, 0}); // MI210 with a forgotten 10.3.0
	CHECK(cdna.verdict == rules::OverrideVerdict::unsafe);
	CHECK_THAT(cdna.reason, ContainsSubstring("ROCm/ROCm#5238"));
	CHECK(rules::assess_override({10, 3, 1}, {11, 0, 0}).verdict == rules::OverrideVerdict::unsafe);
}

TEST_CASE("override: gfx11 pairs follow the register file and the work-arounds", "[rules][override]")
{
	// gfx1102/gfx1103 have 1024 VGPRs per SIMD lane, gfx1100 1536: a caveat, not safe.
	for (unsigned s : {2u, 3u}) {
		auto a = rules::assess_override({11, 0, s}, {11, 0, 0});
		CHECK(a.verdict == rules::OverrideVerdict::works_not_guaranteed);
		CHECK_THAT(a.reason, ContainsSubstring("1536 VGPRs"));
		CHECK_THAT(a.reason, ContainsSubstring("ROCm/ROCm#4557"));
	}
	// gfx1101 has gfx1100's register file; gfx1100 code only adds a work-around.
	CHECK(rules::assess_override({11, 0, 1}, {11, 0, 0}).verdict == rules::OverrideVerdict::isa_safe);
	// gfx1101 code lacks gfx1100's user-sgpr-init16-bug work-around.
	auto back = rules::assess_override({11, 0, 0}, {11, 0, 1});
	CHECK(back.verdict == rules::OverrideVerdict::works_not_guaranteed);
	CHECK_THAT(back.reason, ContainsSubstring("user-sgpr-init16-bug"));
	// RDNA1: gfx1010 code runs on gfx1012; gfx1012 code may use dot instructions gfx1010 lacks.
	CHECK(rules::assess_override({10, 1, 2}, {10, 1, 0}).verdict == rules::OverrideVerdict::isa_safe);
	CHECK(rules::assess_override({10, 1, 0}, {10, 1, 2}).verdict == rules::OverrideVerdict::unsafe);
	CHECK(rules::safe_override_for({10, 1, 2}) == GfxTarget{10, 1, 0});
}

TEST_CASE("override: unknown targets", "[rules][override]")
{
	auto a = rules::assess_override({10, 3, 1}, {10, 3, 9});
	CHECK(a.verdict == rules::OverrideVerdict::unknown);
	CHECK_THAT(a.reason, ContainsSubstring("unrecognized id"));
	CHECK(rules::assess_override({8, 0, 3}, {9, 0, 0}).verdict == rules::OverrideVerdict::unknown);
	CHECK(rules::to_string(rules::OverrideVerdict::isa_safe) == "isa_safe");
}

TEST_CASE("isa families: the LLVM generic processor table", "[rules]")
{
	REQUIRE(rules::isa_families().size() == 4);
	CHECK(rules::isa_family_of({10, 3, 6})->generic_name == "gfx10-3-generic");
	CHECK(rules::isa_family_of({10, 1, 3})->generic_name == "gfx10-1-generic");
	CHECK(rules::isa_family_of({11, 5, 3})->generic_name == "gfx11-generic");
	CHECK(rules::isa_family_of({12, 0, 1})->generic_name == "gfx12-generic");
	CHECK(rules::isa_family_of({9, 4, 2}) == nullptr);
	CHECK(rules::isa_family_of({10, 3, 7}) == nullptr); // there is no gfx1037 target
	CHECK(rules::isa_family_of({10, 3, 0})->no_restrictions);
	CHECK_FALSE(rules::isa_family_of({11, 0, 0})->no_restrictions);
	CHECK(rules::is_known_rocm_target({9, 0, 10}));
	CHECK_FALSE(rules::is_known_rocm_target({10, 2, 0}));
}

TEST_CASE("ttm: pages_limit is counted in 4 KiB pages", "[rules]")
{
	// 31457280 pages = 120 GiB, a Strix Halo tuning value (128 GiB machine).
	CHECK(rules::ttm_pages_limit_bytes(31457280) == 120ULL * 1024 * 1024 * 1024);
	CHECK(rules::ttm_pages_limit_bytes(1) == 4096);
	CHECK(rules::ttm_pages_limit_bytes(0) == std::nullopt);
	CHECK(rules::ttm_pages_limit_bytes(~0ULL) == ~0ULL); // saturates
}

TEST_CASE("module parameter values: configured vs what the kernel prints", "[rules][params]")
{
	using rules::param_values_equal;
	CHECK(param_values_equal("1", "1") == true);
	CHECK(param_values_equal("65536", "-1") == false);
	CHECK(param_values_equal("+5", " 5\n") == true); // one '+' and white space, as before
	CHECK(param_values_equal("1", "Y") == true);     // booleans: the kernel prints Y/N
	CHECK(param_values_equal("off", "N") == true);
	CHECK(param_values_equal("0xfff7bfff", "4294426623") == true); // hex masks, decimal print
	CHECK(param_values_equal("4294426623", "0xfff7bfff") == true);
	CHECK(param_values_equal("0x10", "0X10") == true);
	CHECK(param_values_equal("0x10", "17") == false);
	CHECK(param_values_equal("10000", "10000") == true);
	CHECK(param_values_equal("abc", "abc") == true);
	CHECK(param_values_equal("abc", "def") == std::nullopt);  // strings cannot be compared
	CHECK(param_values_equal("0x10 ", "16") == std::nullopt); // hex only without white space
}

TEST_CASE("rocm support list", "[rules]")
{
	CHECK(rules::rocm_officially_supported("gfx1030"));
	CHECK(rules::rocm_officially_supported("gfx1201"));
	CHECK_FALSE(rules::rocm_officially_supported("gfx1031"));
	CHECK_FALSE(rules::rocm_officially_supported("gfx1010"));
}
