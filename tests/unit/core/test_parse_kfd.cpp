// KFD topology parsers.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>

#include "core/parse.hpp"

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix::core;

namespace {
// The values of a captured MI350X node quoted in ROCm/rocm-systems#10274 (via
// docs/rocm-facts.md §5), laid out in the kernel's key order;
// keys the capture did not quote are left out.
constexpr const char *kMi350xPartial = "simd_count 1024\n"
				       "array_count 32\n"
				       "simd_arrays_per_engine 1\n"
				       "cu_per_simd_array 9\n"
				       "simd_per_cu 4\n"
				       "device_id 30112\n";
// The one public consumer-node value: ROCm/rocm-cli#343 "gfx_target_version 90402".
constexpr const char *kMemBankMi350x =
	"heap_type 2\nsize_in_bytes 309220868096\nflags 0\nwidth 8192\nmem_clk_max 1900\n";
} // namespace

TEST_CASE("kfd properties: key value lines in file order", "[parse][kfd]")
{
	auto p = parse_kfd_properties(kMi350xPartial);
	REQUIRE(p.ok());
	CHECK(p->entries.size() == 6);
	CHECK(p->entries.front().first == "simd_count");
	CHECK(p->get("simd_count") == 1024u);
	CHECK(p->get("device_id") == 30112u);
	CHECK(p->get("gfx_target_version") == std::nullopt);
	CHECK(p->problems.empty());
	auto node = kfd_node_from(*p);
	CHECK(node.is_gpu());
	CHECK(node.device_id == 0x75a0);
}

TEST_CASE("kfd properties: a GPU node and its PCI address", "[parse][kfd]")
{
	// Layout of node_show(): location_id = bus << 8 | devfn, domain separate.
	const std::string text =
		"cpu_cores_count 0\nsimd_count 80\nmem_banks_count 1\ngfx_target_version 100301\nvendor_id 4098\n"
		"device_id 29663\nlocation_id 768\ndomain 0\ndrm_render_minor 128\nunique_id 0\nlocal_mem_size 0\n";
	auto p = parse_kfd_properties(text);
	REQUIRE(p.ok());
	auto n = kfd_node_from(*p);
	CHECK(n.gfx_target_version == 100301);
	CHECK(n.vendor_id == 0x1002);
	CHECK(n.device_id == 0x73df);
	CHECK(n.pci_bdf() == "0000:03:00.0");
	CHECK(n.drm_render_minor == 128);
	KfdNode other;
	other.domain = 1;
	other.location_id = 0x6500 | (2 << 3) | 1; // 65:02.1
	CHECK(other.pci_bdf() == "0001:65:02.1");
}

TEST_CASE("kfd properties: CPU node is not a GPU", "[parse][kfd]")
{
	auto p = parse_kfd_properties("cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n");
	REQUIRE(p.ok());
	CHECK_FALSE(kfd_node_from(*p).is_gpu());
}

TEST_CASE("kfd properties: garbage lines are reported, good lines kept", "[parse][kfd]")
{
	auto p = parse_kfd_properties(
		"simd_count 80\nthis is garbage\ngfx_target_version -1\nname 0x10\n\nvendor_id 4098");
	REQUIRE(p.ok());
	CHECK(p->entries.size() == 2); // simd_count, vendor_id (no trailing newline needed)
	REQUIRE(p->problems.size() == 3);
	CHECK_THAT(p->problems[0], ContainsSubstring("line 2"));
	CHECK_THAT(p->problems[1], ContainsSubstring("gfx_target_version -1"));
	CHECK_THAT(p->problems[2], ContainsSubstring("0x10")); // hex is not what the kernel prints
}

TEST_CASE("kfd properties: empty and binary input are errors", "[parse][kfd]")
{
	auto e = parse_kfd_properties("");
	REQUIRE_FALSE(e.ok());
	CHECK_THAT(e.error().message, ContainsSubstring("empty"));
	auto b = parse_kfd_properties(std::string("\x7f"
						  "ELF\x02\x01\x01\0\0\0",
						  10));
	REQUIRE_FALSE(b.ok());
	CHECK_THAT(b.error().message, ContainsSubstring("\\x7f"));
	auto big = parse_kfd_properties("simd_count 99999999999999999999999\n"); // > u64
	REQUIRE_FALSE(big.ok());
}

TEST_CASE("kfd mem bank", "[parse][kfd]")
{
	auto b = parse_kfd_mem_bank(kMemBankMi350x);
	REQUIRE(b.ok());
	CHECK(b->heap_type == 2);
	CHECK(b->size_in_bytes == 309220868096ULL);
	CHECK(b->width == 8192);
	CHECK(b->mem_clk_max == 1900);
	auto missing = parse_kfd_mem_bank("heap_type 1\nwidth 128\n");
	REQUIRE_FALSE(missing.ok());
	CHECK_THAT(missing.error().message, ContainsSubstring("size_in_bytes"));
}
