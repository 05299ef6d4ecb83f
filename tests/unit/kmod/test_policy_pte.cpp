// Tests of kmod/rdnafix_pte.h: the GFX10 PTE MTYPE rewrite and the counters
// the module keeps from its result.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include <cstdint>
#include <vector>

#include "policy_support.hpp"
#include "rdnafix_policy.h"

using namespace kmod_test;

TEST_CASE("PTE MTYPE rewrite: bits 50:48 only, class by the SYSTEM bit", "[pte]")
{
	// AMDGPU_PTE_SYSTEM bit 1, AMDGPU_PTE_MTYPE_NV10(a) = a << 48, mask 7 << 48 (amdgpu_vm.h)
	CHECK(RDNAFIX_PTE_SYSTEM == kSystem);
	CHECK(RDNAFIX_PTE_MTYPE_MASK == kMtypeMask);
	CHECK(RDNAFIX_PTE_PRT == kPrt);

	const std::uint64_t other_bits = 0xFFFFFFFFFFFFFFFFULL & ~kMtypeMask & ~kPrt;
	const std::uint64_t base = GENERATE(0x1ULL, 0x61ULL, other_bits & ~kSystem);
	for (int sys_bit = 0; sys_bit < 2; sys_bit++) {
		for (unsigned before = 0; before < 8; before++) {
			for (int pol_sys = RDNAFIX_MTYPE_KEEP; pol_sys <= RDNAFIX_MTYPE_UC; pol_sys++) {
				for (int pol_vram = RDNAFIX_MTYPE_KEEP; pol_vram <= RDNAFIX_MTYPE_UC; pol_vram++) {
					const std::uint64_t pte =
						with_mtype(sys_bit ? (base | kSystem) : (base & ~kSystem), before);
					const int want = sys_bit ? pol_sys : pol_vram;
					INFO("pte " << std::hex << pte << std::dec << " sys " << pol_sys << " vram "
						    << pol_vram);
					std::uint64_t out = 0;
					const int act = rdnafix_pte_apply(pte, pol_sys, pol_vram, false, &out);
					if (want == RDNAFIX_MTYPE_KEEP || static_cast<unsigned>(want) == before) {
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
					const int dact = rdnafix_pte_apply(pte, pol_sys, pol_vram, true, &dry);
					CHECK(dry == pte);
					CHECK(dact == (act == RDNAFIX_PTE_REWRITE ? RDNAFIX_PTE_WOULD_REWRITE
										  : RDNAFIX_PTE_UNCHANGED));
				}
			}
		}
	}
}

TEST_CASE("PTE rewrite: class selection, PRT and invalid policy values", "[pte]")
{
	std::uint64_t out = 0;
	// system memory (GTT) with NC -> uc for sysmem only
	const std::uint64_t gtt = 0x1ULL | kSystem | 0x60;
	const std::uint64_t vram = 0x1ULL | 0x60;
	CHECK(rdnafix_pte_apply(gtt, RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, false, &out) == RDNAFIX_PTE_REWRITE);
	CHECK(out == (gtt | (3ULL << 48)));
	CHECK(rdnafix_pte_apply(vram, RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, false, &out) == RDNAFIX_PTE_UNCHANGED);
	CHECK(out == vram);
	CHECK(rdnafix_pte_apply(vram, RDNAFIX_MTYPE_KEEP, RDNAFIX_MTYPE_CC, false, &out) == RDNAFIX_PTE_REWRITE);
	CHECK(out == (vram | (2ULL << 48)));
	CHECK(rdnafix_pte_apply(gtt, RDNAFIX_MTYPE_KEEP, RDNAFIX_MTYPE_CC, false, &out) == RDNAFIX_PTE_UNCHANGED);
	// PRT entries are left alone
	CHECK(rdnafix_pte_apply(kPrt | kSystem, RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_UC, false, &out) ==
	      RDNAFIX_PTE_UNCHANGED);
	CHECK(out == (kPrt | kSystem));
	// a policy value outside NC..UC never writes the field
	CHECK(rdnafix_pte_apply(gtt, 4, 7, false, &out) == RDNAFIX_PTE_UNCHANGED);
	CHECK(out == gtt);
	CHECK(rdnafix_pte_apply(gtt, -5, -5, false, &out) == RDNAFIX_PTE_UNCHANGED);
}

TEST_CASE("PTE counters as the module keeps them, including dry run", "[pte]")
{
	// A mix like a real mapping run: GTT NC, GTT UC (coherent), VRAM NC, VRAM UC, PRT.
	const std::vector<std::uint64_t> ptes = {
		0x61ULL | kSystem,      0x61ULL | kSystem | (3ULL << 48), 0x61ULL,
		0x61ULL | (3ULL << 48), 0x61ULL | kSystem | kPrt,         0x61ULL | kSystem,
	};
	struct Counters {
		unsigned calls = 0, rewrites = 0, would = 0;
	};
	auto run = [&](int sys, int vr, bool dry, std::vector<std::uint64_t> *outs) {
		Counters c;
		for (auto p : ptes) {
			std::uint64_t o = 0;
			c.calls++;
			switch (rdnafix_pte_apply(p, sys, vr, dry, &o)) {
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
	std::vector<std::uint64_t> o1, o2;
	Counters live = run(RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, false, &o1);
	CHECK(live.calls == 6);
	CHECK(live.rewrites == 2); // the two GTT NC entries
	CHECK(live.would == 2);
	Counters dry = run(RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, true, &o2);
	CHECK(dry.rewrites == 0);
	CHECK(dry.would == 2);
	CHECK(o2 == ptes); // dry run changes nothing
	std::vector<std::uint64_t> o3;
	Counters both = run(RDNAFIX_MTYPE_NC, RDNAFIX_MTYPE_WC, false, &o3);
	CHECK(both.rewrites == 3); // GTT UC -> NC, VRAM NC -> WC, VRAM UC -> WC
}
