// core/amdgpu_fault: the client-id tables per hub and GPU, the status word,
// and the fault blocks of real kernel logs posted in public issues
// (tests/unit/validate/data/amdgpu-faults/*.log, each names its source URL).
#include "core/amdgpu_fault.hpp"

#include <catch2/catch_test_macros.hpp>

#include <fstream>
#include <random>
#include <sstream>

using namespace rdnafix::core::amdgpu_fault;

namespace {

std::vector<std::string> load(const std::string &file)
{
	std::ifstream f(std::string(RDNAFIX_FAULT_LOGS) + "/" + file);
	REQUIRE(f);
	std::vector<std::string> lines;
	std::string l;
	while (std::getline(f, l))
		if (!l.starts_with("#"))
			lines.push_back(l);
	return lines;
}

std::vector<VmFault> faults_of(const std::string &file, std::string_view gfx = "")
{
	const auto lines = load(file);
	std::vector<std::string_view> v(lines.begin(), lines.end());
	return parse_vm_faults(v, gfx);
}

} // namespace

TEST_CASE("client tables: gfxhub by CID, mmhub by CID and RW, chosen per GPU", "[amdgpu_fault]")
{
	REQUIRE(client_table_for(Hub::gfxhub, "gfx1031") == ClientTable::gfxhub_gfx10_gfx11);
	REQUIRE(client_table_for(Hub::gfxhub, "gfx1151") == ClientTable::gfxhub_gfx10_gfx11);
	REQUIRE(client_table_for(Hub::gfxhub, "") == ClientTable::gfxhub_gfx10_gfx11);
	REQUIRE(client_table_for(Hub::gfxhub, "gfx1201") == ClientTable::none);
	REQUIRE(client_table_for(Hub::mmhub, "gfx1010") == ClientTable::mmhub_navi1x);
	REQUIRE(client_table_for(Hub::mmhub, "gfx1031") == ClientTable::mmhub_sienna_cichlid);
	REQUIRE(client_table_for(Hub::mmhub, "gfx1034") == ClientTable::mmhub_beige_goby);
	REQUIRE(client_table_for(Hub::mmhub, "gfx1035") == ClientTable::mmhub_vangogh);
	REQUIRE(client_table_for(Hub::mmhub, "gfx1100") == ClientTable::mmhub_v3_0_0);
	REQUIRE(client_table_for(Hub::mmhub, "gfx1151") == ClientTable::mmhub_v3_3);
	REQUIRE(client_table_for(Hub::mmhub, "") == ClientTable::none);
	REQUIRE(client_table_for(Hub::unknown, "gfx1031") == ClientTable::none);

	REQUIRE(client_name(ClientTable::gfxhub_gfx10_gfx11, 8, false) == "TCP");
	REQUIRE(client_name(ClientTable::gfxhub_gfx10_gfx11, 8, true) == "TCP"); // gfxhub ignores RW
	REQUIRE(client_name(ClientTable::gfxhub_gfx10_gfx11, 5, false) == "CPC");
	REQUIRE(client_name(ClientTable::gfxhub_gfx10_gfx11, 18, false).empty());
	// the mmhub tables differ per GPU and per access direction
	REQUIRE(client_name(ClientTable::mmhub_navi1x, 5, false) == "MP0");
	REQUIRE(client_name(ClientTable::mmhub_navi1x, 5, true) == "DCEVGA");
	REQUIRE(client_name(ClientTable::mmhub_sienna_cichlid, 5, true) == "MP0");
	REQUIRE(client_name(ClientTable::mmhub_sienna_cichlid, 43, false) == "VCN0"); // [32+11]
	REQUIRE(client_name(ClientTable::mmhub_sienna_cichlid, 43, true).empty());
	REQUIRE(client_name(ClientTable::mmhub_beige_goby, 10, false).empty()); // no JPEG on Navi24
	REQUIRE(client_name(ClientTable::mmhub_vangogh, 13, false) == "UTCL2");
	REQUIRE(client_name(ClientTable::mmhub_v3_0_0, 52, false) == "VCN0"); // [32+20]
	REQUIRE(client_name(ClientTable::mmhub_v3_3, 27, true) == "VPE");
	REQUIRE(client_name(ClientTable::none, 8, false).empty());
}

TEST_CASE("status word: layout, hub from the register, table from the GPU", "[amdgpu_fault]")
{
	// 0x00801031 (ROCm/TheRock#1271, kernel printed TCP, MORE_FAULTS 1, PERMISSION_FAULTS 3, RW 0)
	const auto a = decode_status(0x00801031, "GCVM_L2_PROTECTION_FAULT_STATUS", "gfx1150");
	REQUIRE(a.hub == Hub::gfxhub);
	REQUIRE(a.client == "TCP");
	REQUIRE(a.cid == 8);
	REQUIRE(a.more_faults);
	REQUIRE(a.permission_faults == 3);
	REQUIRE(a.vmid == 8);
	REQUIRE_FALSE(a.write);
	REQUIRE(a.permissions() == "PTE not valid, PTE not readable");
	// an mmhub write of CID 5: MP0 on Navi21/22, DCEVGA on Navi10, no name without a GPU
	const std::uint32_t mm = (5u << 9) | (1u << 18) | (3u << 20) | 0x1;
	REQUIRE(decode_status(mm, "MMVM_L2_PROTECTION_FAULT_STATUS", "gfx1031").client == "MP0");
	REQUIRE(decode_status(mm, "MMVM_L2_PROTECTION_FAULT_STATUS", "gfx1010").client == "DCEVGA");
	REQUIRE(decode_status(mm, "MMVM_L2_PROTECTION_FAULT_STATUS").client.empty());
	REQUIRE(decode_status(mm, "MMVM_L2_PROTECTION_FAULT_STATUS", "gfx1034").client == "MP0");
	// a CID beyond the table: "unknown", as the kernel prints
	REQUIRE(decode_status(0xFFFFFFFF).client == "unknown");
	// GFX9 VM_L2_: no table
	REQUIRE(decode_status(0x00841051, "VM_L2_PROTECTION_FAULT_STATUS").client.empty());
}

TEST_CASE("find_status: the spellings the kernel and users print, and refusals", "[amdgpu_fault]")
{
	REQUIRE(find_status("amdgpu 0000:0b:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00701031")->raw ==
		0x00701031);
	REQUIRE(find_status("MMVM_L2_PROTECTION_FAULT_STATUS: 0x00040B50")->hub == Hub::mmhub);
	REQUIRE(find_status("GCVM_L2_PROTECTION_FAULT_STATUS_LO32:0x00000B33")->cid == 5);
	REQUIRE(find_status("GCVM_L2_PROTECTION_FAULT_STATUS=0x1")->raw == 1);
	REQUIRE_FALSE(find_status("GCVM_L2_PROTECTION_FAULT_STATUS:0x123456789"));
	REQUIRE_FALSE(find_status("GCVM_L2_PROTECTION_FAULT_STATUS:zz"));
	REQUIRE_FALSE(find_status("GCVM_L2_PROTECTION_FAULT_STATUS"));
	REQUIRE_FALSE(find_status(""));
}

TEST_CASE("fault blocks of real logs: VMID, PASID, process, address, status", "[amdgpu_fault]")
{
	SECTION("ROCm/TheRock#1271 (6.x: process on its own line)")
	{
		const auto f = faults_of("rocm-therock-1271.log");
		REQUIRE(f.size() == 1);
		REQUIRE(f[0].device == "0000:c2:00.0");
		REQUIRE(f[0].hub == Hub::gfxhub);
		REQUIRE(*f[0].vmid == 8);
		REQUIRE(*f[0].pasid == 32773);
		REQUIRE(*f[0].ring == 24);
		REQUIRE(f[0].process == "python");
		REQUIRE(*f[0].pid == 5578);
		REQUIRE(*f[0].address == 0x00007f5e85f94000ull);
		REQUIRE(f[0].status->raw == 0x00801031);
		REQUIRE(f[0].kernel_client == "TCP");
		REQUIRE(f[0].status->client == f[0].kernel_client);
	}
	SECTION("ROCm/amdgpu#168 (process in the page-fault line; a second, cleared status)")
	{
		const auto f = faults_of("rocm-amdgpu-168.log");
		REQUIRE(f.size() == 2);
		REQUIRE(f[0].process == "wezterm-gui");
		REQUIRE(*f[0].pid == 5044);
		REQUIRE(f[0].thread == "wezterm-gu:cs0");
		REQUIRE(*f[0].thread_pid == 5072);
		REQUIRE(*f[0].pasid == 32771);
		REQUIRE(*f[0].address == 0x0000800505606000ull);
		REQUIRE(f[0].status->raw == 0x00701031);
		REQUIRE(f[1].status->raw == 0);
		REQUIRE_FALSE(f[1].pasid);
	}
	SECTION("ROCm/legacy-rocm-build#2804 (storm: two addresses, status all ones)")
	{
		const auto f = faults_of("rocm-legacy-rocm-build-2804.log");
		REQUIRE(f.size() == 1);
		REQUIRE(f[0].repeats == 2);
		REQUIRE(*f[0].address == 0x00007f5279bab000ull);
		REQUIRE(f[0].status->raw == 0xFFFFFFFF);
		REQUIRE(f[0].status->client == "unknown");
		REQUIRE(f[0].kernel_client == "unknown");
	}
	SECTION("ROCm/legacy-rocm-build#2766 (kernel context: pid 0, CPC)")
	{
		const auto f = faults_of("rocm-legacy-rocm-build-2766.log");
		REQUIRE(f.size() == 1);
		REQUIRE(*f[0].pid == 0);
		REQUIRE(f[0].process.empty());
		REQUIRE(*f[0].ring == 153);
		REQUIRE(f[0].status->client == "CPC");
		REQUIRE(f[0].status->mapping_error);
	}
	SECTION("ROCm/tensorflow-upstream#998 (GFX9 retry fault, VM_L2_ register)")
	{
		const auto f = faults_of("rocm-tensorflow-upstream-998.log");
		REQUIRE(f.size() == 1);
		REQUIRE(f[0].retry);
		REQUIRE(f[0].hub == Hub::gfxhub);
		REQUIRE(f[0].status->client.empty());
		REQUIRE(f[0].status->write);
	}
	SECTION("CachyOS/linux-cachyos#960 (status printed before its page-fault line)")
	{
		const auto f = faults_of("cachyos-linux-cachyos-960.log");
		REQUIRE(f.size() == 1);
		REQUIRE(*f[0].vmid == 4);
		REQUIRE(f[0].process == "kwin_wayland");
		REQUIRE(f[0].status->raw == 0x00401031);
	}
	SECTION("pop-os/cosmic-comp#1953 (status after the address)")
	{
		const auto f = faults_of("popos-cosmic-comp-1953.log");
		REQUIRE(f.size() == 1);
		REQUIRE(*f[0].vmid == 5);
		REQUIRE(*f[0].pasid == 48);
		REQUIRE(f[0].status->raw == 0x00501031);
	}
}

TEST_CASE("a status word alone is a fault of its own", "[amdgpu_fault]")
{
	const std::vector<std::string_view> lines{
		"amdgpu 0000:03:00.0: amdgpu: MMVM_L2_PROTECTION_FAULT_STATUS:0x00140A00"};
	const auto f = parse_vm_faults(lines, "gfx1031");
	REQUIRE(f.size() == 1);
	REQUIRE(f[0].hub == Hub::mmhub);
	REQUIRE(f[0].device == "0000:03:00.0");
	REQUIRE(f[0].status->cid == 5);
	REQUIRE(f[0].status->write);
	REQUIRE(f[0].status->client == "MP0");
	REQUIRE(*f[0].vmid == 1);
}

TEST_CASE("hostile input never crashes the fault parser", "[amdgpu_fault]")
{
	std::mt19937 rng(9);
	std::vector<std::string> owned;
	const std::string seeds[] = {"[gfxhub] page fault (src_id:",
				     "GCVM_L2_PROTECTION_FAULT_STATUS:0x",
				     " Process ",
				     " pid ",
				     " thread ",
				     "in page starting at address 0x",
				     "amdgpu 0000:"};
	for (int i = 0; i < 2000; ++i) {
		std::string s;
		const int parts = int(rng() % 6);
		for (int p = 0; p < parts; ++p) {
			s += seeds[rng() % std::size(seeds)];
			for (int k = int(rng() % 12); k > 0; --k)
				s.push_back(char(rng() % 256));
		}
		owned.push_back(std::move(s));
	}
	owned.push_back(std::string(1 << 20, 'f'));
	std::vector<std::string_view> v(owned.begin(), owned.end());
	const auto f = parse_vm_faults(v, "gfx1010");
	for (const auto &x : f)
		if (x.status)
			REQUIRE(x.status->cid < 512);
	REQUIRE(parse_vm_faults({}, "").empty());
}
