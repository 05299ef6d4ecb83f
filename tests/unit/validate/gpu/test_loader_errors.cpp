// Loader: what rdnactl says about a library that is there but cannot be
// loaded (another architecture, another ELF class, not an ELF at all), as
// opposed to one that is not there; and a runtime that reports an impossible
// device count.  Real files with hand-written ELF headers, real dlopen.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <vector>

#include <elf.h>

#include "loader.hpp"
#include "test_util.hpp"

using namespace rdnafix::gpu;

namespace {

bool has(const std::string &text, const std::string &what)
{
	return text.find(what) != std::string::npos;
}

// An ELF header of the given class and machine, padded so that glibc reads it whole.
void write_elf(const std::string &path, unsigned char elf_class, std::uint16_t machine)
{
	std::vector<unsigned char> b(2048, 0);
	const unsigned char ident[] = {0x7f, 'E', 'L', 'F', elf_class, ELFDATA2LSB, EV_CURRENT};
	std::copy(std::begin(ident), std::end(ident), b.begin());
	b[16] = ET_DYN;
	b[18] = machine & 0xff;
	b[19] = machine >> 8;
	b[20] = EV_CURRENT;
	std::ofstream(path, std::ios::binary)
		.write(reinterpret_cast<const char *>(b.data()), std::streamsize(b.size()));
}

SearchConfig only_dir(const std::string &dir)
{
	SearchConfig c;
	c.explicit_dir = dir;
	c.only_explicit = true;
	return c;
}

std::string attempt(const ProbeResult &r, const std::string &path)
{
	for (const auto &a : r.attempts)
		if (a.path == path)
			return a.detail;
	return "(not tried)";
}

} // namespace

TEST_CASE("loader: an ELF of another architecture, another class or no ELF at all is not 'not found'", "[loader][elf]")
{
	gputest::TempDir dir;
	const std::string arm = dir.path + "/libamdhip64.so.7";  // aarch64, 64-bit
	const std::string x32 = dir.path + "/libamdhip64.so.6";  // i386, 32-bit
	const std::string text = dir.path + "/libamdhip64.so.5"; // a linker script
	write_elf(arm, ELFCLASS64, EM_AARCH64);
	write_elf(x32, ELFCLASS32, EM_386);
	std::ofstream(text) << "/* GNU ld script */\nGROUP ( libamdhip64.so.6 )\n" << std::string(1024, ' ');
	const ProbeResult r = probe(Api::hip, only_dir(dir.path));
	REQUIRE(r.state == ProbeState::no_runtime);
	const std::string a = attempt(r, arm), b = attempt(r, x32), c = attempt(r, text);
	INFO(r.describe());
	CHECK_FALSE(has(a, "not found"));
	CHECK(has(a, "an ELF for aarch64 (e_machine 183)"));
	CHECK(has(a, "rdnactl runs on x86_64"));
	CHECK_FALSE(has(b, "not found"));
	CHECK(has(b, "32-bit"));
	CHECK(has(b, "ELFCLASS32"));
	CHECK_FALSE(has(c, "not found"));
	CHECK(has(c, "not an ELF file (text"));
	CHECK(has(c, "invalid ELF header"));
	// the one that is really absent still says so
	CHECK(attempt(r, dir.path + "/libamdhip64.so") == "not found");
	CHECK(has(r.describe(), arm + ": cannot be loaded: an ELF for aarch64"));
}

TEST_CASE("loader: dlerror texts are classified", "[loader][elf]")
{
	const std::string p = "/x/libamdhip64.so";
	CHECK(describe_dlopen_error(p, p + ": cannot open shared object file: No such file or directory", "") ==
	      "not found");
	CHECK(describe_dlopen_error(p, p + ": cannot open shared object file: Permission denied", "") ==
	      "cannot be read: permission denied (cannot open shared object file: Permission denied)");
	CHECK(describe_dlopen_error(p, p + ": undefined symbol: hsa_amd_foo", "") ==
	      "cannot be loaded: undefined symbol: hsa_amd_foo (a library it depends on is of another version)");
	CHECK(describe_dlopen_error(p,
				    "libhsa-runtime64.so.1: cannot open shared object file: No such file or directory",
				    "") == "cannot be loaded: it needs libhsa-runtime64.so.1, which is not found");
	CHECK(describe_dlopen_error(p, p + ": file too short", "not an ELF file (empty)") ==
	      "cannot be loaded: not an ELF file (empty) (file too short)");
	CHECK(describe_dlopen_error(p, p + ": something new", "") == "something new");
}

TEST_CASE("loader: a 32-bit library of the host, when there is one, is named as such", "[loader][elf]")
{
	const std::string ld32 = "/usr/lib32/ld-linux.so.2";
	if (!std::ifstream(ld32))
		SKIP("no 32-bit loader on this host");
	CHECK(elf_mismatch(ld32) == "a 32-bit ELF (ELFCLASS32); rdnactl is 64-bit");
	std::vector<LoadAttempt> log;
	CHECK_FALSE(DlHandle::open("runtime", ld32, {}, log));
	REQUIRE(log.size() == 1);
	CHECK(has(log[0].detail, "32-bit"));
}

TEST_CASE("probe: a negative or absurd device count is a runtime error, not a count", "[loader][count]")
{
	for (const char *dir : {FAKE_HIP_NEGCOUNT_DIR, FAKE_HIP_HUGECOUNT_DIR}) {
		const ProbeResult r = probe(Api::hip, only_dir(dir));
		INFO(r.describe());
		CHECK(r.state == ProbeState::init_failed);
		CHECK(r.devices.empty());
		CHECK(has(r.describe(), "impossible device count"));
		CHECK(has(r.describe(), "0..1024"));
	}
	CHECK(has(probe(Api::hip, only_dir(FAKE_HIP_NEGCOUNT_DIR)).describe(), "count -3"));
}
