// Hardware facts (docs/hwfacts.md) and the checks that judge them:
// RDNA-GPU-004, RDNA-DRV-008/009, RDNA-VER-001..005 with the built-in
// known-bad.toml.  Values are the real ones of LACT's Strix Point capture
// (tests/snapshots/amd/strixpoint at 238e315b: mes_fw_version 0x00000083,
// mes_kiq_fw_version 0x0000006f) and of the Phoenix capture (phoenix-k68).
#include "snapshot_builders.hpp"
#include "support.hpp"

#include "core/hwfacts.hpp"
#include "knowledge/builtin.hpp"
#include "machine/collect.hpp"
#include "status/model.hpp"
#include "status/status.hpp"

#include <catch2/catch_test_macros.hpp>

#include <filesystem>

using namespace rdnafix;
using rdnafix::test::amd;
using rdnafix::test::base;

namespace {

const status::Finding *find(const std::vector<status::Finding> &f, std::string_view id)
{
	for (const auto &x : f)
		if (x.id == id)
			return &x;
	return nullptr;
}

std::vector<status::Finding> judge(const machine::Snapshot &s, const std::string &rocm = "")
{
	auto a = status::assess(s);
	if (!rocm.empty()) { // what the code-object scan found: PyTorch's bundled runtime (pytorch#192259)
		a.coverage = coverage::Report{};
		coverage::Install i;
		i.kind = coverage::InstallKind::pytorch;
		i.version = "2.12.0+rocm7.14.0";
		i.runtime_version = rocm;
		a.coverage->installs.push_back(i);
	}
	a.known_bad = status::load_known_bad(knowledge::builtin_files(), false);
	return status::evaluate(s, a);
}

} // namespace

TEST_CASE("core: versions, kernel config, DRM version file, derived DRM minor", "[hwfacts]")
{
	CHECK(core::compare_versions("0x00000083", "0x83") == 0);
	CHECK(core::compare_versions("0x80", "0x83") == -1);
	CHECK(core::compare_versions("3.61.0", "3.64") == -1);
	CHECK(core::compare_versions("6.12.117+deb12-amd64", "6.12.48") == 1);
	CHECK_FALSE(core::compare_versions("true", "3.64"));
	const auto cfg = core::parse_kernel_config("CONFIG_HSA_AMD=y\n# CONFIG_HSA_AMD_SVM is not set\nCONFIG_X=1\n",
						   {"CONFIG_HSA_AMD", "CONFIG_HSA_AMD_SVM"});
	CHECK(cfg.at("CONFIG_HSA_AMD") == "y");
	CHECK(cfg.at("CONFIG_HSA_AMD_SVM") == "n");
	CHECK_FALSE(cfg.count("CONFIG_X"));
	std::vector<std::string> problems;
	const auto lines =
		core::parse_drm_version_file("# c\n0000:c1:00.0 amdgpu 3.61.0\nrenderD128 amdgpu x\n", &problems);
	REQUIRE(lines.size() == 1);
	CHECK(lines[0].version.minor == 61);
	REQUIRE(problems.size() == 1);
	CHECK(problems[0].starts_with("line 3:"));
	// Debian's 6.12.48 lies between the 6.1.192 (3.49) and 6.12.117 (3.61) builds measured
	const auto b = core::derived_drm_minor("6.12.48+deb13-amd64");
	CHECK(b.at_least == 49);
	CHECK(b.at_most == 61);
	CHECK(core::derived_drm_minor("7.2.13+deb14-amd64").at_least == 64);
	CHECK_FALSE(core::derived_drm_minor("7.3.0").at_most);
}

TEST_CASE("known-bad: MES 0x83 on a Strix Point (gfx1150) is RDNA-VER-001", "[hwfacts]")
{
	auto s = base();
	auto d = amd("0000:c1:00.0", "gfx1150", "rdna3.5", true, 1, 0);
	d.hw.firmware = {{"mes", "0x00000083"}, {"mes_kiq", "0x0000006f"}};
	s.devices.push_back(d);
	const auto f = judge(s);
	const auto *v = find(f, "RDNA-VER-001");
	REQUIRE(v);
	CHECK(v->severity == status::Severity::error);
	CHECK(v->finding.find("mes-0x83-gfx115x") != std::string::npos);
	// the Phoenix capture's MES 0x80 on gfx1103: no match
	s.devices[0] = amd("0000:64:00.0", "gfx1103", "rdna3", true, 1, 0);
	s.devices[0].hw.firmware = {{"mes", "0x00000080"}};
	CHECK_FALSE(find(judge(s), "RDNA-VER-001"));
}

TEST_CASE("known-bad: expandable_segments with DRM < 3.64 is RDNA-VER-003, derived or read", "[hwfacts]")
{
	auto s = base();
	auto d = amd("0000:03:00.0", "gfx1201", "rdna4", false, 1, 0);
	d.hw.drm_version = {machine::DrmVersionSource::file, 3, 61, 0, {}, {}, "var/log/rdnafix-drm-version"};
	s.devices.push_back(d);
	test::set_env(s, "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True\n");
	// torch 2.12.0+rocm7.14.0, HIP runtime 7.14.60850 (pytorch#192259)
	REQUIRE(find(judge(s, "7.14.60850"), "RDNA-VER-003"));
	CHECK_FALSE(find(judge(s, "6.4.43484"), "RDNA-VER-003")); // an older ROCr
	CHECK_FALSE(find(judge(s), "RDNA-VER-003"));              // ROCm unknown (no scan): not on a guess
	// derived from Debian 13's kernel 6.12.48: at most 3.61
	s.devices[0].hw.drm_version = {machine::DrmVersionSource::derived, 3, 0, 0, 49, 61, "kernel 6.12.48"};
	CHECK(find(judge(s, "7.14.60850"), "RDNA-VER-003"));
	// a kernel between 6.12.117 and 7.2.13: unknown whether < 3.64, no finding
	s.devices[0].hw.drm_version = {machine::DrmVersionSource::derived, 3, 0, 0, 61, 64, "kernel 6.18"};
	CHECK_FALSE(find(judge(s, "7.14.60850"), "RDNA-VER-003"));
	// 3.64 read: no finding; nor without the variable
	s.devices[0].hw.drm_version = {machine::DrmVersionSource::ioctl, 3, 64, 0, {}, {}, "/dev/dri/renderD128"};
	CHECK_FALSE(find(judge(s, "7.14.60850"), "RDNA-VER-003"));
	s.devices[0].hw.drm_version = {machine::DrmVersionSource::ioctl, 3, 61, 0, {}, {}, "/dev/dri/renderD128"};
	test::set_env(s, "PYTORCH_HIP_ALLOC_CONF=garbage_collection_threshold:0.6\n");
	CHECK_FALSE(find(judge(s, "7.14.60850"), "RDNA-VER-003"));
}

TEST_CASE("PCIe atomics: a dGPU io_link without atomics is RDNA-GPU-004, an APU never", "[hwfacts]")
{
	auto s = base();
	auto d = amd("0000:03:00.0", "gfx1030", "rdna2", false, 1, 0);
	// kfd_set_iolink_no_atomics: ENABLED | NO_ATOMICS_32_BIT | NO_ATOMICS_64_BIT
	d.hw.io_links.push_back({1, 0, 2, 0xd, "sys/class/kfd/kfd/topology/nodes/1/io_links/0/properties"});
	s.devices.push_back(d);
	CHECK(find(status::evaluate(s), "RDNA-GPU-004"));
	s.devices[0].hw.io_links[0].flags = 1; // Van Gogh's captured link: enabled, atomics
	CHECK_FALSE(find(status::evaluate(s), "RDNA-GPU-004"));
	s.devices[0].hw.io_links[0].flags = 0xd;
	s.devices[0].apu = true;
	CHECK_FALSE(find(status::evaluate(s), "RDNA-GPU-004"));
}

TEST_CASE("kernel configuration: HSA_AMD missing is RDNA-DRV-008, HSA_AMD_SVM off RDNA-DRV-009", "[hwfacts]")
{
	auto s = base();
	s.hw.kernel_config = {"boot/config-6.12.0", {{"CONFIG_DRM_AMDGPU", "m"}, {"CONFIG_HSA_AMD", "n"}}};
	auto f = status::evaluate(s);
	CHECK(find(f, "RDNA-DRV-008"));
	CHECK_FALSE(find(f, "RDNA-DRV-009"));
	s.hw.kernel_config.values = {{"CONFIG_DRM_AMDGPU", "m"}, {"CONFIG_HSA_AMD", "y"}, {"CONFIG_HSA_AMD_SVM", "n"}};
	f = status::evaluate(s);
	CHECK_FALSE(find(f, "RDNA-DRV-008"));
	CHECK(find(f, "RDNA-DRV-009"));
	s.hw.kernel_config.values = {{"CONFIG_DRM_AMDGPU", "m"}, {"CONFIG_HSA_AMD", "y"}, {"CONFIG_HSA_AMD_SVM", "y"}};
	CHECK_FALSE(find(status::evaluate(s), "RDNA-DRV-009"));
}

TEST_CASE("reader: firmware, io_links, IOMMU, DRM version file and kernel config under --root", "[hwfacts]")
{
	test::TempDir t;
	const auto root = t.path() / "root";
	std::filesystem::copy(std::string(RDNAFIX_FIXTURES) + "/phoenix-k68/root", root,
			      std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
	const std::string dev = "root/sys/devices/pci0000:00/0000:00:08.1/0000:64:00.0";
	// the Phoenix capture's fw_version files (LACT tests/snapshots/amd/phoenix)
	t.write(dev + "/fw_version/mes_fw_version", "0x00000080\n");
	t.write(dev + "/fw_version/smc_fw_version", "0x004c6000\n");
	t.write("root/sys/kernel/iommu_groups/12/type", "DMA-FQ\n");
	std::filesystem::create_directory_symlink(
		"../../../kernel/iommu_groups/12",
		root / "sys/devices/pci0000:00/0000:00:08.1/0000:64:00.0/iommu_group");
	t.write("root/sys/class/iommu/ivhd0/.keep", "");
	t.write("root/sys/devices/virtual/kfd/kfd/topology/nodes/1/io_links/0/properties",
		"type 2\nversion_major 0\nversion_minor 0\nnode_from 1\nnode_to 0\nweight 20\nflags 3\n");
	t.write("root/var/log/rdnafix-drm-version", "0000:64:00.0 amdgpu 3.57.0\n");
	t.write("root/boot/config-6.8.0-41-generic", "CONFIG_DRM_AMDGPU=m\nCONFIG_HSA_AMD=y\nCONFIG_HSA_AMD_SVM=y\n");
	machine::CollectOptions o;
	o.root = root.string();
	o.live = false;
	const auto s = machine::collect(o);
	const machine::Device *d = nullptr;
	for (const auto &x : s.devices)
		if (x.pci_bdf == "0000:64:00.0")
			d = &x;
	REQUIRE(d);
	CHECK(d->hw.firmware.at("mes") == "0x00000080");
	CHECK(d->hw.firmware.at("smc") == "0x004c6000");
	CHECK(d->hw.iommu_group == "12");
	CHECK(d->hw.iommu_group_type == "DMA-FQ");
	REQUIRE(d->hw.io_links.size() == 1);
	CHECK(d->hw.io_links[0].flags == 3);
	CHECK(d->hw.drm_version.source == machine::DrmVersionSource::file);
	CHECK(d->hw.drm_version.minor == 57);
	CHECK(s.hw.iommu.units == std::vector<std::string>{"ivhd0"});
	CHECK(s.hw.kernel_config.path == "boot/config-6.8.0-41-generic");
	CHECK(s.hw.kernel_config.values.at("CONFIG_HSA_AMD_SVM") == "y");
}
