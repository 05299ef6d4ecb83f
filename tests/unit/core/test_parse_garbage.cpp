// Every parser on random bytes and on mutated real inputs: it must return a
// value or an error, never throw or crash (errors as values).
#include <catch2/catch_test_macros.hpp>

#include <random>
#include <string>

#include "core/gpudb.hpp"
#include "core/parse.hpp"

using namespace rdnafix::core;

namespace {
void run_all(const std::string &s)
{
	(void)parse_u64(s);
	(void)parse_i64(s);
	(void)parse_kernel_bool(s);
	(void)parse_gc_version(s);
	(void)parse_kfd_properties(s);
	(void)parse_kfd_mem_bank(s);
	(void)parse_modprobe_conf(s, "fuzz.conf");
	auto c = parse_kernel_cmdline(s);
	(void)c.module_params("amdgpu");
	(void)c.module_param("amdgpu", "noretry");
	(void)split_module_params(s);
	(void)parse_kernel_release(s);
	(void)parse_proc_version(s);
	(void)parse_proc_modules(s);
	(void)parse_env_file(s);
	(void)parse_environ(s);
	(void)parse_hsa_override(s);
	(void)hsa_override_node(s);
	(void)parse_visible_devices(s, "HIP_VISIBLE_DEVICES");
	(void)parse_group_file(s);
	(void)parse_passwd_file(s);
	(void)parse_amdgpu_ids(s);
	(void)parse_devnode_manifest(s);
	(void)rdnafix::gpudb::parse_gfx_name(s);
}
} // namespace

TEST_CASE("parsers: random bytes never throw", "[parse][garbage]")
{
	std::mt19937 rng(20261120); // fixed seed: reproducible
	std::uniform_int_distribution<int> len(0, 300);
	std::uniform_int_distribution<int> byte(0, 255);
	std::uniform_int_distribution<int> pick(0, 15);
	const char alphabet[] = " \t\n\"'\\#=.,:-_0123456789abcdefgxGPU\0";
	for (int i = 0; i < 3000; ++i) {
		std::string s;
		int n = len(rng);
		for (int k = 0; k < n; ++k) {
			// Half the bytes from a syntax-heavy alphabet to reach deep paths.
			if (pick(rng) < 8)
				s.push_back(alphabet[static_cast<std::size_t>(byte(rng)) % (sizeof alphabet - 1)]);
			else
				s.push_back(static_cast<char>(byte(rng)));
		}
		INFO("iteration " << i);
		REQUIRE_NOTHROW(run_all(s));
	}
}

TEST_CASE("parsers: truncations of real inputs never throw", "[parse][garbage]")
{
	const std::string inputs[] = {
		"options amdgpu noretry=0 lockup_timeout=\"10000,10000\" \\\n  gttsize=8192\nsoftdep amdgpu pre: a "
		"post: b\n",
		"BOOT_IMAGE=/vmlinuz ro \"acpi_osi=Linux Foo\" amdgpu.noretry=0 -- single\n",
		"export A='x y'\nB=\"a \\\" b\"\n",
		"10.3.0",
		"GPU-5a7d3e2f8c9b1a04,1,-1",
		"Linux version 6.1.0-56-amd64 (x) #1 SMP Debian 6.1.192-2 (2026)\n",
		"1586,\tC1,\tAMD Radeon 8060S Graphics\n",
		"dev/kfd c 235:0 0660 root render\n",
	};
	for (const auto &in : inputs)
		for (std::size_t cut = 0; cut <= in.size(); ++cut) {
			INFO(in.substr(0, cut));
			REQUIRE_NOTHROW(run_all(in.substr(0, cut)));
		}
}
