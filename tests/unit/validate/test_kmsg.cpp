// Kernel-log parsing and GCVM_L2_PROTECTION_FAULT_STATUS decoding, tested on
// real amdgpu output posted in public issues (data/amdgpu-faults/*.log, each
// file names its source URL): our decoder must agree with the fields the kernel
// itself printed under every status line.
#include <catch2/catch_test_macros.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <random>
#include <regex>

#include "history/kmsg.hpp"

using namespace rdnafix::validate;

namespace {

std::vector<std::string> load(const std::string &file)
{
	std::ifstream f(std::string(VALIDATE_TEST_DATA) + "/amdgpu-faults/" + file);
	REQUIRE(f);
	std::vector<std::string> lines;
	std::string l;
	bool has_source = false;
	while (std::getline(f, l)) {
		if (l.starts_with("# source: https://github.com/"))
			has_source = true;
		if (!l.starts_with("#"))
			lines.push_back(l);
	}
	REQUIRE(has_source); // every excerpt cites where it came from
	return lines;
}

// The kernel's own decoding printed after each status line: field -> value.
struct KernelDecoded {
	std::string status_line;
	std::map<std::string, unsigned> fields;
	std::string client;
};

std::vector<KernelDecoded> kernel_decodings(const std::vector<std::string> &lines)
{
	std::vector<KernelDecoded> out;
	static const std::regex field(
		R"((MORE_FAULTS|WALKER_ERROR|PERMISSION_FAULTS|MAPPING_ERROR|RW): 0x([0-9a-fA-F]+))");
	static const std::regex client(R"(Faulty UTCL2 client ID: (.*) \(0x([0-9a-fA-F]+)\))");
	for (const auto &l : lines) {
		std::smatch m;
		if (l.find("_L2_PROTECTION_FAULT_STATUS:0x") != std::string::npos) {
			out.push_back({l, {}, {}});
		} else if (!out.empty() && std::regex_search(l, m, field)) {
			out.back().fields[m[1]] = unsigned(std::stoul(m[2], nullptr, 16));
		} else if (!out.empty() && std::regex_search(l, m, client)) {
			out.back().client = m[1];
			out.back().fields["CID"] = unsigned(std::stoul(m[2], nullptr, 16));
		}
	}
	return out;
}

} // namespace

TEST_CASE("fault status decoding agrees with the kernel's own output in real excerpts", "[kmsg]")
{
	const char *files[] = {"rocm-amdgpu-168.log",
			       "cachyos-linux-cachyos-960.log",
			       "rocm-legacy-rocm-build-2804.log",
			       "rocm-legacy-rocm-build-2766.log",
			       "rocm-therock-1271.log",
			       "rocm-tensorflow-upstream-998.log",
			       "popos-cosmic-comp-1953.log"};
	int compared = 0;
	for (const char *file : files) {
		const auto lines = load(file);
		for (const auto &kd : kernel_decodings(lines)) {
			INFO(file << ": " << kd.status_line);
			const auto f = find_fault_status(kd.status_line);
			REQUIRE(f);
			for (const auto &[name, v] : kd.fields) {
				INFO(name);
				if (name == "MORE_FAULTS")
					REQUIRE(unsigned(f->more_faults) == v);
				else if (name == "WALKER_ERROR")
					REQUIRE(f->walker_error == v);
				else if (name == "PERMISSION_FAULTS")
					REQUIRE(f->permission_faults == v);
				else if (name == "MAPPING_ERROR")
					REQUIRE(unsigned(f->mapping_error) == v);
				else if (name == "RW")
					REQUIRE(unsigned(f->write) == v);
				else if (name == "CID")
					REQUIRE(f->cid == v);
				++compared;
			}
			if (!kd.client.empty() && f->reg == "GCVM_L2_PROTECTION_FAULT_STATUS")
				REQUIRE(f->client == kd.client);
		}
	}
	REQUIRE(compared >= 40);
}

TEST_CASE("decoded VMID matches the vmid of the page-fault line in real excerpts", "[kmsg]")
{
	const std::pair<const char *, unsigned> expect[] = {{"rocm-amdgpu-168.log", 7},
							    {"cachyos-linux-cachyos-960.log", 4},
							    {"rocm-therock-1271.log", 8},
							    {"popos-cosmic-comp-1953.log", 5},
							    {"rocm-tensorflow-upstream-998.log", 8}};
	for (const auto &[file, vmid] : expect) {
		const auto lines = load(file);
		INFO(file);
		std::optional<FaultStatus> first;
		for (const auto &l : lines)
			if (!first)
				first = find_fault_status(l);
		REQUIRE(first);
		REQUIRE(first->vmid == vmid);
		bool seen = false;
		for (const auto &l : lines)
			seen = seen || l.find("vmid:" + std::to_string(vmid) + " ") != std::string::npos;
		REQUIRE(seen);
	}
}

TEST_CASE("decoder: known values field by field", "[kmsg]")
{
	const auto a = decode_fault_status(0x00841051, "VM_L2_PROTECTION_FAULT_STATUS");
	REQUIRE(a.more_faults);
	REQUIRE(a.walker_error == 0);
	REQUIRE(a.permission_faults == 5);
	REQUIRE_FALSE(a.mapping_error);
	REQUIRE(a.cid == 8);
	REQUIRE(a.write);
	REQUIRE(a.vmid == 8);
	REQUIRE(a.client.empty()); // GFX9 hub: the GFX10 name table does not apply
	const auto b = decode_fault_status(0x00000B32);
	REQUIRE(b.client == "CPC");
	REQUIRE(b.walker_error == 1);
	REQUIRE(b.mapping_error);
	REQUIRE(b.explain().find("client CPC (0x5), read access, vmid 0, permission faults 0x3 (PTE not valid, "
				 "PTE not readable), mapping error, walker error 0x1") != std::string::npos);
	REQUIRE(gfx10_client_name(17) == "SDMA3");
	REQUIRE(gfx10_client_name(18) == "unknown");
	REQUIRE_FALSE(find_fault_status("GCVM_L2_PROTECTION_FAULT_STATUS:0x123456789")); // > 32 bits
	REQUIRE_FALSE(find_fault_status("GCVM_L2_PROTECTION_FAULT_STATUS:0x"));
	REQUIRE_FALSE(find_fault_status("nothing here"));
}

TEST_CASE("classification of real excerpt lines", "[kmsg]")
{
	std::map<LogKind, int> count;
	for (const char *file : {"popos-cosmic-comp-1953.log", "rocm-legacy-rocm-build-2804.log"})
		for (const auto &e : extract_events(load(file)))
			count[e.kind]++;
	REQUIRE(count[LogKind::ring_timeout] == 1); // "ring gfx_0.0.0 timeout, signaled seq=..."
	REQUIRE(count[LogKind::gpu_reset] == 2);    // "reset succeeded", "device wedged"
	REQUIRE(count[LogKind::fault_status] == 2);
	REQUIRE(count[LogKind::page_fault] == 6); // 2 "[gfxhub] page fault", 3 "in page", 1 "callbacks suppressed"
	REQUIRE(count[LogKind::fault_detail] == 8);
	REQUIRE_FALSE(classify_log_line("12:09:23 cosmic-session: process ' COSMIC_SE"));
	REQUIRE_FALSE(classify_log_line("usb 1-1: new high-speed USB device number 2"));
	REQUIRE(classify_log_line("amdgpu 0000:03:00.0: amdgpu: GPU reset begin!") == LogKind::gpu_reset);
	REQUIRE(classify_log_line("[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, signaled seq=1, "
				  "emitted seq=2") == LogKind::ring_timeout);
}

TEST_CASE("kmsg record parsing", "[kmsg]")
{
	auto r = parse_kmsg_record(
		"3,1234,283724128,-;amdgpu 0000:2b:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00701031\n"
		" SUBSYSTEM=pci\n DEVICE=+pci:0000:2b:00.0\n");
	REQUIRE(r);
	REQUIRE(r->level == 3);
	REQUIRE(r->facility == 0);
	REQUIRE(r->seq == 1234);
	REQUIRE(r->usec == 283724128);
	REQUIRE(r->message == "amdgpu 0000:2b:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00701031");
	r = parse_kmsg_record("14,2,5,c,caller=T1;user message");
	REQUIRE(r);
	REQUIRE(r->level == 6);
	REQUIRE(r->facility == 1);
	REQUIRE(r->message == "user message");
	REQUIRE_FALSE(parse_kmsg_record("no separator"));
	REQUIRE_FALSE(parse_kmsg_record("x,1,2,-;msg"));
	REQUIRE_FALSE(parse_kmsg_record("6,1;short header"));
}

TEST_CASE("KmsgWatch reports an unreadable log instead of failing", "[kmsg]")
{
	KmsgWatch w("/nonexistent/kmsg");
	REQUIRE_FALSE(w.ok());
	REQUIRE(w.note().find("kernel log not captured: cannot open /nonexistent/kmsg") == 0);
	REQUIRE(w.read_new().empty());
}

TEST_CASE("KmsgWatch reads only records written after it started (real /dev/kmsg)", "[kmsg][root]")
{
	const int wfd = ::open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	KmsgWatch probe;
	if (wfd < 0 || !probe.ok()) {
		if (wfd >= 0)
			::close(wfd);
		SKIP("/dev/kmsg not readable and writable here (needs root): " << probe.note());
	}
	const std::string before = "rdnactl-unit-test: before " + std::to_string(std::random_device{}());
	// newline-terminated: an unterminated record stays open for continuation and is not readable yet
	REQUIRE(::write(wfd, (before + "\n").data(), before.size() + 1) == ssize_t(before.size() + 1));
	KmsgWatch w; // starts after `before`
	const std::string after = "rdnactl-unit-test: after " + std::to_string(std::random_device{}());
	REQUIRE(::write(wfd, (after + "\n").data(), after.size() + 1) == ssize_t(after.size() + 1));
	::close(wfd);
	bool saw_after = false, saw_before = false;
	for (const auto &r : w.read_new()) {
		saw_after = saw_after || r.message == after;
		saw_before = saw_before || r.message == before;
	}
	REQUIRE(saw_after);
	REQUIRE_FALSE(saw_before);
}
