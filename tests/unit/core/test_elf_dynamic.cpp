// core/elf_dynamic.cpp and core/ldcache.cpp on real files: the system's
// libstdc++ and libc, libraries built here by the real toolchain (g++ with a
// version script and a RUNPATH), the system's /etc/ld.so.cache; and every
// prefix of them (a file cut short is an error, never a read past the bytes).
#include "core/elf_dynamic.hpp"
#include "core/ldcache.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstring>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
namespace ed = rdnafix::core::elfdyn;
namespace lc = rdnafix::core::ldcache;

namespace {

std::string slurp(const fs::path &p)
{
	std::ifstream f(p, std::ios::binary);
	std::stringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

bool has(const std::vector<std::string> &v, const std::string &s)
{
	return std::find(v.begin(), v.end(), s) != v.end();
}

const fs::path kLibstdcxx = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";

} // namespace

TEST_CASE("elf_dynamic: the system's libstdc++ defines GLIBCXX_3.4.30 and needs GLIBC_ versions of libc")
{
	if (!fs::exists(kLibstdcxx))
		SKIP("no " << kLibstdcxx);
	const std::string b = slurp(kLibstdcxx);
	auto info = ed::parse(ed::read_from(b), b.size());
	REQUIRE(info);
	CHECK(info->elf_class == 2);
	CHECK(info->machine == ed::kMachineX86_64);
	CHECK(info->soname == "libstdc++.so.6");
	CHECK(has(info->needed, "libc.so.6"));
	CHECK(has(info->version_defs, "GLIBCXX_3.4"));
	CHECK(has(info->version_defs, "GLIBCXX_3.4.30")); // GCC 12 (bookworm)
	CHECK(has(info->version_defs, "CXXABI_1.3.13"));
	CHECK_FALSE(has(info->version_defs, "libstdc++.so.6")); // the base entry is not a version
	auto libc = std::find_if(info->version_needs.begin(), info->version_needs.end(),
				 [](const ed::VersionNeed &n) { return n.file == "libc.so.6"; });
	REQUIRE(libc != info->version_needs.end());
	CHECK(std::any_of(libc->versions.begin(), libc->versions.end(),
			  [](const std::string &v) { return v.starts_with("GLIBC_2."); }));
}

TEST_CASE("elf_dynamic: libraries built here with a version script and a RUNPATH")
{
	const fs::path dir = fs::temp_directory_path() / ("rdnafix-elfdyn-" + std::to_string(::getpid()));
	fs::create_directories(dir);
	std::ofstream(dir / "prov.cpp") << "extern \"C\" int prov_fn() { return 7; }\n";
	std::ofstream(dir / "prov.map") << "RDNA_TEST_3.4.99 { global: prov_fn; local: *; };\n";
	std::ofstream(dir / "need.cpp")
		<< "extern \"C\" int prov_fn();\nextern \"C\" int need_fn() { return prov_fn(); }\n";
	const std::string d = dir.string();
	const std::string cmd =
		"cd '" + d + "' && g++ -shared -fPIC -o libprov.so.1 -Wl,-soname,libprov.so.1 " +
		"-Wl,--version-script,prov.map prov.cpp && g++ -shared -fPIC -o libneed.so need.cpp " +
		"-Wl,-soname,libneed.so.2 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib' ./libprov.so.1";
	if (std::system("command -v g++ >/dev/null") != 0)
		SKIP("g++ not installed");
	REQUIRE(std::system(cmd.c_str()) == 0);
	const std::string prov = slurp(dir / "libprov.so.1"), need = slurp(dir / "libneed.so");
	auto p = ed::parse(ed::read_from(prov), prov.size());
	REQUIRE(p);
	CHECK(p->soname == "libprov.so.1");
	CHECK(p->version_defs == std::vector<std::string>{"RDNA_TEST_3.4.99"});
	auto n = ed::parse(ed::read_from(need), need.size());
	REQUIRE(n);
	CHECK(n->soname == "libneed.so.2");
	CHECK(has(n->needed, "libprov.so.1"));
	CHECK(n->runpath == "$ORIGIN/../lib");
	CHECK(n->rpath.empty());
	auto vn = std::find_if(n->version_needs.begin(), n->version_needs.end(),
			       [](const ed::VersionNeed &x) { return x.file == "libprov.so.1"; });
	REQUIRE(vn != n->version_needs.end());
	CHECK(vn->versions == std::vector<std::string>{"RDNA_TEST_3.4.99"});

	// Every prefix of the file: parsed as far as it goes or an error, never a crash.
	std::size_t errors = 0;
	for (std::size_t len = 0; len < need.size(); len += 97) {
		const std::string cut = need.substr(0, len);
		if (!ed::parse(ed::read_from(cut), cut.size()))
			++errors;
	}
	CHECK(errors > 0);
	fs::remove_all(dir);
}

TEST_CASE("elf_dynamic: what is not a 64-bit little-endian ELF")
{
	const std::string text = "#!/bin/sh\necho not elf\n";
	auto r = ed::parse(ed::read_from(text), text.size());
	REQUIRE_FALSE(r);
	CHECK(r.error().message.find("not an ELF file") != std::string::npos);
	std::string big = "\x7f"
			  "ELF\x02\x02\x01";
	big.resize(64, '\0');
	auto r2 = ed::parse(ed::read_from(big), big.size());
	REQUIRE_FALSE(r2);
	CHECK(r2.error().message.find("not little-endian") != std::string::npos);
	std::string c32 = "\x7f"
			  "ELF\x01\x01\x01";
	c32.resize(52, '\0');
	c32[18] = 3; // EM_386
	auto r3 = ed::parse(ed::read_from(c32), c32.size());
	REQUIRE(r3);
	CHECK(r3->elf_class == 1);
	CHECK(r3->machine == 3);
}

TEST_CASE("elf_dynamic: a DT_NEEDED string index outside DT_STRSZ is an error naming it")
{
	if (!fs::exists(kLibstdcxx))
		SKIP("no " << kLibstdcxx);
	std::string b = slurp(kLibstdcxx);
	auto ok = ed::parse(ed::read_from(b), b.size());
	REQUIRE(ok);
	// Find the first DT_NEEDED (tag 1) in PT_DYNAMIC and point it past the table.
	std::uint64_t phoff;
	std::uint16_t phnum;
	std::memcpy(&phoff, b.data() + 32, 8);
	std::memcpy(&phnum, b.data() + 56, 2);
	bool planted = false;
	for (std::uint16_t i = 0; i < phnum && !planted; ++i) {
		std::uint32_t type;
		std::uint64_t off, sz;
		std::memcpy(&type, b.data() + phoff + i * 56, 4);
		std::memcpy(&off, b.data() + phoff + i * 56 + 8, 8);
		std::memcpy(&sz, b.data() + phoff + i * 56 + 32, 8);
		if (type != 2)
			continue;
		for (std::uint64_t e = off; e + 16 <= off + sz; e += 16) {
			std::int64_t tag;
			std::memcpy(&tag, b.data() + e, 8);
			if (tag == 1) {
				const std::uint64_t bad = 0xfffffff0;
				std::memcpy(b.data() + e + 8, &bad, 8);
				planted = true;
				break;
			}
		}
	}
	REQUIRE(planted);
	auto r = ed::parse(ed::read_from(b), b.size());
	REQUIRE_FALSE(r);
	CHECK(r.error().message.find("DT_NEEDED names string") != std::string::npos);
}

TEST_CASE("ldcache: the system's /etc/ld.so.cache maps libc.so.6 to a multiarch path")
{
	if (!fs::exists("/etc/ld.so.cache"))
		SKIP("no /etc/ld.so.cache");
	const std::string b = slurp("/etc/ld.so.cache");
	auto entries = lc::parse(b);
	REQUIRE(entries);
	CHECK(entries->size() > 10);
	auto libc = std::find_if(entries->begin(), entries->end(), [](const lc::Entry &e) {
		return e.soname == "libc.so.6" && e.flags == lc::kFlagX86_64Libc6;
	});
	REQUIRE(libc != entries->end());
	CHECK(libc->path.ends_with("/libc.so.6"));
	CHECK(fs::exists(libc->path));
	// Cut anywhere inside the entry table: an error, never a read past the bytes.
	for (std::size_t len : {std::size_t(0), std::size_t(20), std::size_t(47), std::size_t(48 + 24 * 3)}) {
		auto r = lc::parse(std::string_view(b).substr(0, len));
		CHECK_FALSE(r);
	}
	auto r = lc::parse("ld.so-1.7.0");
	REQUIRE_FALSE(r);
	CHECK(r.error().message.find("cut short") != std::string::npos);
}
