// read_fatbin on real fat binaries made by Debian sid's hipcc 7.0.2 / clang
// 21.1.8 (data/SOURCE.md): a shared library with a plain bundle, libraries
// with CCOB v2 and v3 (zstd) bundles, bare bundles and a bare code object.
// The expected entry lists are what clang-offload-bundler --list printed for
// the same files (SOURCE.md).
#include "software/read_fatbin.hpp"
#include "io/rootfs.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace cov = rdnafix::coverage;
namespace co = rdnafix::core::codeobj;

namespace {

rdnafix::io::RootFs data_fs()
{
	return rdnafix::io::RootFs(RDNAFIX_FATBIN_DATA);
}

std::vector<std::string> ids(const cov::FatbinBundle &b)
{
	std::vector<std::string> v;
	for (const auto &e : b.entries)
		v.push_back(e.id.raw);
	std::sort(v.begin(), v.end());
	return v;
}

const std::vector<std::string> kAll8 = {
	"hipv4-amdgcn-amd-amdhsa--gfx10-3-generic", "hipv4-amdgcn-amd-amdhsa--gfx1010",
	"hipv4-amdgcn-amd-amdhsa--gfx1030",         "hipv4-amdgcn-amd-amdhsa--gfx1031",
	"hipv4-amdgcn-amd-amdhsa--gfx1100",         "hipv4-amdgcn-amd-amdhsa--gfx1151",
	"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",   "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-",
	"host-x86_64-unknown-linux-gnu-",
};

// Every AMDGPU entry's e_flags agree with its id; e_flags as llvm-readelf shows them.
void check_all8(const cov::FatbinBundle &b)
{
	REQUIRE(b.unreadable.empty());
	CHECK(ids(b) == kAll8);
	for (const auto &e : b.entries) {
		INFO(e.id.raw);
		CHECK(e.disagreement.empty());
		if (!e.id.is_amdgcn()) {
			CHECK(e.size == 0);
			CHECK_FALSE(e.elf);
			continue;
		}
		REQUIRE(e.elf);
		CHECK(e.elf->code_object_version == 6);
		CHECK(e.elf->target == *e.id.target);
		if (e.id.target->processor == "gfx10-3-generic") {
			CHECK(e.elf->e_flags == 0x01000053u);
			CHECK(e.elf->generic_version == 1u);
		}
		if (e.id.raw.ends_with("gfx90a:xnack+"))
			CHECK(e.elf->e_flags == 0x73fu);
		if (e.id.raw.ends_with("gfx90a:xnack-"))
			CHECK(e.elf->e_flags == 0x63fu);
		if (e.id.raw.ends_with("gfx1031"))
			CHECK(e.elf->e_flags == 0x37u);
	}
}

} // namespace

TEST_CASE("read_fatbin: shared library with a plain bundle", "[read_fatbin]")
{
	auto fs = data_fs();
	auto f = cov::read_fatbin(fs, "libk3_plain.so");
	REQUIRE(f.unreadable.empty());
	CHECK(f.kind == cov::FileKind::elf_with_fatbin);
	REQUIRE(f.bundles.size() == 1);
	const auto &b = f.bundles[0];
	CHECK(b.format == cov::BundleFormat::plain);
	CHECK(b.file_offset % 4096 == 0);
	CHECK(ids(b) == std::vector<std::string>{"hipv4-amdgcn-amd-amdhsa--gfx1030", "hipv4-amdgcn-amd-amdhsa--gfx1100",
						 "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-",
						 "host-x86_64-unknown-linux-gnu-"});
	for (const auto &e : b.entries)
		CHECK(e.disagreement.empty());
	// Headers only: far less than the file.
	CHECK(f.bytes_read > 0);
	CHECK(f.bytes_read < f.size / 4);
}

TEST_CASE("read_fatbin: CCOB v2 and v3 (zstd) in shared libraries", "[read_fatbin]")
{
	auto fs = data_fs();
	for (const char *name : {"libk8_ccob2.so", "libk8_ccob3.so"}) {
		INFO(name);
		auto f = cov::read_fatbin(fs, name);
		REQUIRE(f.unreadable.empty());
		CHECK(f.kind == cov::FileKind::elf_with_fatbin);
		REQUIRE(f.bundles.size() == 1);
		const auto &b = f.bundles[0];
		CHECK(b.format == cov::BundleFormat::ccob);
		CHECK(b.ccob_version == (std::string(name).find("ccob3") != std::string::npos ? 3u : 2u));
		CHECK(b.compression == "zstd");
		CHECK(b.uncompressed_size > b.stored_size);
		check_all8(b);
	}
}

TEST_CASE("read_fatbin: bare bundles and a bare code object", "[read_fatbin]")
{
	auto fs = data_fs();
	const std::vector<std::string> two = {"hipv4-amdgcn-amd-amdhsa--gfx1030", "hipv4-amdgcn-amd-amdhsa--gfx1151",
					      "host-x86_64-unknown-linux-gnu-"};
	auto plain = cov::read_fatbin(fs, "k2_bundle.hipfb");
	CHECK(plain.kind == cov::FileKind::bundle);
	REQUIRE(plain.bundles.size() == 1);
	CHECK(plain.bundles[0].format == cov::BundleFormat::plain);
	CHECK(ids(plain.bundles[0]) == two);
	CHECK(plain.bundles[0].stored_size == plain.size);

	auto ccob = cov::read_fatbin(fs, "k2_ccob2.hipfb");
	CHECK(ccob.kind == cov::FileKind::bundle);
	REQUIRE(ccob.bundles.size() == 1);
	CHECK(ccob.bundles[0].ccob_version == 2);
	CHECK(ids(ccob.bundles[0]) == two);
	CHECK(ccob.bundles[0].stored_size == ccob.size);

	auto obj = cov::read_fatbin(fs, "k_gfx1031.co");
	CHECK(obj.kind == cov::FileKind::code_object);
	REQUIRE(obj.code_object);
	CHECK(obj.code_object->target.canonical() == "gfx1031");
	CHECK(obj.code_object->e_flags == 0x37u);
	CHECK(obj.bytes_read == 64);
}

TEST_CASE("read_fatbin: files without device code", "[read_fatbin]")
{
	auto fs = data_fs();
	auto src = cov::read_fatbin(fs, "k.hip");
	CHECK(src.kind == cov::FileKind::not_device_code);
	CHECK(src.unreadable.empty());
	auto missing = cov::read_fatbin(fs, "no-such-file.so");
	CHECK(missing.kind == cov::FileKind::unreadable);
	CHECK(missing.unreadable.find("no such file") != std::string::npos);
	auto dir = cov::read_fatbin(fs, ".");
	CHECK(dir.kind == cov::FileKind::unreadable);
	CHECK_FALSE(dir.unreadable.empty());
}

TEST_CASE("read_fatbin: an ELF without .hip_fatbin", "[read_fatbin]")
{
	// The test binary itself is an x86-64 ELF with no device code.
	rdnafix::io::RootFs fs("/");
	auto f = cov::read_fatbin(fs, "proc/self/exe");
	CHECK(f.kind == cov::FileKind::elf_without);
	CHECK(f.unreadable.empty());
	CHECK(f.bundles.empty());
}
