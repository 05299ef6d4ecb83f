// assess(): the verdicts next to the facts (node access, override verdicts,
// effective noretry), from hand-built snapshots (no I/O).
#include "machine/interpret.hpp"
#include "model.hpp"

#include "core/parse.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace rdnafix::status;
using namespace rdnafix::machine;
using Catch::Matchers::ContainsSubstring;
using rdnafix::rules::OverrideVerdict;

TEST_CASE("judge_node permission rules", "[access]")
{
	DevNode n;
	n.path = "/dev/kfd";
	n.exists = true;
	n.mode = 0660;
	n.owner = "root";
	n.group = "render";
	n.gid = 105;
	Subject alice{1000u, "alice", {1000}, {"alice"}};
	auto v = judge_node(n, alice);
	CHECK_FALSE(v.can_open);
	CHECK(v.missing_group == "render");
	Subject member{1000u, "alice", {1000, 105}, {"alice", "render"}};
	CHECK(judge_node(n, member).can_open);
	Subject by_name{1000u, "alice", {}, {"render"}}; // manifest: names only
	n.gid.reset();
	CHECK(judge_node(n, by_name).can_open);
	n.mode = 0666;
	CHECK(judge_node(n, alice).can_open);
	n.mode = 0600;
	Subject root{0u, "root", {0}, {"root"}};
	CHECK(judge_node(n, root).can_open);
	n.exists = false;
	CHECK_FALSE(judge_node(n, root).can_open);
}

TEST_CASE("judge_node: the kernel's answer and stat errors", "[access]")
{
	DevNode n;
	n.path = "/dev/kfd";
	n.exists = true;
	n.mode = 0660;
	n.group = "render";
	Subject alice{1000u, "alice", {1000}, {"alice"}};
	SECTION("an ACL grants what the mode does not")
	{
		n.kernel_allows_rw = true;
		auto v = judge_node(n, alice);
		CHECK(v.can_open);
		CHECK(v.missing_group.empty());
		CHECK_THAT(v.verdict, ContainsSubstring("access() allows it (ACL)"));
	}
	SECTION("the kernel refuses what the mode allows")
	{
		n.mode = 0666;
		n.kernel_allows_rw = false;
		n.kernel_refusal = "Operation not permitted";
		auto v = judge_node(n, alice);
		CHECK_FALSE(v.can_open);
		CHECK_THAT(v.verdict, ContainsSubstring("access() refuses: Operation not permitted"));
	}
	SECTION("an unreadable node is reported with its reason")
	{
		n.exists = false;
		n.stat_error = "unreadable: too many levels of symbolic links (ELOOP)";
		auto v = judge_node(n, alice);
		CHECK_FALSE(v.can_open);
		CHECK(v.verdict == n.stat_error);
	}
}

TEST_CASE("override verdicts: the _<N> form wins for its node", "[assess][env]")
{
	Snapshot s;
	Device d;
	d.pci_bdf = "0000:03:00.0";
	d.is_amd = true;
	d.gfx_target = "gfx1031";
	d.kfd_node = 1;
	s.devices = {d};
	s.environment = build_environment(
		rdnafix::core::parse_env_file("HSA_OVERRIDE_GFX_VERSION=10.3.0\nHSA_OVERRIDE_GFX_VERSION_1=11.0.0\n"),
		"file");
	auto a = assess(s);
	REQUIRE(a.overrides.size() == 2);
	for (size_t i = 0; i < s.environment.overrides.size(); ++i) {
		if (s.environment.overrides[i].name == "HSA_OVERRIDE_GFX_VERSION") {
			CHECK(a.overrides[i].empty());
		} else {
			REQUIRE(a.overrides[i].size() == 1);
			CHECK(a.overrides[i][0].verdict == OverrideVerdict::unsafe);
			CHECK(a.overrides[i][0].device == "0000:03:00.0");
		}
	}
	// Without the node form, the global one judges the device: same ISA family.
	s.environment = build_environment(rdnafix::core::parse_env_file("HSA_OVERRIDE_GFX_VERSION=10.3.0\n"), "f");
	auto b = assess(s);
	REQUIRE(b.overrides.size() == 1);
	REQUIRE(b.overrides[0].size() == 1);
	CHECK(b.overrides[0][0].verdict == OverrideVerdict::isa_safe);
	CHECK(b.overrides[0][0].native == "gfx1031");
	// An unknown native target cannot be judged.
	s.devices[0].gfx_target.reset();
	CHECK(assess(s).overrides[0][0].verdict == OverrideVerdict::unknown);
}

TEST_CASE("effective noretry per device: the core rule on the snapshot's facts", "[assess][noretry]")
{
	Snapshot s;
	s.driver.amdgpu_loaded = true;
	s.driver.kernel_release = "6.12.0";
	Device d;
	d.pci_bdf = "0000:05:00.0";
	d.is_amd = true;
	d.driver = "amdgpu";
	d.gc_version = "10.1.10";
	s.devices = {d};
	auto a = assess(s);
	REQUIRE(a.noretry.size() == 1);
	CHECK(a.noretry[0].value == 0); // RDNA1 on 6.12: retry faults on
	CHECK_THAT(a.noretry[0].explanation, ContainsSubstring("GC 10.1.10 -> 0"));
	s.devices[0].rdnafix_noretry_applied = 1;
	a = assess(s);
	CHECK(a.noretry[0].value == 1);
	CHECK_THAT(a.noretry[0].explanation, ContainsSubstring("rdnafix applied noretry=1"));
	s.devices[0].driver = "vfio-pci"; // not driven by amdgpu: no value
	CHECK_FALSE(assess(s).noretry[0].value);
}
