// explain: the reader and the matcher on REAL logs posted in public issues
// (tests/fixtures/logs/*.txt, sources in tests/fixtures/logs/SOURCE.md, and
// the kernel excerpts of tests/unit/validate/data/amdgpu-faults/), each
// expected decode checked; and hostile input.
#include "explain/knowledge_load.hpp"
#include "explain/model.hpp"

#include "knowledge/builtin.hpp"
#include "knowledge/decode.hpp"

#include <catch2/catch_test_macros.hpp>

#include <fstream>
#include <sstream>

using namespace rdnafix::explain;

namespace {

// The built-in knowledge base (userspace/data/knowledge), built once.
const Loaded &kb()
{
	static const auto k = load_knowledge(rdnafix::knowledge::builtin_files(), false);
	return *k;
}

std::vector<Match> match_log(const Log &log)
{
	return rdnafix::explain::match_log(log, *kb().matcher);
}

std::string id_of(const Match &m)
{
	return m.entry ? m.entry->id : std::string("?");
}

// The decoded value of capture `name` of a match ("" when it has none).
std::string fact(const Match &m, const std::string &name)
{
	REQUIRE(m.entry);
	for (const auto &f : rdnafix::knowledge::decode(*m.entry, kb().base.tables, m.captures))
		if (f.name == name)
			return f.value;
	return {};
}

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
		out.push_back(id_of(x));
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
	REQUIRE(fact(m[0], "node") == "1");
	REQUIRE(fact(m[0], "address") == "0x7f2a53193000");
	REQUIRE(fact(m[0], "reason") == "Page not present or supervisor privilege");
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
	REQUIRE(fact(m[0], "node") == "4");
	// the entry is the "reason :GPU Hang" one (its pattern requires it)
	REQUIRE(m[0].excerpt.at(0).find("reason :GPU Hang") != std::string::npos);
}

TEST_CASE("ROCm/TheRock#737: MES failure then a GPU reset (dmesg timestamps)", "[explain]")
{
	// the MES lines are one block; KFD's "Failed to evict queue(s)" lines
	// (RDNA-LOG-072) come between the reset's begin and its end, and the reset
	// is still one block (begin ... succeeded), counted once
	const auto m = matches_of("therock-737-mes-reset.txt");
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-010", "RDNA-LOG-072", "RDNA-LOG-009", "RDNA-LOG-072"});
	REQUIRE(fact(m[0], "msg") == "REMOVE_QUEUE");
	REQUIRE(m[0].device == "0000:c1:00.0");
	REQUIRE(m[0].excerpt.size() == 3);
	REQUIRE(fact(m[3], "pid") == "2439413");
	REQUIRE(m[2].excerpt.at(0).find("GPU reset begin!") != std::string::npos);
	REQUIRE(m[2].count == 1);
	bool succeeded = false;
	for (const auto &l : m[2].excerpt)
		succeeded = succeeded || l.find("GPU reset succeeded") != std::string::npos;
	REQUIRE(succeeded);
}

TEST_CASE("pop-os/cosmic-comp#2626: ring timeout with its process, reset with VRAM lost", "[explain]")
{
	const auto m = matches_of("cosmic-comp-2626-ring-timeout.txt");
	// then the command submission the reset refused (RDNA-LOG-077)
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-008", "RDNA-LOG-009", "RDNA-LOG-077"});
	REQUIRE(fact(m[0], "ring") == "gfx_0.0.0");
	REQUIRE(fact(m[0], "process") == "cosmic-comp");
	REQUIRE(fact(m[0], "pid") == "3503");
	bool vram = false;
	for (const auto &l : m[1].excerpt)
		vram = vram || l.find("VRAM is lost") != std::string::npos;
	REQUIRE(vram);
}

TEST_CASE("kernelci/kernelci-core#2238: the missing firmware file is named", "[explain]")
{
	const auto m = matches_of("kernelci-2238-firmware.txt");
	// then the IP block that failed (RDNA-LOG-076) and the failed init (RDNA-LOG-075)
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-011", "RDNA-LOG-076", "RDNA-LOG-075"});
	REQUIRE(m[0].excerpt.size() == 3);
	REQUIRE(fact(m[0], "firmware") == "amdgpu/psp_13_0_8_toc.bin");
	REQUIRE(fact(m[0], "errno") == "ENOENT");
	REQUIRE(fact(m[1], "block") == "psp");
}

TEST_CASE("ROCm/legacy-rocm-build#5943: amdgpu.ids noise is harmless", "[explain]")
{
	const auto m = matches_of("rocm-legacy-rocm-build-5943-amdgpu-ids.txt");
	REQUIRE(ids(m) == std::vector<std::string>{"RDNA-LOG-013"});
	REQUIRE(m[0].entry->severity == Severity::harmless);
	REQUIRE(fact(m[0], "path") == "/opt/amdgpu/share/libdrm/amdgpu.ids");
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
			faults += id_of(x) == "RDNA-LOG-007";
		REQUIRE(faults == n);
	}
	// cosmic-comp#1953 also carries the ring timeout and the ring reset
	// (the ring reset and "device wedged" lines: RDNA-LOG-073, the ring reset
	// after a hang)
	const auto m = match_log(read_log(excerpt("popos-cosmic-comp-1953.log")));
	const auto got = ids(m);
	REQUIRE(got.size() >= 3);
	REQUIRE(std::vector<std::string>(got.begin(), got.begin() + 2) ==
		std::vector<std::string>{"RDNA-LOG-007", "RDNA-LOG-008"});
	for (std::size_t i = 2; i < got.size(); ++i)
		REQUIRE(got[i] == "RDNA-LOG-073");
	REQUIRE(fact(m[2], "ring") == "gfx_0.0.0");
}

TEST_CASE("a fault storm folds into one match, counted", "[explain]")
{
	std::string storm;
	for (int i = 0; i < 50; ++i)
		storm += excerpt("rocm-therock-1271.log") +
			 "[ 1.0] unrelated line\n[ 1.1] another one\n[ 1.2] and one more\n";
	const auto m = match_log(read_log(storm));
	REQUIRE(m.size() == 1);
	REQUIRE(id_of(m[0]) == "RDNA-LOG-007");
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
	REQUIRE(id_of(bm.back()) == "RDNA-LOG-012");
	for (const auto &l : bin.lines)
		REQUIRE(l.text.find('\0') == std::string::npos);

	std::string huge(100u * 1024 * 1024, 'a');
	huge += "\nHIP error: invalid device function\n";
	const auto big = read_log(huge);
	REQUIRE(big.lines.size() == 2);
	REQUIRE(big.lines[0].text.size() == 64 * 1024);
	REQUIRE(big.problems.front() == "line 1: 104857600 bytes, only the first 65536 were read");
	REQUIRE(id_of(match_log(big).back()) == "RDNA-LOG-001");
}
