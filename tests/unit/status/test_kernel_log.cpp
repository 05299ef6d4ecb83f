// status: the "Kernel log (this boot)" section.  A captured dmesg under
// --root (var/log/rdnafix-dmesg, tests/fixtures/README.md) made of real log
// lines (tests/unit/validate/data/amdgpu-faults/rocm-therock-1271.log and
// tests/fixtures/logs/therock-737-mes-reset.txt, both cited in their files'
// sources) is parsed into faults and counts; no file, no section.
#include "render.hpp"
#include "support.hpp"

#include "core/parse_kernel_log.hpp"

#include "machine/collect.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fstream>
#include <sstream>

using Catch::Matchers::ContainsSubstring;

namespace {

std::string real_lines()
{
	std::string out;
	for (const char *f : {"/tests/unit/validate/data/amdgpu-faults/rocm-therock-1271.log",
			      "/tests/fixtures/logs/therock-737-mes-reset.txt"}) {
		std::ifstream in(std::string(RDNAFIX_TOP) + f);
		REQUIRE(in);
		std::string l;
		while (std::getline(in, l))
			if (!l.starts_with("#"))
				out += l + "\n";
	}
	return out;
}

} // namespace

TEST_CASE("parse_kernel_log: faults and counts from dmesg and /dev/kmsg records", "[kernel_log]")
{
	const auto e = rdnafix::core::parse_kernel_log(real_lines());
	REQUIRE(e.vm_faults == 1);
	REQUIRE(e.last_faults.at(0).process == "python");
	REQUIRE(*e.last_faults.at(0).pid == 5578);
	REQUIRE(e.last_faults.at(0).status->raw == 0x00801031);
	REQUIRE(e.mes_failures == 1);
	REQUIRE(e.gpu_resets == 1);
	REQUIRE(e.ring_timeouts == 0);
	// /dev/kmsg records, with a continuation line
	const auto k = rdnafix::core::parse_kernel_log(
		"3,1201,1008330834,-;amdgpu 0000:c2:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 "
		"pasid:32773)\n SUBSYSTEM=pci\n DEVICE=+pci:0000:c2:00.0\n"
		"3,1202,1008330844,-;amdgpu 0000:c2:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031\n"
		"3,1300,1010000000,-;amdgpu 0000:c2:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1, emitted "
		"seq=3\n");
	REQUIRE(k.lines == 3);
	REQUIRE(k.vm_faults == 1);
	REQUIRE(k.last_faults[0].status->client == "TCP");
	REQUIRE(k.ring_timeouts == 1);
	REQUIRE(k.user_records == 0);
	// A record a process wrote (facility user: prio 12 = LOG_USER|LOG_WARNING)
	// is not the kernel's, whatever it says.
	const auto u = rdnafix::core::parse_kernel_log(
		"12,1400,1010000001,-;amdgpu 0000:c2:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00701031\n"
		"12,1401,1010000002,-;amdgpu 0000:c2:00.0: amdgpu: ring gfx_0.0.0 timeout\n"
		"4,1402,1010000003,-;amdgpu 0000:c2:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031\n");
	REQUIRE(u.user_records == 2);
	REQUIRE(u.lines == 1);
	REQUIRE(u.vm_faults == 1);
	REQUIRE(u.last_faults[0].status->raw == 0x00801031);
	REQUIRE(u.ring_timeouts == 0);
	// junk and nothing
	REQUIRE(rdnafix::core::parse_kernel_log("").vm_faults == 0);
	REQUIRE(rdnafix::core::parse_kernel_log(std::string(1 << 20, '\0')).lines == 1);
}

TEST_CASE("status shows the kernel log of a root that has a captured dmesg, and nothing without", "[kernel_log]")
{
	rdnafix::test::TempDir t;
	t.write("etc/hostname", "x\n");
	t.write("proc/version", "Linux version 6.12.48+deb13-amd64\n");
	rdnafix::machine::CollectOptions o;
	o.root = t.path().string();
	o.live = false;
	auto s = rdnafix::machine::collect(o);
	REQUIRE(s.kernel_log.source == rdnafix::machine::KernelLogSource::none);
	auto r = rdnafix::test::run_rdnactl({"status", "--root", t.path().string(), "--color", "never"});
	REQUIRE_THAT(r.out, !ContainsSubstring("Kernel log"));

	t.write("var/log/rdnafix-dmesg", real_lines());
	s = rdnafix::machine::collect(o);
	REQUIRE(s.kernel_log.source == rdnafix::machine::KernelLogSource::file);
	REQUIRE(s.kernel_log.events->vm_faults == 1);
	const auto lines = rdnafix::status::kernel_log_lines(s);
	REQUIRE(lines.at(0) == "1 amdgpu VM fault(s):");
	REQUIRE_THAT(lines.at(1), ContainsSubstring("gfxhub page fault on 0000:c2:00.0, vmid 8, pasid 32773, process "
						    "python pid 5578, address 0x7f5e85f94000"));
	REQUIRE_THAT(lines.at(1), ContainsSubstring("client TCP"));
	r = rdnafix::test::run_rdnactl({"status", "--root", t.path().string(), "--color", "never"});
	REQUIRE_THAT(r.out, ContainsSubstring("Kernel log (this boot) (var/log/rdnafix-dmesg)"));
	REQUIRE_THAT(r.out, ContainsSubstring("1 MES failure(s): last"));
	r = rdnafix::test::run_rdnactl({"status", "--root", t.path().string(), "--json"});
	const auto j = nlohmann::json::parse(r.out);
	REQUIRE(j["kernel_log"]["source"] == "file");
	REQUIRE(j["kernel_log"]["vm_faults"] == 1);
	REQUIRE(j["kernel_log"]["last_faults"][0]["pid"] == 5578);
	REQUIRE(j["kernel_log"]["gpu_resets"] == 1);
}
