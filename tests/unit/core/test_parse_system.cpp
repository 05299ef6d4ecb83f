// Kernel release / version strings, /proc/modules, group/passwd, amdgpu.ids,
// sysfs numbers.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "core/parse.hpp"

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix::core;

TEST_CASE("kernel release strings", "[parse][kernel]")
{
	auto d = parse_kernel_release("6.12.117+deb12-amd64");
	REQUIRE(d.ok());
	CHECK(d->numeric() == "6.12.117");
	CHECK(d->extra == "+deb12-amd64");
	auto u = parse_kernel_release("6.14.0-27-generic\n");
	REQUIRE(u.ok());
	CHECK(u->numeric() == "6.14.0");
	CHECK(u->extra == "-27-generic");
	auto s = parse_kernel_release("7.2.13+deb14-amd64");
	CHECK(s->major == 7);
	CHECK(s->minor == 2);
	CHECK(s->patch == 13);
	auto two = parse_kernel_release("7.2");
	REQUIRE(two.ok());
	CHECK(two->numeric() == "7.2.0");
	auto rc = parse_kernel_release("6.19-rc3");
	REQUIRE(rc.ok());
	CHECK(rc->numeric() == "6.19.0");
	CHECK(rc->extra == "-rc3");
	CHECK(parse_kernel_release("6.1.0-56-amd64")->at_least(6, 1));
	CHECK_FALSE(parse_kernel_release("6.1.0-56-amd64")->at_least(6, 1, 1));
	for (const char *bad : {"", "linux", "6", "6.", ".6.1", "v6.1"}) {
		INFO(bad);
		auto r = parse_kernel_release(bad);
		REQUIRE_FALSE(r.ok());
		CHECK_THAT(r.error().message, ContainsSubstring("valid: like 6.12.117"));
	}
}

TEST_CASE("/proc/version: Debian's upstream version", "[parse][kernel]")
{
	auto v = parse_proc_version(
		"Linux version 6.1.0-56-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14+deb12u1) "
		"12.2.0, "
		"GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-2 (2026-10-01)\n");
	REQUIRE(v.ok());
	CHECK(v->release_string == "6.1.0-56-amd64");
	CHECK(v->release.numeric() == "6.1.0");
	REQUIRE(v->upstream.has_value());
	CHECK(v->upstream->numeric() == "6.1.192");
	auto ub = parse_proc_version("Linux version 6.14.0-27-generic (buildd@lcy02-amd64-073) "
				     "(x86_64-linux-gnu-gcc-13 (Ubuntu 13.3.0-6ubuntu2~24.04) "
				     "13.3.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #27~24.04.1-Ubuntu SMP "
				     "PREEMPT_DYNAMIC Tue Jul 22 17:38:49 UTC 2\n");
	REQUIRE(ub.ok());
	CHECK(ub->release.numeric() == "6.14.0");
	CHECK_FALSE(ub->upstream.has_value());
	CHECK_FALSE(parse_proc_version("garbage").ok());
	CHECK_FALSE(parse_proc_version("").ok());
}

TEST_CASE("/proc/modules", "[parse]")
{
	auto m = parse_proc_modules("rdnafix 16384 0 - Live 0x0000000000000000 (OE)\n"
				    "amdgpu 15441920 12 rdnafix, Live 0x0000000000000000\n"
				    "drm_ttm_helper 16384 1 amdgpu, Live 0x0000000000000000\n"
				    "broken line\n");
	REQUIRE(m.ok());
	REQUIRE(m->size() == 3);
	CHECK((*m)[0].name == "rdnafix");
	CHECK((*m)[0].used_by.empty());
	CHECK((*m)[1].refcount == 12);
	CHECK((*m)[1].used_by == std::vector<std::string>{"rdnafix"});
	CHECK((*m)[1].state == "Live");
	CHECK(parse_proc_modules("")->empty());
	CHECK_FALSE(parse_proc_modules("\x01\x02 garbage").ok());
}

TEST_CASE("/proc/modules of a kernel without module unload support ('-' as the count)", "[parse]")
{
	// CONFIG_MODULE_UNLOAD=n prints " - -" for the count and the users
	// (kernel/module/procfs.c: print_unload_info); such a file is valid.
	auto m = parse_proc_modules("amdgpu 15441920 - - Live 0xffffffffc0a00000\n"
				    "drm_ttm_helper 16384 - - Live 0xffffffffc0900000\n");
	REQUIRE(m.ok());
	REQUIRE(m->size() == 2);
	CHECK((*m)[0].name == "amdgpu");
	CHECK_FALSE((*m)[0].refcount.has_value());
	CHECK((*m)[0].used_by.empty());
	CHECK((*m)[0].state == "Live");
	CHECK((*m)[1].size == 16384);
	// A count that is neither a number nor '-' still makes the line bad.
	CHECK_FALSE(parse_proc_modules("amdgpu 15441920 x - Live 0x0\n").ok());
}

TEST_CASE("etc/group and etc/passwd", "[parse]")
{
	auto g = parse_group_file("root:x:0:\nvideo:x:44:alice,bob\nrender:x:105:alice\nbroken\nbad:x:notanumber:\n");
	CHECK(g.groups.size() == 3);
	CHECK(g.problems.size() == 2);
	REQUIRE(g.by_name("render"));
	CHECK(g.by_name("render")->gid == 105);
	CHECK(g.by_name("render")->members == std::vector<std::string>{"alice"});
	CHECK(g.by_gid(44)->name == "video");
	CHECK(g.by_name("root")->members.empty());
	CHECK(g.by_name("nope") == nullptr);
	auto p = parse_passwd_file(
		"root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\nx:y\n");
	CHECK(p.users.size() == 2);
	CHECK(p.problems.size() == 1);
	CHECK(p.by_name("alice")->uid == 1000);
	CHECK(p.by_uid(0)->name == "root");
}

TEST_CASE("amdgpu.ids (libdrm format)", "[parse]")
{
	// Lines as in libdrm-common 2.4.123 /usr/share/libdrm/amdgpu.ids.
	auto ids = parse_amdgpu_ids("# List of AMDGPU IDs\n#\n# Syntax:\n# device_id,\trevision_id,\tproduct_name      "
				    "  <-- single tab after comma\n\n"
				    "1.0.0\n"
				    "1586,\tC1,\tAMD Radeon 8060S Graphics\n"
				    "73DF,\tC0,\tAMD Radeon RX 6750 XT\n"
				    "740C,\t01,\tAMD Instinct MI250X / MI250\n"
				    "15BF,\tC1,\tAMD Radeon 780M\n"
				    "nonsense line\n");
	CHECK(ids.version == "1.0.0");
	CHECK(ids.entries.size() == 4);
	CHECK(ids.problems.size() == 1);
	REQUIRE(ids.lookup(0x73DF, 0xC0));
	CHECK(ids.lookup(0x73DF, 0xC0)->name == "AMD Radeon RX 6750 XT");
	CHECK(ids.lookup(0x73DF, 0xC1) == nullptr);
	CHECK(ids.lookup(0x1586, 0xC1)->line == 7);
}

TEST_CASE("sysfs numbers", "[parse]")
{
	CHECK(parse_u64("4096\n").value() == 4096);
	CHECK(parse_u64("0xfff7bfff").value() == 0xfff7bfffULL);
	CHECK(parse_u64("18446744073709551615").value() == ~0ULL);
	CHECK_FALSE(parse_u64("18446744073709551616").ok());
	CHECK_FALSE(parse_u64("-1").ok());
	CHECK_FALSE(parse_u64("").ok());
	CHECK_FALSE(parse_u64("12abc").ok());
	CHECK_THAT(parse_u64("12abc").error().message, ContainsSubstring("'12abc'"));
	CHECK(parse_i64("-1\n").value() == -1);
	CHECK(parse_i64("9").value() == 9);
	CHECK(parse_i64("-9223372036854775808").value() == INT64_MIN);
	CHECK_FALSE(parse_i64("--1").ok());
	CHECK_FALSE(parse_i64("9223372036854775808").ok());
	CHECK(parse_kernel_bool("Y\n").value());
	CHECK_FALSE(parse_kernel_bool("N").value());
	CHECK_FALSE(parse_kernel_bool("yes").ok());
	CHECK(parse_gc_version("10.3.2").value() == GcVersion{10, 3, 2});
	CHECK(parse_gc_version("10.1.10").value() == GcVersion{10, 1, 10});
	CHECK_FALSE(parse_gc_version("10.3").ok());
	CHECK_FALSE(parse_gc_version("10.3.2.1").ok());
	CHECK_FALSE(parse_gc_version("a.b.c").ok());
	CHECK(trim("  x \n") == "x");
}

TEST_CASE("etc/group lookups: the first entry of a name or gid wins, hashed or not", "[parse][group]")
{
	auto g = parse_group_file("video:x:44:alice\nrender:x:105:alice,bob\nvideo:x:45:carol\nrender2:x:105:\n"
				  "extra:x:7:bob,bob\n");
	REQUIRE(g.groups.size() == 5);
	REQUIRE(g.by_name("video") != nullptr);
	CHECK(g.by_name("video")->gid == 44);
	CHECK(g.by_gid(105)->name == "render");
	CHECK(g.by_name("nope") == nullptr);
	CHECK(g.by_gid(1) == nullptr);
	CHECK(g.member_gids("bob") == std::vector<unsigned>{105, 7});
	CHECK(g.member_gids("alice") == std::vector<unsigned>{44, 105});
	// Entries added after parsing are found too (linear until index()).
	g.groups.push_back({"late", 9, {"bob"}, 0});
	CHECK(g.by_name("late") != nullptr);
	g.index();
	CHECK(g.by_gid(9)->name == "late");
}

TEST_CASE("sysfs dev attributes: major:minor", "[parse]")
{
	CHECK(parse_major_minor("235:0\n").value() == std::pair<unsigned, unsigned>{235, 0});
	CHECK(parse_major_minor("226:128").value() == std::pair<unsigned, unsigned>{226, 128});
	for (const char *bad : {"", "235", "235:", ":0", "235:0:1", "-1:0", "4096:0", "1:1048576", "0x10:0", "a:b"})
		CHECK_FALSE(parse_major_minor(bad).ok());
}
