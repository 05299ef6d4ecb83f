// Raw strings -> records: the parsing both collectors share.
#include "machine/interpret.hpp"

#include "core/parse.hpp"

#include <catch2/catch_test_macros.hpp>
#include <algorithm>
#include <set>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace rdnafix::machine;
using Catch::Matchers::ContainsSubstring;

namespace {
RawValue txt(std::string s, std::string path = "p")
{
	RawValue v;
	v.text = std::move(s);
	v.path = std::move(path);
	return v;
}
RawValue bad(std::string reason)
{
	RawValue v;
	v.path = "sys/x";
	v.reason = std::move(reason);
	return v;
}

RawPciDevice navi22()
{
	RawPciDevice r;
	r.bdf = "0000:03:00.0";
	r.driver = "amdgpu";
	r.drm_nodes = {"card1", "renderD128"};
	r.attrs = {{"vendor", txt("0x1002")},
		   {"device", txt("0x73df")},
		   {"subsystem_vendor", txt("0x1da2")},
		   {"subsystem_device", txt("0xe445")},
		   {"revision", txt("0xc0")},
		   {"class", txt("0x030000")},
		   {"mem_info_vram_total", txt("12868124672")},
		   {"mem_info_gtt_total", txt("16729960448")},
		   {"ip_discovery/die/0/GC/0/major", txt("10")},
		   {"ip_discovery/die/0/GC/0/minor", txt("3")},
		   {"ip_discovery/die/0/GC/0/revision", txt("2")}};
	return r;
}

KfdNodeInfo kfd_gpu(int id, std::uint64_t gfx, std::uint64_t location, std::uint64_t simd = 80)
{
	KfdNodeInfo k;
	k.node_id = id;
	k.props.simd_count = simd;
	k.props.gfx_target_version = gfx;
	k.props.location_id = location;
	k.props.vendor_id = 4098;
	return k;
}
} // namespace

TEST_CASE("gfx target source precedence: kfd, libdrm, pci-id table, GC", "[interpret]")
{
	auto raw = navi22();
	SECTION("KFD first")
	{
		std::vector<KfdNodeInfo> kfd{KfdNodeInfo{}, kfd_gpu(1, 100301, 0x0300)};
		kfd[0].props.cpu_cores_count = 16;
		auto d = build_device(raw, kfd, nullptr);
		CHECK(d.gfx_target == "gfx1031");
		CHECK(d.gfx_target_source == GfxTargetSource::kfd);
		CHECK(d.kfd_node == 1);
		CHECK(d.kfd_gpu_index == 0);
		CHECK(d.gc_version == "10.3.2");
		CHECK(d.generation == rdnafix::gpudb::Generation::rdna2);
		CHECK(d.apu == false);
		CHECK(d.vram_total_bytes == 12868124672ull);
		CHECK(d.render_node == "renderD128");
		CHECK(d.card == "card1");
		CHECK(d.unreadable.empty());
	}
	SECTION("libdrm family/external rev when KFD has no node")
	{
		LibdrmInfo l;
		l.family_id = 143;     // NV
		l.external_rev = 0x32; // NAVI22 range starts at 0x32
		l.marketing_name = "AMD Radeon RX 6750 XT";
		raw.libdrm = l;
		auto d = build_device(raw, {}, nullptr);
		CHECK(d.gfx_target == "gfx1031");
		CHECK(d.gfx_target_source == GfxTargetSource::libdrm);
		CHECK(d.marketing_name == "AMD Radeon RX 6750 XT");
		CHECK(d.marketing_name_source == NameSource::libdrm);
	}
	SECTION("PCI-id table without KFD and libdrm")
	{
		auto d = build_device(raw, {}, nullptr);
		CHECK(d.gfx_target == "gfx1031");
		CHECK(d.gfx_target_source == GfxTargetSource::pci_id_table);
	}
	SECTION("amdgpu.ids gives the name on the --root path")
	{
		auto ids = rdnafix::core::parse_amdgpu_ids("1.0.0\n73DF,\tC0,\tAMD Radeon RX 6750 XT\n");
		auto d = build_device(raw, {}, &ids);
		CHECK(d.marketing_name == "AMD Radeon RX 6750 XT");
		CHECK(d.marketing_name_source == NameSource::amdgpu_ids);
	}
}

TEST_CASE("garbage attributes become per-item unreadable, never a crash", "[interpret]")
{
	auto raw = navi22();
	raw.attrs["mem_info_vram_total"] = txt("garbage\x01");
	raw.attrs["mem_info_gtt_total"] = bad("unreadable: permission denied (EACCES)");
	raw.attrs["device"] = txt("");
	auto d = build_device(raw, {}, nullptr);
	CHECK_FALSE(d.vram_total_bytes);
	CHECK_FALSE(d.gtt_total_bytes);
	CHECK_FALSE(d.device_id);
	std::vector<std::string> items;
	for (const auto &u : d.unreadable)
		items.push_back(u.item);
	CHECK(std::find(items.begin(), items.end(), "vram_total_bytes") != items.end());
	CHECK(std::find(items.begin(), items.end(), "gtt_total_bytes") != items.end());
	CHECK(std::find(items.begin(), items.end(), "device_id") != items.end());
	for (const auto &u : d.unreadable)
		CHECK_THAT(u.reason, ContainsSubstring("unreadable"));
}

TEST_CASE("non-AMD device is listed as such", "[interpret]")
{
	RawPciDevice r;
	r.bdf = "0000:00:02.0";
	r.driver = "i915";
	r.drm_nodes = {"card0", "renderD128"};
	r.attrs = {{"vendor", txt("0x8086")},           {"device", txt("0x4680")},
		   {"revision", txt("0x0c")},           {"class", txt("0x030000")},
		   {"subsystem_vendor", txt("0x1043")}, {"subsystem_device", txt("0x8882")}};
	auto d = build_device(r, {}, nullptr);
	CHECK_FALSE(d.is_amd);
	CHECK_FALSE(d.gfx_target);
	CHECK(d.driver == "i915");
}

TEST_CASE("parameter provenance: command line overrides modprobe.d", "[interpret][params]")
{
	auto cmd = rdnafix::core::parse_kernel_cmdline(
		"BOOT_IMAGE=/vmlinuz root=UUID=x ro amdgpu.noretry=0 amdgpu.vm_fragment_size=9 quiet");
	std::vector<ModprobeFile> mp{
		{"etc/modprobe.d/amdgpu.conf",
		 rdnafix::core::parse_modprobe_conf("# tuning\noptions amdgpu noretry=1 lockup_timeout=10000\n",
						    "/etc/modprobe.d/amdgpu.conf")}};
	std::map<std::string, std::optional<std::string>> live{
		{"amdgpu.noretry", "0"}, {"amdgpu.lockup_timeout", "10000"}, {"amdgpu.vm_fragment_size", "9"}};
	auto params = build_params(cmd, mp, live);
	auto get = [&](const std::string &n) -> const Param & {
		for (const auto &p : params)
			if (p.module == "amdgpu" && p.name == n)
				return p;
		FAIL("no param " << n);
		return params.front();
	};
	const auto &nr = get("noretry");
	CHECK(nr.source == ParamSource::cmdline);
	CHECK(nr.configured_value == "0");
	CHECK(nr.overridden_value == "1");
	CHECK(nr.overridden_file == "/etc/modprobe.d/amdgpu.conf");
	CHECK(nr.overridden_line == 2);
	CHECK(nr.live_value == "0");
	const auto &lt = get("lockup_timeout");
	CHECK(lt.source == ParamSource::modprobe_d);
	CHECK(lt.source_line == 2);
	CHECK(lt.overridden_file.empty());
	CHECK(get("vm_fragment_size").source == ParamSource::cmdline);
	CHECK(get("gttsize").source == ParamSource::default_value);
	CHECK_FALSE(get("gttsize").live_value);
}

TEST_CASE("environment: relevant variables only, override forms", "[interpret][env]")
{
	auto env = rdnafix::core::parse_env_file(
		"PATH=/usr/bin\nHSA_OVERRIDE_GFX_VERSION=10.3.0\nHSA_OVERRIDE_GFX_VERSION_1=11.0.0\n"
		"HIP_VISIBLE_DEVICES=GPU-abc,1\nHOME=/root\n");
	auto e = build_environment(env, "file");
	CHECK(e.vars.size() == 3);
	CHECK_FALSE(e.vars.count("PATH"));
	REQUIRE(e.overrides.size() == 2);
	// Parsed, not judged (status/assess.cpp judges them against the devices).
	for (const auto &o : e.overrides) {
		REQUIRE(o.target.has_value());
		CHECK(o.node == (o.name == "HSA_OVERRIDE_GFX_VERSION" ? std::nullopt : std::optional<int>(1)));
	}
	REQUIRE(e.visible.size() == 1);
	CHECK_FALSE(e.visible[0].parsed);
	auto bad = build_environment(rdnafix::core::parse_env_file("HSA_OVERRIDE_GFX_VERSION=gfx1031\n"), "file");
	REQUIRE(bad.overrides.size() == 1);
	CHECK_FALSE(bad.overrides[0].target);
	CHECK_THAT(bad.overrides[0].error, ContainsSubstring("gfx1031"));
}

TEST_CASE("rdnafix's applied noretry is attached to its device", "[interpret]")
{
	std::vector<Device> devs(2);
	devs[0].pci_bdf = "0000:03:00.0";
	devs[0].is_amd = true;
	devs[1].pci_bdf = "0000:05:00.0";
	devs[1].is_amd = true;
	Rdnafix r;
	r.devices = {{"0000:05:00.0", {{"noretry_applied", "1"}}}, {"0000:03:00.0", {{"noretry_applied", "-1"}}}};
	attach_rdnafix(devs, r);
	CHECK_FALSE(devs[0].rdnafix_noretry_applied); // -1: not applied
	CHECK(devs[1].rdnafix_noretry_applied == 1);
}

TEST_CASE("one spelling per snapshot enum: the JSON words", "[interpret][spelling]")
{
	CHECK(to_string(GfxTargetSource::unknown).empty());
	CHECK(to_string(GfxTargetSource::kfd) == "kfd");
	CHECK(to_string(GfxTargetSource::libdrm) == "libdrm");
	CHECK(to_string(GfxTargetSource::pci_id_table) == "pci-id-table");
	CHECK(to_string(GfxTargetSource::gc_version) == "gc-version");
	CHECK(to_string(NameSource::none).empty());
	CHECK(to_string(NameSource::libdrm) == "libdrm");
	CHECK(to_string(NameSource::amdgpu_ids) == "amdgpu.ids");
	CHECK(to_string(ParamSource::default_value) == "default");
	CHECK(to_string(ParamSource::modprobe_d) == "modprobe.d");
	CHECK(to_string(ParamSource::cmdline) == "cmdline");
	CHECK(to_string(LoadEvidence::none).empty());
	CHECK(to_string(LoadEvidence::proc_modules) == "proc/modules");
	CHECK(to_string(LoadEvidence::sys_module) == "sys/module/rdnafix");
	CHECK(to_string(StatSource::none).empty());
	CHECK(to_string(StatSource::stat) == "stat");
	CHECK(to_string(StatSource::manifest) == "manifest");
	CHECK(to_string(AccessSubject::process) == "process");
	CHECK(to_string(AccessSubject::user) == "user");
	CHECK(to_string(CollectorKind::none).empty());
	CHECK(to_string(CollectorKind::live) == "live");
	CHECK(to_string(CollectorKind::root) == "root");
}
