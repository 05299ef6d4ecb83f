// Tests of the GFX10 PCI-id table (kmod/rdnafix_gpu_ids.h, generated from
// userspace/data/gpu-database.tsv) and its lookup in kmod/rdnafix_policy.h.
#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/gpudb.hpp"
#include "rdnafix_policy.h"

TEST_CASE("GFX10 PCI table: ids, targets, generation, APU flag", "[table]")
{
	unsigned n = 0;
	const rdnafix_gpu_id *t = rdnafix_gpu_table(&n);
	REQUIRE(n == 68);
	std::set<std::uint16_t> ids;
	for (unsigned i = 0; i < n; i++) {
		INFO("device " << std::hex << t[i].device);
		CHECK(ids.insert(t[i].device).second); // unique
		CHECK((t[i].gen == RDNAFIX_GEN_RDNA1 || t[i].gen == RDNAFIX_GEN_RDNA2));
		const std::string target = t[i].target;
		CHECK(target.rfind(t[i].gen == RDNAFIX_GEN_RDNA1 ? "gfx101" : "gfx103", 0) == 0);
		CHECK(rdnafix_gpu_lookup(0x1002, t[i].device) == &t[i]);
	}
	struct Known {
		std::uint16_t id;
		const char *target;
		int gen;
		int apu;
	};
	// docs/amdgpu-facts.md §7: the GC versions gmc_v10_0 drives and the gfx target KFD reports for each
	const Known known[] = {
		{0x731f, "gfx1010", RDNAFIX_GEN_RDNA1, 0}, {0x7362, "gfx1011", RDNAFIX_GEN_RDNA1, 0},
		{0x7340, "gfx1012", RDNAFIX_GEN_RDNA1, 0}, {0x13fe, "gfx1013", RDNAFIX_GEN_RDNA1, 1},
		{0x73bf, "gfx1030", RDNAFIX_GEN_RDNA2, 0}, {0x73df, "gfx1031", RDNAFIX_GEN_RDNA2, 0},
		{0x73ff, "gfx1032", RDNAFIX_GEN_RDNA2, 0}, {0x163f, "gfx1033", RDNAFIX_GEN_RDNA2, 1},
		{0x1435, "gfx1033", RDNAFIX_GEN_RDNA2, 1}, {0x743f, "gfx1034", RDNAFIX_GEN_RDNA2, 0},
		{0x1681, "gfx1035", RDNAFIX_GEN_RDNA2, 1}, {0x164e, "gfx1036", RDNAFIX_GEN_RDNA2, 1},
		{0x13c0, "gfx1036", RDNAFIX_GEN_RDNA2, 1}, {0x1506, "gfx1036", RDNAFIX_GEN_RDNA2, 1},
	};
	for (const auto &k : known) {
		INFO("device " << std::hex << k.id);
		const rdnafix_gpu_id *id = rdnafix_gpu_lookup(0x1002, k.id);
		REQUIRE(id != nullptr);
		CHECK(std::string(id->target) == k.target);
		CHECK(id->gen == k.gen);
		CHECK(id->apu == k.apu);
	}
	// not GMC v10: RDNA3 Navi31, RDNA3.5 Strix Halo, Vega 10, and another vendor's id
	CHECK(rdnafix_gpu_lookup(0x1002, 0x744c) == nullptr);
	CHECK(rdnafix_gpu_lookup(0x1002, 0x1586) == nullptr);
	CHECK(rdnafix_gpu_lookup(0x1002, 0x687f) == nullptr);
	CHECK(rdnafix_gpu_lookup(0x10de, 0x73df) == nullptr);
	CHECK(std::string(rdnafix_gen_name(RDNAFIX_GEN_RDNA1)) == "rdna1");
	CHECK(std::string(rdnafix_gen_name(RDNAFIX_GEN_RDNA2)) == "rdna2");
	CHECK(std::string(rdnafix_gen_name(RDNAFIX_GEN_OTHER)) == "other");
}

TEST_CASE("GFX10 PCI table agrees with the userspace GPU database", "[table][gpudb]")
{
	// gpudb::all() is the table rdnactl compiles from userspace/data/gpu-database.tsv,
	// the file kmod/scripts/gen-gpu-ids.py reads; its GMC v10 rows are the rdna1/rdna2 ones.
	namespace gpudb = rdnafix::gpudb;
	std::map<std::uint16_t, std::tuple<std::string, int, int>> db;
	for (const gpudb::Entry &e : gpudb::all()) {
		const bool rdna12 =
			e.generation == gpudb::Generation::rdna1 || e.generation == gpudb::Generation::rdna2;
		INFO("device " << std::hex << e.pci_device << " in the GPU database");
		CHECK(rdna12 == gpudb::is_gmc_v10(e.gc));
		if (!rdna12)
			continue;
		const auto row = std::make_tuple(
			e.gfx.name(), e.generation == gpudb::Generation::rdna1 ? RDNAFIX_GEN_RDNA1 : RDNAFIX_GEN_RDNA2,
			e.apu ? 1 : 0);
		// a device id listed twice (per revision) must agree with itself
		auto [it, fresh] = db.emplace(e.pci_device, row);
		CHECK((fresh || it->second == row));
	}
	REQUIRE_FALSE(db.empty());
	unsigned n = 0;
	const rdnafix_gpu_id *t = rdnafix_gpu_table(&n);
	std::map<std::uint16_t, std::tuple<std::string, int, int>> ours;
	for (unsigned i = 0; i < n; i++)
		ours.emplace(t[i].device, std::make_tuple(std::string(t[i].target), int(t[i].gen), int(t[i].apu)));
	for (const auto &[dev, row] : db) {
		INFO("device " << std::hex << dev << " in the GPU database");
		REQUIRE(ours.count(dev) == 1);
		CHECK(ours[dev] == row);
	}
	for (const auto &[dev, row] : ours) {
		INFO("device " << std::hex << dev << " in kmod/rdnafix_gpu_ids.h");
		CHECK(db.count(dev) == 1);
	}
}
