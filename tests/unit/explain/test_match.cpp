// explain: the reader and the matcher on REAL logs posted in public issues
// (tests/fixtures/logs/*.txt, sources in tests/fixtures/logs/SOURCE.md, and
// the kernel excerpts of tests/unit/validate/data/amdgpu-faults/), each
// expected decode checked; and hostile input.
#include "explain/model.hpp"

#include <catch2/catch_test_macros.hpp>

#include <fstream>
#include <sstream>

using namespace rdnafix::explain;

namespace {

std::string slurp(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	REQUIRE(f);
	std::stringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

std::vector<Match> matches_of(const std::string &fixture)
{
	return match_log(read_log(slurp(std::string(RDNAFIX_TOP) + "/tests/fixtures/logs/" + fixture)));
}

// A validate excerpt without its "# source:" comment line (ours, not the log's).
std::string excerpt(const std::string &file)
{
	std::istringstream in(slurp(std::string(RDNAFIX_TOP) + "/tests/unit/validate/data/amdgpu-faults/" + file));
	std::string out, l;
	while (std::getline(in, l))
		if (!l.starts_with("#"))
			out += l + "\n";
	return out;
}

std::vector<std::string> ids(const std::vector<Match> &m)
{
	std::vector<std::string> out;
	for (const auto &x : m)
		out.emplace_back(info(x.sig).id);
	return out;
}

} // namespace

TEST_CASE("every log in tests/fixtures/logs is cited in SOURCE.md", "[explain]")
{
	const std::string src = slurp(std::string(RDNAFIX_TOP) + "/tests/fixtures/logs/SOURCE.md");
	for (const char *f :
	     {"rocm-rocm-2429-no-binary.txt", "rocm-legacy-rocm-build-5051-journal.txt",
	      "rocm-legacy-rocm-build-5943-amdgpu-ids.txt", "rocm-legacy-rocm-build-5259-gpu-hang.txt",
	      "therock-737-mes-reset.txt", "cosmic-comp-2626-ring-timeout.txt", "kernelci-2238-firmware.txt"}) {
		INFO(f);
		REQUIRE(src.find(std::string("`") + f + "`") != std::string::npos);
	}
	REQUIRE(src.find("https://github.com/ROCm/ROCm/issues/2429") != std::string::npos);
}

TEST_CASE("ROCm/ROCm#2429: invalid device function + hipErrorNoBinaryForGpu lists decoded", "[explain]")
{
	const auto m = matches_of("rocm-rocm-2429-no-binary.txt");
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-001", "RDNA-LOG-002"});
	const auto &d = *m[1].nobinary;
	REQUIRE(d.devices == std::vector<std::string>{"gfx1100"});
	REQUIRE(d.bundled == std::vector<std::string>{"gfx1030", "gfx900", "gfx906", "gfx908", "gfx90a"});
	REQUIRE(d.missing == std::vector<std::string>{"gfx1100"});
	REQUIRE(m[1].first_line == 2);
	REQUIRE(m[1].last_line == 11);
}

TEST_CASE("ROCm/legacy-rocm-build#5051: runtime fault + journalctl VM fault block", "[explain]")
{
	const auto m = matches_of("rocm-legacy-rocm-build-5051-journal.txt");
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-006", "RDNA-LOG-007"});
	REQUIRE(*m[0].node == 1);
	REQUIRE(*m[0].address == 0x7f2a53193000ull);
	REQUIRE(m[0].detail == "Page not present or supervisor privilege.");
	const auto &f = *m[1].fault;
	REQUIRE(f.device == "0000:0b:00.0");
	REQUIRE(*f.vmid == 8);
	REQUIRE(*f.pasid == 32792);
	REQUIRE(f.process == "python");
	REQUIRE(*f.pid == 91762);
	REQUIRE(*f.address == 0x00007f2a5318b000ull);
	REQUIRE_FALSE(f.status);
	// the systemd lines between the kernel lines are not part of the block's excerpt
	for (const auto &l : m[1].excerpt)
		REQUIRE(l.find("systemd") == std::string::npos);
}

TEST_CASE("ROCm/legacy-rocm-build#5259: four HW exceptions fold into one, node 4", "[explain]")
{
	const auto m = matches_of("rocm-legacy-rocm-build-5259-gpu-hang.txt");
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-012"});
	REQUIRE(m[0].count == 4);
	REQUIRE(*m[0].node == 4);
	REQUIRE(m[0].detail == "GPU Hang");
}

TEST_CASE("ROCm/TheRock#737: MES failure then a GPU reset (dmesg timestamps)", "[explain]")
{
	const auto m = matches_of("therock-737-mes-reset.txt");
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-010", "RDNA-LOG-009"});
	REQUIRE(m[0].detail == "REMOVE_QUEUE");
	REQUIRE(m[0].device == "0000:c1:00.0");
	REQUIRE(m[0].excerpt.size() == 3);
	REQUIRE(m[1].excerpt.size() == 3); // begin, MODE2, succeeded
}

TEST_CASE("pop-os/cosmic-comp#2626: ring timeout with its process, reset with VRAM lost", "[explain]")
{
	const auto m = matches_of("cosmic-comp-2626-ring-timeout.txt");
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-008", "RDNA-LOG-009"});
	REQUIRE(m[0].detail.starts_with("gfx_0.0.0"));
	REQUIRE(m[0].detail.find("cosmic-comp pid 3503") != std::string::npos);
	bool vram = false;
	for (const auto &l : m[1].excerpt)
		vram = vram || l.find("VRAM is lost") != std::string::npos;
	REQUIRE(vram);
}

TEST_CASE("kernelci/kernelci-core#2238: the missing firmware file is named", "[explain]")
{
	const auto m = matches_of("kernelci-2238-firmware.txt");
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-011"});
	REQUIRE(m[0].detail == "amdgpu/psp_13_0_8_toc.bin");
}

TEST_CASE("ROCm/legacy-rocm-build#5943: amdgpu.ids noise is harmless", "[explain]")
{
	const auto m = matches_of("rocm-legacy-rocm-build-5943-amdgpu-ids.txt");
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-013"});
	REQUIRE(info(m[0].sig).severity == Severity::harmless);
	REQUIRE(m[0].detail == "/opt/amdgpu/share/libdrm/amdgpu.ids");
}

TEST_CASE("PyTorch tracebacks: invalid device function, invalid argument, no kernel image", "[explain]")
{
	// etched-ai/open-oasis#27: the traceback's last line, trailing blanks kept
	auto m = matches_of("open-oasis-27-traceback.txt");
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-001"});
	REQUIRE(m[0].first_line == 5);
	// ROCm/TheRock#2707: one error, once, although PyTorch's hint line names
	// hipErrorInvalidValue again
	m = matches_of("therock-2707-invalid-argument.txt");
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-003"});
	REQUIRE(m[0].count == 1);
	REQUIRE(m[0].last_line == 1);
	// lamikr/rocm_sdk_builder#228: HIP's words for hipErrorNoBinaryForGpu, twice: one match, counted
	m = matches_of("rocm-sdk-builder-228-no-kernel-image.txt");
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-002"});
	REQUIRE(m[0].count == 2);
	REQUIRE(m[0].nobinary->devices.empty());
}

TEST_CASE("the validate excerpts (dmesg, journal, bare) are VM fault blocks", "[explain]")
{
	const std::pair<const char *, std::size_t> expect[] = {
		{"rocm-therock-1271.log", 1},           {"rocm-amdgpu-168.log", 2},
		{"cachyos-linux-cachyos-960.log", 1},   {"rocm-legacy-rocm-build-2804.log", 1},
		{"rocm-legacy-rocm-build-2766.log", 1}, {"rocm-tensorflow-upstream-998.log", 1}};
	for (const auto &[file, n] : expect) {
		INFO(file);
		const auto m = match_log(read_log(excerpt(file)));
		std::size_t faults = 0;
		for (const auto &x : m)
			faults += x.sig == Sig::vm_fault;
		REQUIRE(faults == n);
	}
	// cosmic-comp#1953 also carries the ring timeout and the ring reset
	// (the ring reset and "device wedged" lines are the reset that followed)
	const auto m = match_log(read_log(excerpt("popos-cosmic-comp-1953.log")));
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-007", "RDNA-LOG-008", "RDNA-LOG-009"});
}

TEST_CASE("a fault storm folds into one match, counted", "[explain]")
{
	std::string storm;
	for (int i = 0; i < 50; ++i)
		storm += excerpt("rocm-therock-1271.log") +
			 "[ 1.0] unrelated line\n[ 1.1] another one\n[ 1.2] and one more\n";
	const auto m = match_log(read_log(storm));
	REQUIRE(m.size() == 1);
	REQUIRE(m[0].sig == Sig::vm_fault);
	REQUIRE(m[0].count == 50);
}

TEST_CASE("reader: prefixes of dmesg, dmesg -T, journalctl, kmsg are removed", "[explain]")
{
	const auto log = read_log("[  283.724128] amdgpu 0000:2b:00.0: x\n"
				  "[Mon Nov 24 10:00:00 2025] amdgpu 0000:2b:00.0: y\r\n"
				  "Jan 09 18:55:45 host kernel: amdgpu 0000:0b:00.0: z\n"
				  "2024-08-18T01:19:27.141093+00:00 minipc kernel: amdgpu 0000:c3:00.0: w\n"
				  "6,1234,283724128,-;amdgpu 0000:2b:00.0: v\n"
				  "\n"
				  "Traceback (most recent call last):\n");
	REQUIRE(log.lines.size() == 6);
	REQUIRE(log.lines[0].text == "amdgpu 0000:2b:00.0: x");
	REQUIRE(log.lines[0].format == LineFormat::dmesg);
	REQUIRE(log.lines[1].text == "amdgpu 0000:2b:00.0: y");
	REQUIRE(log.lines[2].text == "amdgpu 0000:0b:00.0: z");
	REQUIRE(log.lines[2].format == LineFormat::journal);
	REQUIRE(log.lines[3].text == "amdgpu 0000:c3:00.0: w");
	REQUIRE(log.lines[4].text == "amdgpu 0000:2b:00.0: v");
	REQUIRE(log.lines[4].format == LineFormat::kmsg);
	REQUIRE(log.lines[5].format == LineFormat::python);
	REQUIRE(log.lines[5].number == 7);
	REQUIRE(log.problems.empty());
}

TEST_CASE("reader: empty, binary junk and a 100 MB line give a clear result", "[explain]")
{
	const auto empty = read_log("");
	REQUIRE(empty.lines.empty());
	REQUIRE(empty.problems == std::vector<std::string>{"the input is empty"});
	REQUIRE(match_log(empty).empty());

	std::string junk;
	for (int i = 0; i < 100000; ++i)
		junk.push_back(char((i * 7919) % 256));
	junk += "\nHW Exception by GPU node-1 (Agent handle: 0x1) reason :GPU Hang\n";
	const auto bin = read_log(junk);
	REQUIRE(bin.binary);
	REQUIRE(bin.problems.front().find("looks binary") != std::string::npos);
	const auto bm = match_log(bin);
	REQUIRE_FALSE(bm.empty());
	REQUIRE(bm.back().sig == Sig::hw_exception_gpu_hang);
	for (const auto &l : bin.lines)
		REQUIRE(l.text.find('\0') == std::string::npos);

	std::string huge(100u * 1024 * 1024, 'a');
	huge += "\nHIP error: invalid device function\n";
	const auto big = read_log(huge);
	REQUIRE(big.lines.size() == 2);
	REQUIRE(big.lines[0].text.size() == 64 * 1024);
	REQUIRE(big.problems.front() == "line 1: 104857600 bytes, only the first 65536 were read");
	REQUIRE(match_log(big).back().sig == Sig::invalid_device_function);
}
