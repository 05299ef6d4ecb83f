// Keys and values: every rdnafix key through the module's own policy parser
// (refused with its RDNAFIX_VALID_* text, naming key and value), amdgpu's
// ranges, gttsize's deprecation, the TTM limit against RAM, and the words of
// `config set/unset`.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "config/keys.hpp"

#include "rdnafix_policy.h"

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix;
using config::ModuleChange;

namespace {

machine::Snapshot machine_with_ram(unsigned long long gib)
{
	machine::Snapshot s;
	s.root = "/x";
	if (gib)
		s.driver.mem_total_bytes = gib << 30;
	return s;
}

config::Checked one(const std::string &module, const std::string &name, const std::string &value,
		    unsigned long long ram_gib = 64)
{
	return config::check_module_changes({ModuleChange{module, name, value}}, machine_with_ram(ram_gib));
}

} // namespace

TEST_CASE("config keys: rdnafix values are checked by the module's policy and refused with its text")
{
	struct Case {
		const char *name, *good, *bad, *valid;
	};
	const Case cases[] = {
		{"noretry", "-1", "2", RDNAFIX_VALID_NORETRY},
		{"vm_fragment_size", "9", "3", RDNAFIX_VALID_FRAGMENT},
		{"mtype_sysmem", "nc", "NC", RDNAFIX_VALID_MTYPE},
		{"mtype_vram", "keep", "wb", RDNAFIX_VALID_MTYPE},
		{"targets", "rdna1,rdna2,gfx1031,0000:03:00.0", "", RDNAFIX_VALID_TARGETS},
		{"exclude", "", "rdna3", RDNAFIX_VALID_EXCLUDE},
		{"dry_run", "1", "yes", RDNAFIX_VALID_BOOL},
		{"strict", "0", "01", RDNAFIX_VALID_BOOL},
	};
	for (const auto &c : cases) {
		CAPTURE(c.name);
		CHECK(one("rdnafix", c.name, c.good).ok());
		auto bad = one("rdnafix", c.name, c.bad);
		REQUIRE(bad.errors.size() == 1);
		CHECK(bad.errors[0] == std::string("invalid value '") + c.bad + "' for rdnafix." + c.name +
					       ": valid values are " + c.valid);
	}
	// What the policy alone would let through as sysfs input is still refused in a file.
	CHECK_FALSE(one("rdnafix", "noretry", "1\n").ok());
	CHECK_FALSE(one("rdnafix", "noretry", "01").ok());
	CHECK_FALSE(one("rdnafix", "targets", "rdna1, rdna2").ok());
	auto where = one("rdnafix", "targets", "rdna1,bogus,apu");
	REQUIRE_FALSE(where.ok());
	CHECK_THAT(where.errors[0], ContainsSubstring("(at 'bogus')"));
}

TEST_CASE("config keys: amdgpu ranges, lockup_timeout syntax, gttsize deprecation")
{
	for (const char *v : {"-1", "0", "1"})
		CHECK(one("amdgpu", "noretry", v).ok());
	for (const char *v : {"2", "-2", "on", "", "1 "})
		CHECK_FALSE(one("amdgpu", "noretry", v).ok());
	for (const char *v : {"-1", "4", "9"})
		CHECK(one("amdgpu", "vm_fragment_size", v).ok());
	for (const char *v : {"0", "3", "10", "-0"})
		CHECK_FALSE(one("amdgpu", "vm_fragment_size", v).ok());
	for (const char *v : {"10000", "0", "-1", "10000,60000,10000,10000", "5000,-1"})
		CHECK(one("amdgpu", "lockup_timeout", v).ok());
	for (const char *v : {"", "1,2,3,4,5", "10000,", ",1", "10 000", "1e4", "0x10"})
		CHECK_FALSE(one("amdgpu", "lockup_timeout", v).ok());
	auto bad = one("amdgpu", "lockup_timeout", "1,2,3,4,5");
	CHECK_THAT(bad.errors[0], ContainsSubstring("amdgpu.lockup_timeout"));
	CHECK_THAT(bad.errors[0], ContainsSubstring("'1,2,3,4,5'"));

	auto gtt = one("amdgpu", "gttsize", "126976");
	CHECK(gtt.ok());
	REQUIRE(gtt.warnings.size() == 1);
	CHECK_THAT(gtt.warnings[0], ContainsSubstring("deprecated"));
	CHECK_THAT(gtt.warnings[0], ContainsSubstring("ttm-limit"));
	CHECK_FALSE(one("amdgpu", "gttsize", "16").ok()); // amdgpu resets < 32 MiB to -1
	CHECK(one("amdgpu", "gttsize", "-1").ok());
}

TEST_CASE("config keys: the TTM limit is refused above RAM minus max(1/8, 1 GiB), and without a RAM size")
{
	CHECK(config::ttm_ceiling_bytes(128ull << 30) == 112ull << 30);
	CHECK(config::ttm_ceiling_bytes(4ull << 30) == 3ull << 30);
	CHECK(config::ttm_ceiling_bytes(512ull << 20) == 0);
	const std::string max128 = std::to_string((112ull << 30) / 4096);
	CHECK(one("ttm", "pages_limit", max128, 128).ok());
	auto over = one("ttm", "pages_limit", std::to_string((112ull << 30) / 4096 + 1), 128);
	REQUIRE(over.errors.size() == 1);
	CHECK_THAT(over.errors[0], ContainsSubstring("more than this machine allows"));
	CHECK_THAT(over.errors[0], ContainsSubstring("112.0 GiB"));
	CHECK_THAT(over.errors[0], ContainsSubstring("128.0 GiB RAM"));
	CHECK_FALSE(one("amdttm", "page_pool_size", "0", 128).ok());
	auto unknown = one("ttm", "pages_limit", "1000", 0);
	REQUIRE_FALSE(unknown.ok());
	CHECK_THAT(unknown.errors[0], ContainsSubstring("proc/meminfo"));

	CHECK(*config::parse_size("96G") == 96ull << 30);
	CHECK(*config::parse_size("96GiB") == 96ull << 30);
	CHECK(*config::parse_size("98304M") == 96ull << 30);
	CHECK(*config::parse_size("4096") == 4096);
	for (const char *bad : {"", "G", "-1G", "1.5G", "96 G", "96X", "4095", "0", "99999999999999999T"})
		CHECK_FALSE(config::parse_size(bad).ok());
}

TEST_CASE("config keys: lockup_timeout and the TTM limit are bounded where the kernel would misread them")
{
	// msecs_to_jiffies(unsigned int): 2^32 ms wraps to 0 (every job times out at once).
	CHECK(one("amdgpu", "lockup_timeout", "2147483647").ok());
	CHECK(one("amdgpu", "lockup_timeout", "-1").ok());
	auto wrap = one("amdgpu", "lockup_timeout", "4294967296");
	REQUIRE(wrap.errors.size() == 1);
	CHECK_THAT(wrap.errors[0], ContainsSubstring("wraps to 0 ms: every GPU job would time out at once"));
	CHECK_THAT(wrap.errors[0], ContainsSubstring("at most 2147483647"));
	auto never = one("amdgpu", "lockup_timeout", "10000,3000000000");
	REQUIRE(never.errors.size() == 1);
	CHECK_THAT(never.errors[0], ContainsSubstring("taken as 'never'"));
	auto small = one("amdgpu", "lockup_timeout", "4294977296");
	REQUIRE(small.errors.size() == 1);
	CHECK_THAT(small.errors[0], ContainsSubstring("wraps to 10000 ms"));
	// ttm-limit=4096 is pages_limit=1: below 1 GiB amdgpu cannot come up.
	auto one_page = one("ttm", "pages_limit", "1", 64);
	REQUIRE(one_page.errors.size() == 1);
	CHECK_THAT(one_page.errors[0], ContainsSubstring("less than the 262144 pages (1 GiB)"));
	CHECK_THAT(one_page.errors[0], ContainsSubstring("the GPU would not come up"));
	CHECK_FALSE(one("ttm", "pages_limit", "262143", 64).ok());
	CHECK(one("ttm", "pages_limit", "262144", 64).ok());
}

TEST_CASE("config keys: set/unset words")
{
	auto s = machine_with_ram(128);
	auto p = config::parse_set_words({"noretry=1", "rdnafix.targets=rdna1,rdna2", "amdgpu.lockup_timeout=10000",
					  "ttm-limit=96G", "mtype-sysmem=nc"},
					 false, s);
	REQUIRE(p.errors.empty());
	REQUIRE(p.modules.size() == 6);
	CHECK(p.modules[0].module == "rdnafix");
	CHECK(p.modules[0].name == "noretry");
	CHECK(p.modules[1].name == "targets");
	CHECK(*p.modules[1].value == "rdna1,rdna2");
	CHECK(p.modules[2].module == "amdgpu");
	CHECK(p.modules[3].module == "ttm");
	CHECK(p.modules[3].name == "pages_limit");
	CHECK(*p.modules[3].value == "25165824");
	CHECK(p.modules[4].name == "page_pool_size");
	CHECK(p.modules[5].name == "mtype_sysmem");

	s.boot.amdgpu_dkms = true;
	auto dkms = config::parse_set_words({"ttm-limit=96G"}, false, s);
	REQUIRE(dkms.modules.size() == 2);
	CHECK(dkms.modules[0].module == "amdttm");

	auto bad = config::parse_set_words(
		{"noretry", "foo=1", "amdgpu.ppfeaturemask=1", "noretry=1", "rdnafix.noretry=0", "ttm-limit=lots"},
		false, s);
	REQUIRE(bad.errors.size() == 5);
	CHECK_THAT(bad.errors[0], ContainsSubstring("has no value"));
	CHECK_THAT(bad.errors[1], ContainsSubstring("unknown key 'foo'"));
	CHECK_THAT(bad.errors[2], ContainsSubstring("unknown key 'amdgpu.ppfeaturemask'"));
	CHECK_THAT(bad.errors[3], ContainsSubstring("given twice"));
	CHECK_THAT(bad.errors[4], ContainsSubstring("ttm-limit"));

	auto un = config::parse_unset_words({"noretry", "ttm-limit"}, false, s);
	REQUIRE(un.errors.empty());
	REQUIRE(un.modules.size() == 3);
	CHECK_FALSE(un.modules[0].value);
	CHECK(config::parse_unset_words({"noretry=1"}, false, s).errors.size() == 1);
	CHECK(config::parse_unset_words({}, false, s).errors.size() == 1);

	auto cl = config::parse_set_words({"amdgpu.noretry=1", "amdgpu.ppfeaturemask=0xfff7ffff"}, true, s);
	REQUIRE(cl.errors.empty());
	REQUIRE(cl.cmdline.size() == 2);
	CHECK(cl.cmdline[0].param == "amdgpu.noretry");
	CHECK(config::parse_set_words({"quiet=1"}, true, s).errors.size() == 1);
	CHECK(config::parse_set_words({"noretry=1"}, true, s).errors.size() == 1);

	auto clv = config::check_cmdline_changes(
		{{"amdgpu.noretry", "5"}, {"amdgpu.ppfeaturemask", "0xfff7ffff"}, {"ttm.foo", "a b"}}, s);
	REQUIRE(clv.errors.size() == 2);
	CHECK_THAT(clv.errors[0], ContainsSubstring("amdgpu.noretry"));
	CHECK_THAT(clv.errors[1], ContainsSubstring("ttm.foo"));
}
