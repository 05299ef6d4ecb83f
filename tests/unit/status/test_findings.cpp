// The decision function: hand-built snapshots in, findings out (no I/O).
#include "machine/interpret.hpp"
#include "model.hpp"
#include "snapshot_builders.hpp"
#include "support.hpp"

#include "core/parse.hpp"
#include "core/parse_kernel_log.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <set>

using namespace rdnafix::status;
using namespace rdnafix::machine;
using Catch::Matchers::ContainsSubstring;
using rdnafix::test::amd;
using rdnafix::test::base;
using rdnafix::test::set_env;

namespace {

std::vector<std::string> ids(const std::vector<Finding> &f)
{
	std::vector<std::string> v;
	for (const auto &x : f)
		v.push_back(x.id);
	return v;
}

// A copy: evaluate() returns a temporary.
std::optional<Finding> find(const std::vector<Finding> &f, const std::string &id)
{
	for (const auto &x : f)
		if (x.id == id)
			return x;
	return std::nullopt;
}

bool has(const std::vector<Finding> &f, const std::string &id)
{
	return find(f, id).has_value();
}

} // namespace

TEST_CASE("catalogue ids are unique, well-formed and documented in docs/checks.md", "[findings]")
{
	std::set<std::string> seen;
	std::string doc = rdnafix::test::read_file(std::string(RDNAFIX_FIXTURES) + "/../../docs/checks.md");
	REQUIRE_FALSE(doc.empty());
	for (const auto &c : catalogue()) {
		INFO(c.id);
		CHECK(seen.insert(std::string(c.id)).second);
		CHECK(c.id.size() == 12);
		CHECK(c.id.substr(0, 5) == "RDNA-");
		CHECK_THAT(doc, ContainsSubstring("## " + std::string(c.id)));
	}
	CHECK(catalogue().size() >= 25);
}

TEST_CASE("no AMD GPU: only info, exit 0", "[findings]")
{
	auto s = base();
	s.driver.amdgpu_loaded = false;
	s.access.nodes[0].exists = false;
	Device intel;
	intel.pci_bdf = "0000:00:02.0";
	intel.vendor_id = 0x8086;
	intel.pci_class = 0x030000;
	intel.driver = "i915";
	s.devices.push_back(intel);
	auto f = evaluate(s);
	CHECK(ids(f) == std::vector<std::string>{"RDNA-GPU-001"});
	CHECK(exit_code_for(f) == 0);
	CHECK(recommend_env(s).empty());
}

TEST_CASE("HSA_OVERRIDE_GFX_VERSION verdicts", "[findings][env]")
{
	auto s = base();
	SECTION("invalid value is an error with the safe replacement")
	{
		s.devices = {amd("0000:03:00.0", "gfx1031", "rdna2", false, 1, 0)};
		set_env(s, "HSA_OVERRIDE_GFX_VERSION=gfx1031\n");
		auto f = evaluate(s);
		auto x = find(f, "RDNA-ENV-001");
		REQUIRE(x.has_value());
		CHECK(x->severity == Severity::error);
		CHECK_THAT(x->fix, ContainsSubstring("HSA_OVERRIDE_GFX_VERSION=10.3.0"));
		CHECK(exit_code_for(f) == 1);
		auto env = recommend_env(s);
		REQUIRE_FALSE(env.empty());
		CHECK(env[0].name == "HSA_OVERRIDE_GFX_VERSION");
		CHECK(env[0].value == "10.3.0");
		CHECK_FALSE(env[0].unset);
	}
	SECTION("same ISA family is a working workaround (info)")
	{
		s.devices = {amd("0000:03:00.0", "gfx1031", "rdna2", false, 1, 0)};
		set_env(s, "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
		auto f = evaluate(s);
		CHECK(has(f, "RDNA-ENV-004"));
		CHECK_FALSE(has(f, "RDNA-ENV-002"));
		CHECK(find(f, "RDNA-ENV-004")->severity == Severity::info);
	}
	SECTION("RDNA1 -> 10.3.0 is cross-family and unsafe")
	{
		s.devices = {amd("0000:05:00.0", "gfx1010", "rdna1", false, 1, 0)};
		set_env(s, "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
		auto f = evaluate(s);
		auto x = find(f, "RDNA-ENV-002");
		REQUIRE(x.has_value());
		CHECK(x->severity == Severity::error);
		auto env = recommend_env(s);
		REQUIRE_FALSE(env.empty());
		CHECK(env[0].name == "HSA_OVERRIDE_GFX_VERSION");
		CHECK(env[0].unset);
	}
	SECTION("gfx1151 -> 11.0.0 is unsafe")
	{
		s.devices = {amd("0000:c5:00.0", "gfx1151", "rdna3.5", true, 1, 0)};
		set_env(s, "HSA_OVERRIDE_GFX_VERSION=11.0.0\n");
		CHECK(has(evaluate(s), "RDNA-ENV-002"));
	}
	SECTION("equal to native is pointless")
	{
		s.devices = {amd("0000:03:00.0", "gfx1030", "rdna2", false, 1, 0)};
		set_env(s, "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
		auto f = evaluate(s);
		CHECK(has(f, "RDNA-ENV-003"));
		CHECK(exit_code_for(f) == 0);
	}
	SECTION("per-node form only judges its node")
	{
		s.devices = {amd("0000:03:00.0", "gfx1031", "rdna2", false, 1, 0),
			     amd("0000:16:00.0", "gfx1036", "rdna2", true, 2, 1)};
		set_env(s, "HSA_OVERRIDE_GFX_VERSION_2=10.3.0\nHSA_OVERRIDE_GFX_VERSION_7=10.3.0\n");
		auto f = evaluate(s);
		auto x = find(f, "RDNA-ENV-004");
		REQUIRE(x.has_value());
		CHECK_THAT(x->subject, ContainsSubstring("0000:16:00.0"));
		CHECK(has(f, "RDNA-ENV-005")); // node 7 does not exist
	}
	SECTION("override without any AMD GPU")
	{
		set_env(s, "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
		CHECK(has(evaluate(s), "RDNA-ENV-011"));
	}
}

TEST_CASE("iGPU before dGPU and *_VISIBLE_DEVICES", "[findings][env]")
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1031", "rdna2", false, 2, 1),
		     amd("0000:16:00.0", "gfx1036", "rdna2", true, 1, 0)};
	SECTION("no selection: iGPU is index 0")
	{
		set_env(s, "");
		auto f = evaluate(s);
		auto x = find(f, "RDNA-ENV-006");
		REQUIRE(x.has_value());
		CHECK_THAT(x->fix, ContainsSubstring("ROCR_VISIBLE_DEVICES=1"));
		auto env = recommend_env(s);
		auto it = std::find_if(env.begin(), env.end(),
				       [](const Export &e) { return e.name == "ROCR_VISIBLE_DEVICES"; });
		REQUIRE(it != env.end());
		CHECK(it->value == "1");
		// With the iGPU hidden, the gfx1031 dGPU still wants 10.3.0.
		auto ov = std::find_if(env.begin(), env.end(),
				       [](const Export &e) { return e.name == "HSA_OVERRIDE_GFX_VERSION"; });
		REQUIRE(ov != env.end());
		CHECK(ov->value == "10.3.0");
	}
	SECTION("selecting the dGPU is fine")
	{
		set_env(s, "HIP_VISIBLE_DEVICES=1\n");
		auto f = evaluate(s);
		CHECK_FALSE(has(f, "RDNA-ENV-006"));
		CHECK_FALSE(has(f, "RDNA-ENV-007"));
	}
	SECTION("selecting the iGPU first is flagged")
	{
		set_env(s, "HIP_VISIBLE_DEVICES=0,1\n");
		CHECK(has(evaluate(s), "RDNA-ENV-007"));
	}
	SECTION("an index out of range is flagged")
	{
		set_env(s, "ROCR_VISIBLE_DEVICES=1\nHIP_VISIBLE_DEVICES=1\n");
		auto x = find(evaluate(s), "RDNA-ENV-007");
		REQUIRE(x.has_value());
		CHECK_THAT(x->finding, ContainsSubstring("index 1"));
	}
}

TEST_CASE("RDNA1 noretry", "[findings][driver]")
{
	auto s = base();
	s.devices = {amd("0000:05:00.0", "gfx1010", "rdna1", false, 1, 0)};
	s.devices[0].gc_version = "10.1.10";
	s.driver.kernel_release = "6.12.0"; // amdgpu.noretry=0 below decides: effective 0
	Param p;
	p.module = "amdgpu";
	p.name = "noretry";
	p.live_value = "0";
	p.source = ParamSource::cmdline;
	p.configured_value = "0";
	s.driver.params.push_back(p);
	SECTION("noretry=0 in effect is flagged with a command-line fix")
	{
		auto x = find(evaluate(s), "RDNA-DRV-003");
		REQUIRE(x.has_value());
		CHECK_THAT(x->fix, ContainsSubstring("amdgpu.noretry=1"));
		CHECK_THAT(x->why, ContainsSubstring("hang"));
	}
	SECTION("rdnafix applied noretry=1 to the device")
	{
		s.devices[0].rdnafix_noretry_applied = 1;
		CHECK_FALSE(has(evaluate(s), "RDNA-DRV-003"));
	}
	SECTION("RDNA2 with noretry=0 is not this check")
	{
		s.devices[0].generation = rdnafix::gpudb::Generation::rdna2;
		s.devices[0].gfx_target = "gfx1030";
		CHECK_FALSE(has(evaluate(s), "RDNA-DRV-003"));
	}
}

TEST_CASE("driver parameters", "[findings][driver]")
{
	auto s = base();
	s.devices = {amd("0000:05:00.0", "gfx1010", "rdna1", false, 1, 0)};
	Param frag;
	frag.module = "amdgpu";
	frag.name = "vm_fragment_size";
	frag.live_value = "9";
	frag.source = ParamSource::cmdline;
	frag.configured_value = "9";
	frag.overridden_value = "4";
	frag.overridden_file = "/etc/modprobe.d/amdgpu.conf";
	frag.overridden_line = 3;
	s.driver.params.push_back(frag);
	Param gtt;
	gtt.module = "amdgpu";
	gtt.name = "gttsize";
	gtt.live_value = "-1";
	gtt.source = ParamSource::modprobe_d;
	gtt.configured_value = "65536";
	gtt.source_file = "/etc/modprobe.d/gtt.conf";
	gtt.source_line = 1;
	s.driver.params.push_back(gtt);
	auto f = evaluate(s);
	auto x = find(f, "RDNA-DRV-004");
	REQUIRE(x.has_value());
	CHECK(x->severity == Severity::info);
	CHECK_THAT(x->why, ContainsSubstring("pte_fragment_size"));
	CHECK(has(f, "RDNA-DRV-005"));
	auto o = find(f, "RDNA-DRV-006");
	REQUIRE(o.has_value());
	CHECK_THAT(o->finding, ContainsSubstring("/etc/modprobe.d/amdgpu.conf:3"));
	// DRV-006's remedy: the command line set to the modprobe.d value.
	REQUIRE(o->remedies.size() == 1);
	auto *kp = std::get_if<KernelParam>(&o->remedies[0]);
	REQUIRE(kp);
	CHECK(kp->action == KernelParam::Action::add);
	CHECK(kp->param == "amdgpu.vm_fragment_size");
	CHECK(kp->value == "4");
	CHECK(o->fix == "rdnactl config set --cmdline amdgpu.vm_fragment_size=4, then reboot (the command line then "
			"agrees with /etc/modprobe.d/amdgpu.conf)");
	auto m = find(f, "RDNA-DRV-007"); // 65536 configured, -1 live
	REQUIRE(m.has_value());
	CHECK(m->fix == "reboot"); // no initramfs generator in this snapshot
	// The initramfs command is the distribution's.
	for (auto [gen, cmd] : {std::pair{InitramfsGenerator::initramfs_tools, "update-initramfs -u -k all"},
				std::pair{InitramfsGenerator::dracut, "dracut -f --regenerate-all"},
				std::pair{InitramfsGenerator::mkinitcpio, "mkinitcpio -P"}}) {
		s.boot.initramfs = gen;
		auto again = find(evaluate(s), "RDNA-DRV-007");
		REQUIRE(again.has_value());
		CHECK(again->fix == std::string(cmd) + ", then reboot");
	}
	// After `rdnactl fix` the command line carries the modprobe.d value: no conflict is left.
	s.driver.params[0].configured_value = "4";
	s.driver.params[0].live_value = "4";
	CHECK_FALSE(has(evaluate(s), "RDNA-DRV-006"));
}

TEST_CASE("amdgpu not loaded / not live", "[findings][driver]")
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1031", "rdna2", false)};
	s.devices[0].driver = "";
	s.driver.amdgpu_loaded = false;
	s.driver.initstate.reset();
	s.access.nodes[0].exists = false;
	auto f = evaluate(s);
	CHECK(has(f, "RDNA-DRV-001"));
	auto k = find(f, "RDNA-ACC-001");
	REQUIRE(k.has_value());
	CHECK_THAT(k->finding, ContainsSubstring("amdgpu is not loaded"));
	s.driver.amdgpu_loaded = true;
	s.driver.initstate = "coming";
	CHECK(has(evaluate(s), "RDNA-DRV-002"));
}

TEST_CASE("access", "[findings][access]")
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1030", "rdna2", false, 1, 0)};
	SECTION("container without /dev/kfd")
	{
		s.access.nodes[0].exists = false;
		s.access.container.kind = rdnafix::machine::ContainerKind::docker;
		s.access.container.evidence.push_back({"/.dockerenv", ""});
		auto x = find(evaluate(s), "RDNA-ACC-001");
		REQUIRE(x.has_value());
		CHECK_THAT(x->fix, ContainsSubstring("--device=/dev/kfd"));
	}
	SECTION("not in the render group")
	{
		s.access.nodes[0].mode = 0660; // alice is not in 'render'

		auto x = find(evaluate(s), "RDNA-ACC-002");
		REQUIRE(x.has_value());
		CHECK_THAT(x->fix, ContainsSubstring("usermod -aG render alice"));
	}
	SECTION("in /etc/group but not logged in again")
	{
		s.access.subject = AccessSubject::process;
		s.access.nodes[0].mode = 0660; // this session is not in 'render'...
		s.access.relogin_groups = {"render"};
		auto f = evaluate(s);
		CHECK(has(f, "RDNA-ACC-003"));
		CHECK_FALSE(has(f, "RDNA-ACC-002"));
	}
	SECTION("amdgpu device without render node")
	{
		s.devices[0].render_node.clear();
		CHECK(has(evaluate(s), "RDNA-ACC-004"));
	}
}

TEST_CASE("APU memory ceiling", "[findings][memory]")
{
	auto s = base();
	s.devices = {amd("0000:c5:00.0", "gfx1151", "rdna3.5", true, 1, 0)};
	s.devices[0].gtt_total_bytes = 64ull << 30;
	s.driver.mem_total_bytes = 128ull << 30;
	SECTION("half of RAM is flagged, with a pages_limit fix")
	{
		auto x = find(evaluate(s), "RDNA-MEM-003");
		REQUIRE(x.has_value());
		CHECK_THAT(x->fix, ContainsSubstring("pages_limit=25165824")); // 96 GiB * 262144
	}
	SECTION("the default is information; allocation failures in the kernel log make it a warning")
	{
		auto x = find(evaluate(s), "RDNA-MEM-003");
		REQUIRE(x.has_value());
		CHECK(x->severity == Severity::info);
		CHECK_FALSE(has(evaluate(s), "RDNA-MEM-001"));
		s.kernel_log.source = rdnafix::machine::KernelLogSource::file;
		s.kernel_log.events = rdnafix::core::parse_kernel_log(
			"[108159.803872] [drm:amdgpu_cs_ioctl [amdgpu]] *ERROR* Not enough memory for command "
			"submission!\n");
		auto w = find(evaluate(s), "RDNA-MEM-001");
		REQUIRE(w.has_value());
		CHECK(w->severity == Severity::warn);
		CHECK_THAT(w->finding, ContainsSubstring("1 allocation failure(s)"));
		CHECK_THAT(w->fix, ContainsSubstring("pages_limit=25165824"));
		CHECK_FALSE(has(evaluate(s), "RDNA-MEM-003"));
	}
	SECTION("a raised limit is fine")
	{
		s.devices[0].gtt_total_bytes = 120ull << 30;
		s.driver.ttm_limit_bytes = 120ull << 30;
		CHECK_FALSE(has(evaluate(s), "RDNA-MEM-003"));
	}
	SECTION("TTM limit below GTT decides")
	{
		s.devices[0].gtt_total_bytes = 120ull << 30;
		s.driver.ttm_limit_bytes = 16ull << 30;
		CHECK(has(evaluate(s), "RDNA-MEM-003"));
	}
	SECTION("an iGPU next to a dGPU is not flagged")
	{
		s.devices.push_back(amd("0000:03:00.0", "gfx1100", "rdna3", false, 2, 1));
		CHECK_FALSE(has(evaluate(s), "RDNA-MEM-003"));
	}
}

TEST_CASE("slow debug variables, HSA_XNACK, expandable_segments", "[findings][env]")
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1030", "rdna2", false, 1, 0)};
	set_env(s, "HIP_LAUNCH_BLOCKING=1\nAMD_SERIALIZE_KERNEL=3\nHSA_XNACK=1\n"
		   "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True\nPYTORCH_NO_HIP_MEMORY_CACHING=0\n");
	auto f = evaluate(s);
	auto x = find(f, "RDNA-ENV-008");
	REQUIRE(x.has_value());
	CHECK_THAT(x->finding, ContainsSubstring("HIP_LAUNCH_BLOCKING=1"));
	CHECK_THAT(x->finding, ContainsSubstring("AMD_SERIALIZE_KERNEL=3"));
	CHECK_THAT(x->finding, !ContainsSubstring("PYTORCH_NO_HIP_MEMORY_CACHING"));
	CHECK(has(f, "RDNA-ENV-009"));
	CHECK(has(f, "RDNA-ENV-010"));
	auto env = recommend_env(s);
	std::set<std::string> unset;
	for (const auto &e : env)
		if (e.unset)
			unset.insert(e.name);
	// env follows status: the allocator config held only expandable_segments, so it is unset too.
	CHECK(unset == std::set<std::string>{"HIP_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL", "HSA_XNACK",
					     "PYTORCH_HIP_ALLOC_CONF"});
}

TEST_CASE("gfx support list", "[findings][gpu]")
{
	auto s = base();
	s.devices = {amd("0000:05:00.0", "gfx1010", "rdna1", false, 1, 0)};
	auto x = find(evaluate(s), "RDNA-GPU-002");
	REQUIRE(x.has_value());
	CHECK(x->severity == Severity::warn);
	// gfx1031 with no override set: official builds have no code for it (issue 10, item 8).
	s.devices = {amd("0000:03:00.0", "gfx1031", "rdna2", false, 1, 0)};
	x = find(evaluate(s), "RDNA-GPU-002");
	REQUIRE(x.has_value());
	CHECK(x->severity == Severity::warn);
	s.devices = {amd("0000:03:00.0", "gfx1100", "rdna3", false, 1, 0)};
	CHECK_FALSE(has(evaluate(s), "RDNA-GPU-002"));
	s.devices[0].gfx_target.reset();
	CHECK(has(evaluate(s), "RDNA-GPU-003"));
}

TEST_CASE("rdnafix module state", "[findings][rdnafix]")
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1030", "rdna2", false, 1, 0)};
	s.rdnafix.installed = true;
	s.rdnafix.installed_paths = {"/lib/modules/6.12.0/updates/dkms/rdnafix.ko.xz"};
	CHECK(has(evaluate(s), "RDNA-MOD-001"));
	s.rdnafix.loaded = true;
	s.rdnafix.abi_version = "1";
	s.rdnafix.dry_run = "1";
	s.rdnafix.hooks = {{"get_vm_pte", "inactive: layout check failed"}, {"pci_probe", "active"}};
	RdnafixDevice d;
	d.pci_bdf = "0000:03:00.0";
	d.values = {{"targeted", "1"}, {"noretry_requested", "1"}, {"noretry_applied", "-1"}, {"reason", "pending"}};
	s.rdnafix.devices = {d};
	auto f = evaluate(s);
	CHECK_FALSE(has(f, "RDNA-MOD-001"));
	auto h = find(f, "RDNA-MOD-002");
	REQUIRE(h.has_value());
	CHECK_THAT(h->finding, ContainsSubstring("get_vm_pte"));
	CHECK(has(f, "RDNA-MOD-004"));
	CHECK(has(f, "RDNA-MOD-005"));
	s.rdnafix.abi_version = "2";
	CHECK(has(evaluate(s), "RDNA-MOD-003"));
}

TEST_CASE("errors sort before warnings before info", "[findings]")
{
	auto s = base();
	s.devices = {amd("0000:05:00.0", "gfx1010", "rdna1", false, 1, 0)};
	set_env(s, "HSA_OVERRIDE_GFX_VERSION=10.3.0\nHIP_LAUNCH_BLOCKING=1\n");
	auto f = evaluate(s);
	REQUIRE(f.size() >= 2);
	for (size_t i = 1; i < f.size(); ++i)
		CHECK(int(f[i - 1].severity) >= int(f[i].severity));
}
