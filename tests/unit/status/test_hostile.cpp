// Hostile trees built at test time: every bad item is reported as
// "unreadable: reason", nothing crashes, exit 2 only when nothing is readable.
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
		CHECK_THAT(r.err, ContainsSubstring("root '" + (t.path() / "nope").string() +
						    "': no such file or directory (ENOENT)"));
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
	fs::create_symlink("renderD128", t.path() / "sys/class/drm/renderD128");   // loop
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
	// Control bytes, no NUL (an --env file with a NUL is refused: test_machine_inputs.cpp).
	t.write("env", std::string("HSA_OVERRIDE_GFX_VERSION=\x01\x02\n", 28));

	for (bool json : {true, false}) {
		std::vector<std::string> args{
			"status", "--root",     t.path().string(), "--env", (t.path() / "env").string(),
			"--user", "nobody-here"};
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
		for (const char *i :
		     {"device_id", "revision", "subsystem_vendor_id", "vram_total_bytes", "gtt_total_bytes"})
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
	// Root ignores permission bits: drop to nobody for this run.
	std::vector<std::string> prefix = rdnafix::test::drop_root_prefix();
	if (::geteuid() == 0 && prefix.empty())
		SKIP("running as root without setpriv: permission bits do not stop root");
	TempDir t;
	fs::permissions(t.path(), fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
	t.write("proc/sys/kernel/osrelease", "6.12.0\n");
	t.write("sys/module/amdgpu/initstate", "live\n");
	t.write("etc/group", "root:x:0:\n");
	fs::permissions(t.path() / "sys/module/amdgpu/initstate", fs::perms::none);
	fs::permissions(t.path() / "etc/group", fs::perms::none);
	for (const char *d : {"proc", "proc/sys", "proc/sys/kernel", "sys", "sys/module", "sys/module/amdgpu", "etc"})
		fs::permissions(t.path() / d, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
	fs::permissions(t.path() / "proc/sys/kernel/osrelease", fs::perms::owner_all | fs::perms::others_read);
	auto r = run_rdnactl({"status", "--json", "--root", t.path().string()}, {}, prefix);
	INFO(r.out << r.err);
	CHECK((r.exit_code == 0 || r.exit_code == 1));
	auto j = nlohmann::json::parse(r.out);
	bool initstate = false;
	for (const auto &u : j["driver"]["unreadable"])
		if (u["path"].get<std::string>().find("initstate") != std::string::npos) {
			initstate = true;
			CHECK_THAT(u["reason"].get<std::string>(), ContainsSubstring("permission"));
		}
	CHECK(initstate);
	bool group = false;
	for (const auto &u : j["access"]["unreadable"])
		group = group || u["path"].get<std::string>() == "etc/group";
	CHECK(group);
	CHECK(j["driver"]["kernel_release"] == "6.12.0");
}

TEST_CASE("process subject: in etc/group but not in the session means log in again", "[hostile][access]")
{
	std::vector<std::string> prefix = rdnafix::test::drop_root_prefix();
	if (prefix.empty())
		SKIP("needs root and setpriv to run as a user whose session lacks a configured group");
	TempDir t;
	fs::permissions(t.path(), fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
	t.write("etc/passwd",
		"root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n");
	t.write("etc/group", "root:x:0:\nvideo:x:44:\nrender:x:109:nobody\nnogroup:x:65534:\n");
	t.write("dev/kfd", "");
	t.write("dev/.devnodes", "dev/kfd c 235:0 0660 root render\n");
	t.write("proc/sys/kernel/osrelease", "6.12.0\n");
	t.write("sys/module/amdgpu/initstate", "live\n");
	for (const auto &e : fs::recursive_directory_iterator(t.path()))
		fs::permissions(e.path(),
				fs::perms::others_read | (e.is_directory() ? fs::perms::others_exec : fs::perms::none),
				fs::perm_options::add);
	auto r = run_rdnactl({"status", "--json", "--root", t.path().string()}, {}, prefix);
	INFO(r.out << r.err);
	auto j = nlohmann::json::parse(r.out);
	CHECK(j["access"]["subject"] == "process");
	CHECK(j["access"]["user"] == "nobody");
	CHECK(j["access"]["relogin_groups"] == nlohmann::json::array({"render"}));
	CHECK(j["access"]["nodes"][0]["can_open"] == false);
	bool relogin = false, not_member = false;
	for (const auto &f : j["findings"]) {
		relogin = relogin || f["id"] == "RDNA-ACC-003";
		not_member = not_member || f["id"] == "RDNA-ACC-002";
	}
	CHECK(relogin);
	CHECK_FALSE(not_member);
	CHECK(r.exit_code == 1);
	// The same root judged for --user nobody: etc/group counts, so access is granted.
	auto u = run_rdnactl({"status", "--json", "--root", t.path().string(), "--user", "nobody"});
	auto ju = nlohmann::json::parse(u.out);
	CHECK(ju["access"]["nodes"][0]["can_open"] == true);
}
