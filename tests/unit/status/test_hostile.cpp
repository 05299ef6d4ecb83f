// Hostile trees built at test time: every bad item is reported as
// "unreadable: reason", nothing crashes, exit 2 only when nothing is readable.
#include "collect.hpp"
#include "findings.hpp"
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <algorithm>
#include <set>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <unistd.h>

#include <filesystem>

namespace fs = std::filesystem;
using Catch::Matchers::ContainsSubstring;
using rdnafix::test::run_rdnactl;
using rdnafix::test::TempDir;

TEST_CASE("an unusable root exits 2 with a clear message", "[hostile]")
{
	TempDir t;
	SECTION("does not exist")
	{
		auto r = run_rdnactl({"status", "--root", (t.path() / "nope").string()});
		CHECK(r.exit_code == 2);
		CHECK_THAT(r.err, ContainsSubstring("nope"));
		CHECK_THAT(r.err, ContainsSubstring("unreadable"));
	}
	SECTION("is a file")
	{
		t.write("file", "x");
		auto r = run_rdnactl({"status", "--json", "--root", (t.path() / "file").string()});
		CHECK(r.exit_code == 2);
		auto j = nlohmann::json::parse(r.out);
		CHECK(j["exit_code"] == 2);
		CHECK(j.contains("error"));
	}
	SECTION("is empty")
	{
		auto r = run_rdnactl({"status", "--root", t.path().string()});
		CHECK(r.exit_code == 2);
		CHECK_THAT(r.err, ContainsSubstring("nothing to read"));
		auto e = run_rdnactl({"env", "--root", t.path().string()});
		CHECK(e.exit_code == 2);
	}
	SECTION("bad option values")
	{
		CHECK(run_rdnactl({"status", "--color", "sometimes"}).exit_code == 2);
		CHECK(run_rdnactl({"env", "--shell", "csh"}).exit_code == 2);
	}
}

TEST_CASE("garbage, binary, huge, empty, directories and symlink loops", "[hostile]")
{
	TempDir t;
	const std::string dev = "sys/devices/pci0000:00/0000:00:01.0/0000:03:00.0/";
	t.write(dev + "vendor", "0x1002\n");
	t.write(dev + "device", std::string("\0\x01\x02garbage", 10));
	t.write(dev + "class", "0x030000\n");
	t.write(dev + "revision", "");
	t.write(dev + "subsystem_vendor", "not a number\n");
	t.write(dev + "subsystem_device", "0x1234\n");
	t.write(dev + "mem_info_vram_total", std::string(3 << 20, '7'));
	fs::create_directories(t.path() / dev / "mem_info_gtt_total"); // a directory where a file belongs
	fs::create_directories(t.path() / "sys/bus/pci/drivers/amdgpu");
	fs::create_directories(t.path() / "sys/bus/pci/devices");
	fs::create_symlink("../../../devices/pci0000:00/0000:00:01.0/0000:03:00.0",
			   t.path() / "sys/bus/pci/devices/0000:03:00.0");
	fs::create_symlink("../../../../../bus/pci/drivers/amdgpu", t.path() / dev / "driver");
	fs::create_directories(t.path() / dev / "drm/card0");
	fs::create_directories(t.path() / "sys/class/drm");
	fs::create_symlink("../../devices/pci0000:00/0000:00:01.0/0000:03:00.0/drm/card0",
			   t.path() / "sys/class/drm/card0");
	fs::create_symlink("renderD128", t.path() / "sys/class/drm/renderD128"); // loop
	fs::create_directories(t.path() / "sys/module/amdgpu/parameters/noretry"); // EISDIR
	t.write("sys/module/amdgpu/initstate", "live\n");
	t.write("sys/class/kfd/kfd/topology/nodes/1/properties", std::string("\xff\xfe binary", 9));
	t.write("proc/cmdline", std::string("amdgpu.noretry=0\0junk", 21));
	t.write("proc/version", "");
	t.write("proc/sys/kernel/osrelease", "6.12.0\n");
	t.write("proc/modules", "this is not a modules file\n");
	t.write("etc/group", std::string("\0\0\0", 3));
	t.write("etc/modprobe.d/bad.conf", "options\nfrobnicate amdgpu\noptions amdgpu noretry=\"1\n");
	fs::create_directories(t.path() / "dev");
	fs::create_symlink("kfd", t.path() / "dev/kfd"); // loop
	fs::create_directories(t.path() / "sys/kernel/rdnafix/devices/0000:03:00.0");
	t.write("sys/kernel/rdnafix/abi_version", "1\n");
	t.write("usr/share/libdrm/amdgpu.ids", std::string(5 << 20, 'x'));
	t.write("env", std::string("HSA_OVERRIDE_GFX_VERSION=\x01\x02\n", 29));

	for (bool json : {true, false}) {
		std::vector<std::string> args{"status", "--root", t.path().string(), "--env",
					      (t.path() / "env").string(), "--user", "nobody-here"};
		if (json)
			args.push_back("--json");
		auto r = run_rdnactl(args);
		INFO(r.out << r.err);
		CHECK((r.exit_code == 0 || r.exit_code == 1));
		if (!json) {
			CHECK_THAT(r.out, ContainsSubstring("unreadable"));
			continue;
		}
		auto j = nlohmann::json::parse(r.out);
		REQUIRE(j["devices"].size() == 1);
		auto d = j["devices"][0];
		CHECK(d["vendor_id"] == 0x1002);
		CHECK(d["device_id"].is_null());
		CHECK(d["vram_total_bytes"].is_null());
		CHECK(d["gtt_total_bytes"].is_null());
		std::set<std::string> items;
		for (const auto &u : d["unreadable"]) {
			items.insert(u["item"].get<std::string>());
			CHECK_THAT(u["reason"].get<std::string>(), ContainsSubstring("unreadable"));
		}
		for (const char *i : {"device_id", "revision", "subsystem_vendor_id", "vram_total_bytes", "gtt_total_bytes"})
			CHECK(items.count(i));
		// The finding that summarises unreadable items is there.
		bool rdr = false;
		for (const auto &f : j["findings"])
			rdr = rdr || f["id"] == "RDNA-RDR-000";
		CHECK(rdr);
		// /dev/kfd symlink loop: reported, not "missing".
		REQUIRE(j["access"]["nodes"].size() >= 1);
		CHECK_THAT(j["access"]["nodes"][0]["verdict"].get<std::string>(), ContainsSubstring("unreadable"));
		CHECK(j["rdnafix"]["unreadable"].size() > 0);
	}
}

TEST_CASE("an unreadable file is named with its reason", "[hostile]")
{
	if (::geteuid() == 0)
		SKIP("running as root: permission bits do not stop root (EISDIR/ELOOP/binary cover the other reasons)");
	TempDir t;
	t.write("proc/sys/kernel/osrelease", "6.12.0\n");
	t.write("sys/module/amdgpu/initstate", "live\n");
	fs::permissions(t.path() / "sys/module/amdgpu/initstate", fs::perms::none);
	auto r = run_rdnactl({"status", "--json", "--root", t.path().string()});
	auto j = nlohmann::json::parse(r.out);
	bool found = false;
	for (const auto &u : j["driver"]["unreadable"])
		found = found || u["path"].get<std::string>().find("initstate") != std::string::npos;
	CHECK(found);
}
