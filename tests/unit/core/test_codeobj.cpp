// core/codeobj*: target ids, bundle entry ids, the EF_AMDGPU_MACH table, the
// AMDGPU ELF header, and the byte readers of ELF section tables, bundle
// entry tables and CCOB headers, on good and hostile bytes.
#include "core/codeobj.hpp"
#include "core/codeobj_bytes.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>

namespace co = rdnafix::core::codeobj;

namespace {

void put64(std::string &d, std::size_t off, std::uint64_t v)
{
	if (d.size() < off + 8)
		d.resize(off + 8, '\0');
	for (int i = 0; i < 8; ++i)
		d[off + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// An AMDGPU ELF header: class 64, LE, OS ABI 64 (HSA), ABI version, e_flags.
std::string amdgpu_header(unsigned abi, std::uint32_t flags, unsigned machine = 224)
{
	std::string h(64, '\0');
	h.replace(0, 4,
		  "\x7f"
		  "ELF");
	h[4] = 2;
	h[5] = 1;
	h[6] = 1;
	h[7] = 64;
	h[8] = static_cast<char>(abi);
	h[18] = static_cast<char>(machine & 0xff);
	h[19] = static_cast<char>(machine >> 8);
	for (int i = 0; i < 4; ++i)
		h[48 + i] = static_cast<char>((flags >> (8 * i)) & 0xff);
	return h;
}

// A plain bundle with the given (offset, size, id) entries.
struct E {
	std::uint64_t off, size;
	std::string id;
};
std::string bundle(std::initializer_list<E> entries)
{
	std::string d(co::kBundleMagic);
	put64(d, 24, entries.size());
	for (const auto &[off, size, id] : entries) { // NOLINT
		std::size_t p = d.size();
		put64(d, p, off);
		put64(d, p + 8, size);
		put64(d, p + 16, id.size());
		d += id;
	}
	return d;
}

} // namespace

TEST_CASE("codeobj: target ids", "[codeobj]")
{
	auto t = co::parse_target_id("gfx90a:xnack-:sramecc+");
	REQUIRE(t);
	CHECK(t->processor == "gfx90a");
	CHECK(t->xnack == co::Feature::off);
	CHECK(t->sramecc == co::Feature::on);
	CHECK(t->canonical() == "gfx90a:sramecc+:xnack-");
	auto g = co::parse_target_id("gfx10-3-generic");
	REQUIRE(g);
	CHECK(g->is_generic());
	CHECK_FALSE(co::parse_target_id("gfx1030")->is_generic());
	for (const char *bad : {"", "gfx", "sm_80", "gfx1030:", "gfx1030:xnack", "gfx1030:xnack*", "gfx1030:foo+",
				"gfx90a:xnack+:xnack-", "GFX1030", "gfx10 30"}) {
		INFO(bad);
		auto r = co::parse_target_id(bad);
		REQUIRE_FALSE(r);
		CHECK(r.error().message.find("expected a processor") != std::string::npos);
	}
}

TEST_CASE("codeobj: bundle entry ids", "[codeobj]")
{
	auto e = co::parse_entry_id("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+");
	REQUIRE(e);
	CHECK(e->kind == "hipv4");
	CHECK(e->triple == "amdgcn-amd-amdhsa-");
	CHECK(e->is_amdgcn());
	REQUIRE(e->target);
	CHECK(e->target->canonical() == "gfx90a:xnack+");
	auto g = co::parse_entry_id("hipv4-amdgcn-amd-amdhsa--gfx10-3-generic");
	REQUIRE(g);
	CHECK(g->target->processor == "gfx10-3-generic");
	auto host = co::parse_entry_id("host-x86_64-unknown-linux-gnu-");
	REQUIRE(host);
	CHECK(host->kind == "host");
	CHECK(host->triple == "x86_64-unknown-linux-gnu");
	CHECK_FALSE(host->target);
	CHECK_FALSE(host->is_amdgcn());
	auto old = co::parse_entry_id("hip-amdgcn-amd-amdhsa-gfx906");
	REQUIRE(old);
	CHECK(old->kind == "hip");
	CHECK(old->target->processor == "gfx906");
	auto omp = co::parse_entry_id("openmp-amdgcn-amd-amdhsa--gfx1100");
	REQUIRE(omp);
	CHECK(omp->kind == "openmp");
	for (const char *bad :
	     {"", "-amdgcn-amd-amdhsa--gfx1030", "hipv4", "hipv4-amdgcn-amd", "hipv4-amdgcn-amd-amdhsa-",
	      "hipv4-amdgcn-amd-amdhsa--", "hipv4-amdgcn-amd-amdhsa--sm_80", "hip v4-amdgcn-amd-amdhsa--gfx1030"}) {
		INFO(bad);
		auto r = co::parse_entry_id(bad);
		REQUIRE_FALSE(r);
		CHECK(r.error().message.find("bundle entry id") != std::string::npos);
	}
	CHECK_FALSE(co::parse_entry_id(std::string("hipv4-amdgcn-amd-amdhsa--gfx1030\0", 34)));
}

TEST_CASE("codeobj: EF_AMDGPU_MACH table (AMDGPUUsage.rst)", "[codeobj]")
{
	const std::pair<unsigned, const char *> known[] = {
		{0x02a, "gfx803"},          {0x02c, "gfx900"},        {0x02f, "gfx906"},
		{0x030, "gfx908"},          {0x03f, "gfx90a"},        {0x04c, "gfx942"},
		{0x04f, "gfx950"},          {0x033, "gfx1010"},       {0x034, "gfx1011"},
		{0x035, "gfx1012"},         {0x042, "gfx1013"},       {0x036, "gfx1030"},
		{0x037, "gfx1031"},         {0x038, "gfx1032"},       {0x039, "gfx1033"},
		{0x03e, "gfx1034"},         {0x03d, "gfx1035"},       {0x045, "gfx1036"},
		{0x041, "gfx1100"},         {0x046, "gfx1101"},       {0x047, "gfx1102"},
		{0x044, "gfx1103"},         {0x043, "gfx1150"},       {0x04a, "gfx1151"},
		{0x055, "gfx1152"},         {0x058, "gfx1153"},       {0x048, "gfx1200"},
		{0x04e, "gfx1201"},         {0x051, "gfx9-generic"},  {0x052, "gfx10-1-generic"},
		{0x053, "gfx10-3-generic"}, {0x054, "gfx11-generic"}, {0x059, "gfx12-generic"},
		{0x05f, "gfx9-4-generic"},
	};
	for (const auto &[mach, name] : known) {
		INFO(name);
		CHECK(co::mach_name(mach) == std::string_view(name));
		CHECK(co::mach_of(name) == mach);
	}
	for (unsigned bad : {0x000u, 0x001u, 0x027u, 0x04du, 0x056u, 0x0ffu, 0x100u})
		CHECK_FALSE(co::mach_name(bad));
}

TEST_CASE("codeobj: AMDGPU ELF header", "[codeobj]")
{
	// e_flags of the entries of a hipcc 21 fat binary (llvm-readelf -h).
	auto x = co::decode_amdgpu_elf_header(amdgpu_header(4, 0x73f));
	REQUIRE(x);
	CHECK(x->code_object_version == 6);
	CHECK(x->target.canonical() == "gfx90a:xnack+");
	CHECK(x->target.sramecc == co::Feature::any);
	CHECK(co::decode_amdgpu_elf_header(amdgpu_header(4, 0x63f))->target.canonical() == "gfx90a:xnack-");
	CHECK(co::decode_amdgpu_elf_header(amdgpu_header(2, 0xe3f))->target.canonical() == "gfx90a:sramecc+:xnack-");
	CHECK(co::decode_amdgpu_elf_header(amdgpu_header(3, 0x36))->code_object_version == 5);
	auto g = co::decode_amdgpu_elf_header(amdgpu_header(4, 0x01000053));
	REQUIRE(g);
	CHECK(g->target.processor == "gfx10-3-generic");
	CHECK(g->generic_version == 1u);
	// Errors: each names what is wrong.
	auto err = [](const std::string &h) {
		auto r = co::decode_amdgpu_elf_header(h);
		REQUIRE_FALSE(r);
		return r.error().message;
	};
	CHECK(err(amdgpu_header(4, 0x53)).find("EF_AMDGPU_GENERIC_VERSION") != std::string::npos);
	CHECK(err(amdgpu_header(4, 0x4d)).find("0x04d") != std::string::npos);
	CHECK(err(amdgpu_header(9, 0x36)).find("ABI version 9") != std::string::npos);
	CHECK(err(amdgpu_header(4, 0x36, 62)).find("EM_AMDGPU") != std::string::npos);
	CHECK(err(amdgpu_header(4, 0x36).substr(0, 40)).find("truncated") != std::string::npos);
	CHECK(err("MZ\x90").find("no ELF magic") != std::string::npos);
	std::string c32 = amdgpu_header(4, 0x36);
	c32[4] = 1;
	CHECK(err(c32).find("ELFCLASS64") != std::string::npos);
}

TEST_CASE("codeobj: ELF section table", "[codeobj]")
{
	std::string t(128, '\0');
	put64(t, 64 + 24, 0x1000); // section 1 offset
	put64(t, 64 + 32, 0x200);  // size
	t[64 + 4] = 1;             // SHT_PROGBITS
	auto s = co::parse_section_table(t, 64, 2, 0x1200);
	REQUIRE(s);
	CHECK((*s)[1].offset == 0x1000);
	CHECK_FALSE(co::parse_section_table(t, 64, 2, 0x11ff)); // past the file
	CHECK_FALSE(co::parse_section_table(t, 64, 3, 0x1200)); // table truncated
	CHECK_FALSE(co::parse_section_table(t, 40, 2, 0x1200)); // ELF32-sized entries
	put64(t, 64 + 32, UINT64_MAX);                          // wraps around
	CHECK_FALSE(co::parse_section_table(t, 64, 2, 0x1200));
	std::string names("\0.text\0.hip_fatbin\0", 19);
	CHECK(*co::section_name(names, 7) == std::string_view(".hip_fatbin"));
	CHECK_FALSE(co::section_name(names, 19));
	CHECK_FALSE(co::section_name(std::string_view(".hip_fatbin"), 0)); // no NUL
}

TEST_CASE("codeobj: bundle entry table, good and hostile", "[codeobj]")
{
	co::BundleLimits lim;
	lim.max_size = 1 << 20;
	std::string b = bundle({{4096, 0, "host-x86_64-unknown-linux-gnu-"},
				{4096, 100, "hipv4-amdgcn-amd-amdhsa--gfx1030"},
				{8192, 50, "hipv4-amdgcn-amd-amdhsa--gfx1100"}});
	CHECK(*co::bundle_table_size(b, lim) == b.size());
	CHECK(*co::bundle_table_size(b.substr(0, 40), lim) > 40); // asks for more
	auto t = co::parse_bundle_table(b, lim);
	REQUIRE(t);
	CHECK(t->entries.size() == 3);
	CHECK(t->end == 8192 + 50);
	auto err = [&](const std::string &d) {
		auto r = co::parse_bundle_table(d, lim);
		REQUIRE_FALSE(r);
		return r.error().message;
	};
	std::string huge = b;
	put64(huge, 24, UINT64_MAX);
	CHECK(err(huge).find("claims 18446744073709551615 entries") != std::string::npos);
	std::string idlen = b;
	put64(idlen, 32 + 16, UINT64_MAX);
	CHECK(err(idlen).find("id length") != std::string::npos);
	CHECK(err(bundle({{4096, UINT64_MAX, "a-b-c-d-e-gfx1030"}})).find("runs past") != std::string::npos);
	CHECK(err(bundle({{UINT64_MAX, 2, "a-b-c-d-e-gfx1030"}})).find("runs past") != std::string::npos);
	CHECK(err(bundle({{0, 64, "x-a"}})).find("overlaps the bundle header") != std::string::npos);
	CHECK(err(bundle({{4096, 100, "a"}, {4100, 100, "b"}})).find("overlap") != std::string::npos);
	CHECK(err(bundle({{4096, 0, "a"}, {4096, 0, "a"}})).find("twice") != std::string::npos);
	CHECK(err(bundle({})).find("0 entries") != std::string::npos);
	CHECK(err(b.substr(0, b.size() - 1)).find("truncated") != std::string::npos);
	CHECK(err("__CLANG_OFFLOAD_BUNDLF__").find("no offload-bundle magic") != std::string::npos);
}

TEST_CASE("codeobj: CCOB headers v1-v3", "[codeobj]")
{
	// The v2 and v3 headers hipcc 21 wrote (docs/rocm-facts.md §4).
	std::string v2("CCOB\x02\x00\x01\x00\xc6\x09\x00\x00\x20\xe5\x00\x00\x52\x71\x43\x7f\x05\xb8\x3e\x88", 24);
	auto h = co::parse_ccob_header(v2);
	REQUIRE(h);
	CHECK(h->version == 2);
	CHECK(h->method_name() == "zstd");
	CHECK(h->total_size == 2502);
	CHECK(h->uncompressed_size == 58656);
	CHECK(h->header_size == 24);
	std::string v3("CCOB\x03\x00\x01\x00", 8);
	put64(v3, 8, 1842);
	put64(v3, 16, 17120);
	put64(v3, 24, 0x5af0d85c7cf2ba94ull);
	auto h3 = co::parse_ccob_header(v3);
	REQUIRE(h3);
	CHECK(h3->total_size == 1842);
	CHECK(h3->header_size == 32);
	std::string v1("CCOB\x01\x00\x00\x00\x00\x10\x00\x00", 12);
	put64(v1, 12, 1);
	auto h1 = co::parse_ccob_header(v1);
	REQUIRE(h1);
	CHECK(h1->method_name() == "zlib");
	CHECK(h1->uncompressed_size == 4096);
	CHECK(h1->total_size == 0);
	auto err = [](std::string d) { return co::parse_ccob_header(d).error().message; };
	CHECK(err(v2.substr(0, 20)).find("truncated") != std::string::npos);
	std::string v4 = v2;
	v4[4] = 4;
	CHECK(err(v4).find("version 4") != std::string::npos);
	std::string m2 = v2;
	m2[6] = 2;
	CHECK(err(m2).find("method 2") != std::string::npos);
	std::string small = v3;
	put64(small, 8, 32);
	CHECK(err(small).find("not larger than") != std::string::npos);
	CHECK(err("CCOX").find("no compressed-bundle magic") != std::string::npos);
}
