// The Configuration findings on two machines built from data/config-root
// (SOURCE.md there): (a) rdnafix configured after this boot, the initramfs
// regenerated: only RDNA-CFG-001, "reboot"; (b) configured before this boot,
// rebooted, the initramfs older than the configuration and without rdnafix:
// RDNA-CFG-002 from the real lsinitramfs listing, and no RDNA-MOD-001.  The
// real binary, --root, mtimes set here (git keeps none).
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using Catch::Matchers::ContainsSubstring;
using rdnafix::test::run_rdnactl;
using rdnafix::test::TempDir;

namespace {

constexpr std::int64_t kBoot = 1700000000; // btime in data/config-root/proc/stat
const std::string kRel = "6.1.0-18-amd64";

void set_mtime(const fs::path &p, std::int64_t t)
{
	struct timespec ts[2] = {{t, 0}, {t, 0}};
	REQUIRE(utimensat(AT_FDCWD, p.c_str(), ts, 0) == 0);
}

struct Machine {
	TempDir dir;
	fs::path root;
	Machine()
	{
		root = dir.path() / "root";
		const fs::path src = fs::path(RDNAFIX_TOP) / "tests/unit/status/data/config-root";
		fs::copy(src, root, fs::copy_options::recursive);
		const fs::path ko = root / "lib/modules" / kRel / "updates/dkms/rdnafix.ko";
		fs::create_directories(ko.parent_path());
		fs::copy_file(fs::path(RDNAFIX_TOP) / "tests/unit/core/data/modsig/tiny-unsigned-6.1.0-56-amd64.ko",
			      ko);
	}
	// A real initramfs (gzip'ed newc cpio) with amdgpu and, when asked, rdnafix and its conf.
	void initramfs(bool with_rdnafix, std::int64_t mtime)
	{
		TempDir img;
		img.write("usr/lib/modules/" + kRel + "/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko", "x");
		if (with_rdnafix) {
			img.write("usr/lib/modules/" + kRel + "/updates/dkms/rdnafix.ko", "x");
			img.write("etc/modprobe.d/rdnafix.conf", "softdep amdgpu pre: rdnafix\n");
		}
		const fs::path out = root / "boot" / ("initrd.img-" + kRel);
		fs::create_directories(out.parent_path());
		const std::string cmd = "cd '" + img.path().string() +
					"' && find . | cpio -o -H newc --quiet | gzip > '" + out.string() + "'";
		REQUIRE(std::system(cmd.c_str()) == 0);
		set_mtime(out, mtime);
	}
	void configured_at(std::int64_t t) { set_mtime(root / "etc/modprobe.d/rdnafix.conf", t); }
	nlohmann::json status()
	{
		auto r = run_rdnactl({"status", "--root", root.string(), "--user", "root", "--json"});
		INFO(r.err);
		return nlohmann::json::parse(r.out);
	}
};

std::vector<std::string> ids(const nlohmann::json &j)
{
	std::vector<std::string> v;
	for (const auto &f : j.at("findings"))
		v.push_back(f.at("id").get<std::string>());
	return v;
}

const nlohmann::json *finding(const nlohmann::json &j, const std::string &id)
{
	for (const auto &f : j.at("findings"))
		if (f.at("id") == id)
			return &f;
	return nullptr;
}

bool has(const std::vector<std::string> &v, const std::string &x)
{
	return std::find(v.begin(), v.end(), x) != v.end();
}

} // namespace

TEST_CASE("config root (a): configured after this boot, initramfs regenerated: pending reboot", "[config]")
{
	Machine m;
	m.configured_at(kBoot + 100);
	m.initramfs(true, kBoot + 200);
	auto j = m.status();
	auto v = ids(j);
	INFO(j.at("findings").dump(1));
	const auto *f = finding(j, "RDNA-CFG-001");
	REQUIRE(f);
	CHECK(f->at("fix") == "reboot"); // the image is newer than the configuration
	CHECK_THAT(f->at("finding").get<std::string>(), ContainsSubstring("rdnafix.noretry=1 (rdnafix not loaded)"));
	CHECK_FALSE(has(v, "RDNA-MOD-001")); // installed, not loaded: CFG-001 explains it
	CHECK_FALSE(has(v, "RDNA-CFG-002"));
	CHECK_FALSE(has(v, "RDNA-CFG-003"));
	const auto &c = j.at("configuration");
	CHECK(c.at("present") == true);
	CHECK(c.at("initramfs").at("generator") == "initramfs-tools");
	CHECK(c.at("initramfs").at("older_than_config") == false);
	CHECK(c.at("initramfs").at("listed").is_null()); // no subprocess
	for (const auto &x : c.at("settings"))
		if (x.at("module") == "rdnafix")
			CHECK(x.at("state") == "pending-reboot");
	CHECK(c.at("kernels").at(0).at("rdnafix_modules").at(0).at("signature") == "unsigned");

	SECTION("the initramfs older than the configuration: regenerate first")
	{
		m.initramfs(false, kBoot + 50);
		auto k = m.status();
		const auto *g = finding(k, "RDNA-CFG-001");
		REQUIRE(g);
		CHECK(g->at("fix") == "update-initramfs -u -k all, then reboot");
		CHECK_THAT(g->at("finding").get<std::string>(),
			   ContainsSubstring(
				   "lsinitramfs: amdgpu inside, rdnafix.ko, etc/modprobe.d/rdnafix.conf missing"));
		CHECK(k.at("configuration").at("initramfs").at("listed").at("amdgpu") == true);
	}
}

TEST_CASE("config root (b): configured, rebooted, initramfs stale: RDNA-CFG-002 only", "[config]")
{
	Machine m;
	m.configured_at(kBoot - 1000);
	m.initramfs(false, kBoot - 2000);
	auto j = m.status();
	auto v = ids(j);
	INFO(j.at("findings").dump(1));
	const auto *f = finding(j, "RDNA-CFG-002");
	REQUIRE(f);
	CHECK(f->at("severity") == "error");
	CHECK(f->at("subject") == "/boot/initrd.img-" + kRel);
	CHECK_THAT(f->at("finding").get<std::string>(),
		   ContainsSubstring("lsinitramfs: amdgpu inside, rdnafix.ko, etc/modprobe.d/rdnafix.conf missing"));
	CHECK(f->at("fix") == "update-initramfs -u -k all, then reboot");
	CHECK_FALSE(has(v, "RDNA-MOD-001"));
	CHECK_FALSE(has(v, "RDNA-CFG-001"));
	CHECK(j.at("configuration").at("initramfs").at("older_than_config") == true);

	SECTION("the image is newer: not the initramfs, rdnafix simply not loaded")
	{
		m.initramfs(true, kBoot - 500);
		auto k = m.status();
		auto w = ids(k);
		CHECK_FALSE(has(w, "RDNA-CFG-002"));
		CHECK(has(w, "RDNA-MOD-001"));
		CHECK(k.at("configuration").at("initramfs").at("listed").is_null());
	}
	SECTION("amdgpu is not in the image: not the initramfs either")
	{
		TempDir img;
		img.write("etc/hostname", "x\n");
		const fs::path out = m.root / "boot" / ("initrd.img-" + kRel);
		REQUIRE(std::system(("cd '" + img.path().string() + "' && find . | cpio -o -H newc --quiet | gzip > '" +
				     out.string() + "'")
					    .c_str()) == 0);
		set_mtime(out, kBoot - 2000);
		auto k = m.status();
		CHECK_FALSE(has(ids(k), "RDNA-CFG-002"));
		CHECK(k.at("configuration").at("initramfs").at("listed").at("amdgpu") == false);
	}
	SECTION("Secure Boot on: the unsigned module is RDNA-CFG-004")
	{
		const fs::path var =
			m.root / "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e0e98cbc23e0";
		fs::create_directories(var.parent_path());
		std::ofstream(var, std::ios::binary) << std::string("\x06\x00\x00\x00\x01", 5);
		auto k = m.status();
		const auto *g = finding(k, "RDNA-CFG-004");
		REQUIRE(g);
		CHECK(g->at("subject") == "/lib/modules/" + kRel + "/updates/dkms/rdnafix.ko");
		CHECK_THAT(g->at("fix").get<std::string>(),
			   ContainsSubstring("mokutil --import /var/lib/dkms/mok.pub"));
		CHECK(k.at("configuration").at("secure_boot") == true);
	}
}
