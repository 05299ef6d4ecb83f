// core/parse_rdnafix: rdnafix's counter and evidence files (sysfs ABI v1,
// docs/sysfs-abi.md) and depmod's lists, on the exact text those writers
// produce and on lines of the wrong shape.
#include "core/parse_rdnafix.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace rdnafix::core;

TEST_CASE("parse_hook_counts: one line per hook, key=value counters", "[parse_rdnafix]")
{
	auto c = parse_hook_counts("pci_probe instance=0 recursion=0\nget_vm_pte instance=12 recursion=3\n");
	REQUIRE(c.bad.empty());
	REQUIRE(c.hooks.size() == 2);
	CHECK(c.hooks.at("get_vm_pte").at("instance") == 12);
	CHECK(c.hooks.at("get_vm_pte").at("recursion") == 3);
	CHECK(c.hooks.at("pci_probe").at("recursion") == 0);
	auto bad = parse_hook_counts("get_vm_pte instance=-1\nnoretry_set\nseen=2\nx a=1 b\n\n");
	CHECK(bad.hooks.empty());
	CHECK(bad.bad == std::vector<std::string>{"get_vm_pte instance=-1", "noretry_set", "seen=2", "x a=1 b"});
}

TEST_CASE("parse_colon_pairs: evidence lines keep the value after the first colon", "[parse_rdnafix]")
{
	auto kv = parse_colon_pairs("amdgpu_origin: dkms\namdgpu_path: /lib/modules/6.8.0-45-generic/updates/dkms/"
				    "amdgpu.ko.zst\npte_audit: 1 3 call sites, flags in %r8: stack\namdgpu_path2:\n"
				    "no colon here\nbad key: x\n");
	CHECK(kv.values.at("amdgpu_origin") == "dkms");
	CHECK(kv.values.at("amdgpu_path") == "/lib/modules/6.8.0-45-generic/updates/dkms/amdgpu.ko.zst");
	CHECK(kv.values.at("pte_audit") == "1 3 call sites, flags in %r8: stack");
	CHECK(kv.values.at("amdgpu_path2").empty());
	CHECK(kv.bad == std::vector<std::string>{"no colon here", "bad key: x"});
}

TEST_CASE("parse_leaks: a count, then the records newest last", "[parse_rdnafix]")
{
	auto l = parse_leaks("2\na read noretry=1 during 0000:03:00.0's swap (amdgpu's own 0)\nb\n");
	CHECK(l.total == 2u);
	CHECK(l.recent.size() == 2);
	CHECK(l.recent.back() == "b");
	CHECK_FALSE(parse_leaks("two\n").total);
	CHECK_FALSE(parse_leaks("").total);
}

TEST_CASE("modules.dep and modules.builtin: the amdgpu depmod chose", "[parse_rdnafix]")
{
	const std::string dep =
		"kernel/drivers/gpu/drm/amd/amdxcp/amdxcp.ko.zst:\n"
		"updates/dkms/amdgpu.ko.zst: updates/dkms/amdttm.ko.zst kernel/drivers/gpu/drm/drm_buddy.ko.zst\n"
		"kernel/drivers/gpu/drm/radeon/radeon.ko.zst: kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.zst\n";
	CHECK(modules_dep_path(dep, "amdgpu") == "updates/dkms/amdgpu.ko.zst"); // a dependency is not a line's module
	CHECK(modules_dep_path(dep, "amdttm").empty());
	CHECK(modules_dep_path("kernel/a/amd-sched.ko:\n", "amd_sched") == "kernel/a/amd-sched.ko");
	CHECK(modules_builtin_has("kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko\n", "amdgpu"));
	CHECK_FALSE(modules_builtin_has("kernel/drivers/gpu/drm/amd/amdgpu/amdgpu_dm.ko\n", "amdgpu"));
	CHECK(module_name_of("updates/dkms/amdgpu.ko.xz") == "amdgpu");
	CHECK(module_name_of("amdgpu.kox").empty());
	CHECK(module_origin("lib/modules/6.1.0-56-amd64/updates/dkms/amdgpu.ko") == "dkms");
	CHECK(module_origin("/lib/modules/6.1.0-56-amd64/updates/amdgpu.ko") == "updates");
	CHECK(module_origin("lib/modules/6.1.0-56-amd64/extra/amdgpu.ko") == "extra");
	CHECK(module_origin("lib/modules/6.1.0-56-amd64/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.xz") == "in-tree");
	CHECK(module_origin("lib/modules/6.1.0-56-amd64/misc/amdgpu.ko").empty());
	CHECK(module_origin("usr/lib/amdgpu.ko").empty());
}
