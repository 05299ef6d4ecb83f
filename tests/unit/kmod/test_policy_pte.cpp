// Tests of kmod/rdnafix_pte.h: the GFX10 PTE MTYPE rewrite, which MTYPEs amdgpu
// chose may be replaced (mtype_override), the PTE flag-word check of the hook, and
// the counters the module keeps from the result.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "policy_support.hpp"
#include "rdnafix_policy.h"

using namespace kmod_test;

namespace {

constexpr std::uint64_t kValid = 1ULL;

} // namespace

TEST_CASE("PTE MTYPE rewrite: bits 50:48 only, class by the SYSTEM bit, NC only by default", "[pte]")
{
	// AMDGPU_PTE_SYSTEM bit 1, AMDGPU_PTE_MTYPE_NV10(a) = a << 48, mask 7 << 48 (amdgpu_vm.h)
	CHECK(RDNAFIX_PTE_SYSTEM == kSystem);
	CHECK(RDNAFIX_PTE_VALID == kValid);
	CHECK(RDNAFIX_PTE_MTYPE_MASK == kMtypeMask);
	CHECK(RDNAFIX_PTE_PRT == kPrt);

	const std::uint64_t other_bits = 0xFFFFFFFFFFFFFFFFULL & ~kMtypeMask & ~kPrt;
	const std::uint64_t base = GENERATE(0x1ULL, 0x61ULL, other_bits & ~kSystem);
	for (int override = RDNAFIX_OVERRIDE_NC; override <= RDNAFIX_OVERRIDE_ANY; override++) {
		for (int sys_bit = 0; sys_bit < 2; sys_bit++) {
			for (unsigned before = 0; before < 8; before++) {
				for (int pol_sys = RDNAFIX_MTYPE_KEEP; pol_sys <= RDNAFIX_MTYPE_UC; pol_sys++) {
					for (int pol_vram = RDNAFIX_MTYPE_KEEP; pol_vram <= RDNAFIX_MTYPE_UC;
					     pol_vram++) {
						const std::uint64_t pte = with_mtype(
							sys_bit ? (base | kSystem) : (base & ~kSystem), before);
						const int want = sys_bit ? pol_sys : pol_vram;
						INFO("pte " << std::hex << pte << std::dec << " sys " << pol_sys
							    << " vram " << pol_vram << " override " << override);
						std::uint64_t out = 0;
						const int act = rdnafix_pte_apply(pte, pol_sys, pol_vram, override,
										  false, &out);
						// amdgpu's deliberate WC/CC/UC (and the invalid 4..7) only with "any"
						const bool chosen = before != 0 && override != RDNAFIX_OVERRIDE_ANY;
						if (want == RDNAFIX_MTYPE_KEEP ||
						    static_cast<unsigned>(want) == before || chosen) {
							CHECK(act == RDNAFIX_PTE_UNCHANGED);
							CHECK(out == pte);
						} else {
							CHECK(act == RDNAFIX_PTE_REWRITE);
							CHECK(out == with_mtype(pte, static_cast<unsigned>(want)));
							CHECK((out & ~kMtypeMask) == (pte & ~kMtypeMask));
							CHECK(rdnafix_pte_mtype(out) == want);
						}
						// dry run: same decision, nothing changes
						std::uint64_t dry = 0;
						const int dact =
							rdnafix_pte_apply(pte, pol_sys, pol_vram, override, true, &dry);
						CHECK(dry == pte);
						CHECK(dact == (act == RDNAFIX_PTE_REWRITE ? RDNAFIX_PTE_WOULD_REWRITE
											  : RDNAFIX_PTE_UNCHANGED));
					}
				}
			}
		}
	}
}

TEST_CASE("PTE rewrite respects amdgpu's deliberate UC unless mtype_override=any", "[pte]")
{
	std::uint64_t out = 0;
	const std::uint64_t gtt_nc = kValid | kSystem | 0x60;
	const std::uint64_t gtt_uc = with_mtype(gtt_nc, RDNAFIX_MTYPE_UC); // KFD coherent, doorbell, P2P
	// default: NC -> WC, UC stays UC
	CHECK(rdnafix_pte_apply(gtt_nc, RDNAFIX_MTYPE_WC, RDNAFIX_MTYPE_KEEP, RDNAFIX_OVERRIDE_NC, false, &out) ==
	      RDNAFIX_PTE_REWRITE);
	CHECK(out == with_mtype(gtt_nc, RDNAFIX_MTYPE_WC));
	CHECK(rdnafix_pte_apply(gtt_uc, RDNAFIX_MTYPE_WC, RDNAFIX_MTYPE_KEEP, RDNAFIX_OVERRIDE_NC, false, &out) ==
	      RDNAFIX_PTE_UNCHANGED);
	CHECK(out == gtt_uc);
	// opt-in: UC is overridden too
	CHECK(rdnafix_pte_apply(gtt_uc, RDNAFIX_MTYPE_WC, RDNAFIX_MTYPE_KEEP, RDNAFIX_OVERRIDE_ANY, false, &out) ==
	      RDNAFIX_PTE_REWRITE);
	CHECK(out == with_mtype(gtt_nc, RDNAFIX_MTYPE_WC));
	// an invalid entry (VALID clear: not a mapping) is never touched, whatever the override
	for (int ov : {RDNAFIX_OVERRIDE_NC, RDNAFIX_OVERRIDE_ANY}) {
		CHECK(rdnafix_pte_apply(gtt_nc & ~kValid, RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_UC, ov, false, &out) ==
		      RDNAFIX_PTE_UNCHANGED);
		CHECK(out == (gtt_nc & ~kValid));
	}
	// an unknown override value behaves as the safe default
	CHECK(rdnafix_pte_apply(gtt_uc, RDNAFIX_MTYPE_WC, RDNAFIX_MTYPE_KEEP, 7, false, &out) == RDNAFIX_PTE_UNCHANGED);
}

TEST_CASE("mtype_override accepts exactly nc and any", "[pte][params]")
{
	int v = -1;
	CHECK(rdnafix_parse_override("nc", &v) == 0);
	CHECK(v == RDNAFIX_OVERRIDE_NC);
	CHECK(rdnafix_parse_override("any\n", &v) == 0);
	CHECK(v == RDNAFIX_OVERRIDE_ANY);
	for (const std::string in : {"", "NC", "uc", "all", "any ", "1", "0", "nc,any", "anyx"}) {
		int w = 42;
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_override(in.c_str(), &w) == -EINVAL);
		CHECK(w == 42);
	}
	CHECK(rdnafix_parse_override(nullptr, &v) == -EINVAL);
	CHECK(std::string(rdnafix_override_name(RDNAFIX_OVERRIDE_ANY)) == "any");
	CHECK(std::string(rdnafix_override_name(5)) == "invalid");
}

TEST_CASE("PTE flag word: the bits a GMC v10 PTE flag value can hold", "[pte]")
{
	// valid..writeable, fragment 11:7, MTYPE 50:48, PRT 51, LOG 55, TF 56, NOALLOC 58
	CHECK(rdnafix_pte_is_flag_word(0));
	CHECK(rdnafix_pte_is_flag_word(0xfffULL | (0xfULL << 48) | (1ULL << 55) | (1ULL << 56) | (1ULL << 58)));
	for (unsigned bit : {12u, 20u, 36u, 47u, 52u, 53u, 54u, 57u, 59u, 63u}) {
		INFO("bit " << bit);
		CHECK_FALSE(rdnafix_pte_is_flag_word(kValid | (1ULL << bit)));
	}
	// a kernel stack address is not a flag word
	CHECK_FALSE(rdnafix_pte_is_flag_word(0xffffc90000a3fd48ULL));
}

TEST_CASE("PTE rewrite: class selection, PRT and invalid policy values", "[pte]")
{
	std::uint64_t out = 0;
	const int nc = RDNAFIX_OVERRIDE_NC;
	const std::uint64_t gtt = kValid | kSystem | 0x60;
	const std::uint64_t vram = kValid | 0x60;
	CHECK(rdnafix_pte_apply(gtt, RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, nc, false, &out) == RDNAFIX_PTE_REWRITE);
	CHECK(out == (gtt | (3ULL << 48)));
	CHECK(rdnafix_pte_apply(vram, RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, nc, false, &out) == RDNAFIX_PTE_UNCHANGED);
	CHECK(out == vram);
	CHECK(rdnafix_pte_apply(vram, RDNAFIX_MTYPE_KEEP, RDNAFIX_MTYPE_CC, nc, false, &out) == RDNAFIX_PTE_REWRITE);
	CHECK(out == (vram | (2ULL << 48)));
	CHECK(rdnafix_pte_apply(gtt, RDNAFIX_MTYPE_KEEP, RDNAFIX_MTYPE_CC, nc, false, &out) == RDNAFIX_PTE_UNCHANGED);
	// PRT entries are left alone
	CHECK(rdnafix_pte_apply(kPrt | kSystem | kValid, RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_UC, RDNAFIX_OVERRIDE_ANY,
				false, &out) == RDNAFIX_PTE_UNCHANGED);
	CHECK(out == (kPrt | kSystem | kValid));
	// a policy value outside NC..UC never writes the field
	CHECK(rdnafix_pte_apply(gtt, 4, 7, nc, false, &out) == RDNAFIX_PTE_UNCHANGED);
	CHECK(out == gtt);
	CHECK(rdnafix_pte_apply(gtt, -5, -5, nc, false, &out) == RDNAFIX_PTE_UNCHANGED);
}

TEST_CASE("PTE counters as the module keeps them, including dry run", "[pte]")
{
	// A mix like a real mapping run: GTT NC, GTT UC (coherent), VRAM NC, VRAM UC, PRT, GTT NC,
	// and a GTT entry without VALID (system pages not bound).
	const std::vector<std::uint64_t> ptes = {
		0x61ULL | kSystem,      0x61ULL | kSystem | (3ULL << 48), 0x61ULL,
		0x61ULL | (3ULL << 48), 0x61ULL | kSystem | kPrt,         0x61ULL | kSystem,
		0x60ULL | kSystem,
	};
	struct Counters {
		unsigned calls = 0, rewrites = 0, would = 0;
	};
	auto run = [&](int sys, int vr, int ov, bool dry, std::vector<std::uint64_t> *outs) {
		Counters c;
		for (auto p : ptes) {
			std::uint64_t o = 0;
			c.calls++;
			switch (rdnafix_pte_apply(p, sys, vr, ov, dry, &o)) {
			case RDNAFIX_PTE_REWRITE:
				c.rewrites++;
				c.would++;
				break;
			case RDNAFIX_PTE_WOULD_REWRITE:
				c.would++;
				break;
			default:
				break;
			}
			outs->push_back(o);
		}
		return c;
	};
	std::vector<std::uint64_t> o1, o2, o3, o4;
	Counters live = run(RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, RDNAFIX_OVERRIDE_NC, false, &o1);
	CHECK(live.calls == 7);
	CHECK(live.rewrites == 2); // the two valid GTT NC entries
	CHECK(live.would == 2);
	Counters dry = run(RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, RDNAFIX_OVERRIDE_NC, true, &o2);
	CHECK(dry.rewrites == 0);
	CHECK(dry.would == 2);
	CHECK(o2 == ptes); // dry run changes nothing
	// default: amdgpu's UC (GTT and VRAM) is kept; only VRAM NC -> WC
	Counters both = run(RDNAFIX_MTYPE_NC, RDNAFIX_MTYPE_WC, RDNAFIX_OVERRIDE_NC, false, &o3);
	CHECK(both.rewrites == 1);
	CHECK(o3[1] == ptes[1]);
	CHECK(o3[3] == ptes[3]);
	// opt-in: GTT UC -> NC, VRAM NC -> WC, VRAM UC -> WC
	Counters any = run(RDNAFIX_MTYPE_NC, RDNAFIX_MTYPE_WC, RDNAFIX_OVERRIDE_ANY, false, &o4);
	CHECK(any.rewrites == 3);
}
