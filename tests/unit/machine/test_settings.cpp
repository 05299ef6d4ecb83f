// machine::configured_settings over roots built per test: modprobe.d
// precedence (directories and name order), the running versus the next
// command line (GRUB variables, "$VAR ..." appends, etc/kernel/cmdline), owned
// or not, and every SettingState; the packaged softdep (debian/modprobe) and
// the same-named etc/ file that replaces it.
#include "machine/settings.hpp"

#include "tree.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace rdnafix::machine;
using rdnafix::test::Tree;

namespace {

constexpr std::int64_t kBoot = 1700000000; // btime of every tree

void base(const Tree &t, const std::string &cmdline = "BOOT_IMAGE=/vmlinuz root=/dev/sda1")
{
	t.write("proc/cmdline", cmdline + "\n");
	t.write("proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
	t.write("proc/stat", "cpu  1 2 3\nbtime " + std::to_string(kBoot) + "\n");
	t.write("lib/modules/6.1.0-18-amd64/modules.dep", "");
}

const Setting *find(const std::vector<Setting> &v, const std::string &m, const std::string &n)
{
	for (const auto &x : v)
		if (x.module == m && x.name == n)
			return &x;
	return nullptr;
}

void grub(const Tree &t, const std::string &text)
{
	t.write("usr/sbin/update-grub", "#!/bin/sh\n");
	t.write("etc/default/grub", text);
}

} // namespace

TEST_CASE("settings: modprobe.d precedence is kmod's (directory hides the same name, then name order)", "[settings]")
{
	Tree t;
	base(t);
	t.write("etc/modprobe.d/rdnafix.conf", "options rdnafix noretry=1\n");
	t.write("lib/modprobe.d/rdnafix.conf", "options rdnafix noretry=0 strict=1\n"); // hidden by etc/
	t.write("run/modprobe.d/aa.conf", "options rdnafix noretry=0\n");
	t.write("usr/local/lib/modprobe.d/zz.conf", "# later name\noptions rdnafix noretry=2\n");
	auto v = configured_settings(t.collect());
	const Setting *nr = find(v, "rdnafix", "noretry");
	REQUIRE(nr);
	REQUIRE(nr->modprobe);
	CHECK(nr->modprobe->value == "2");
	CHECK(nr->modprobe->file == "usr/local/lib/modprobe.d/zz.conf");
	CHECK(nr->modprobe->line == 2);
	REQUIRE(nr->modprobe_others.size() == 2);
	CHECK(nr->modprobe_others[0].file == "run/modprobe.d/aa.conf"); // "aa" < "rdnafix" < "zz"
	CHECK(nr->modprobe_others[1].file == "etc/modprobe.d/rdnafix.conf");
	CHECK_FALSE(nr->owned);
	CHECK(nr->next_boot == "2");
	CHECK(nr->state == SettingState::pending_reboot); // written after btime, rdnafix not loaded yet
	t.touch("usr/local/lib/modprobe.d/zz.conf", kBoot - 10);
	CHECK(find(configured_settings(t.collect()), "rdnafix", "noretry")->state == SettingState::module_not_loaded);
	CHECK(find(v, "rdnafix", "strict") == nullptr); // only in the hidden lib/ file

	std::filesystem::remove(t.root() / "usr/local/lib/modprobe.d/zz.conf");
	v = configured_settings(t.collect());
	nr = find(v, "rdnafix", "noretry");
	REQUIRE(nr);
	CHECK(nr->modprobe->file == "etc/modprobe.d/rdnafix.conf");
	CHECK(nr->owned);
}

TEST_CASE("settings: GRUB drop-in appending to the variable gives the next boot's value", "[settings]")
{
	Tree t;
	base(t, "BOOT_IMAGE=/vmlinuz quiet amdgpu.noretry=0 amdgpu.lockup_timeout=1000");
	grub(t, "GRUB_CMDLINE_LINUX=\"amdgpu.lockup_timeout=1000\"\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet "
		"amdgpu.noretry=0\"\n");
	t.write("etc/default/grub.d/rdnafix.cfg", "# managed\nGRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT "
						  "amdgpu.noretry=1\"\n");
	t.write("etc/default/grub.d/zz.cfg", "GRUB_CMDLINE_LINUX=\"\"\n"); // replaces, not appends
	t.write("etc/modprobe.d/amdgpu.conf", "options amdgpu noretry=1\n");
	t.write("sys/module/amdgpu/parameters/noretry", "0\n");
	t.write("sys/module/amdgpu/parameters/lockup_timeout", "1000\n");
	auto s = t.collect();
	auto parts = next_boot_cmdline(s.boot);
	REQUIRE(parts.size() == 3); // LINUX (zz.cfg, empty), DEFAULT (grub), DEFAULT (rdnafix.cfg)
	CHECK(parts[0].file == "etc/default/grub.d/zz.cfg");
	CHECK(parts[2].text == "amdgpu.noretry=1");
	auto v = configured_settings(s);
	const Setting *nr = find(v, "amdgpu", "noretry");
	REQUIRE(nr);
	REQUIRE(nr->cmdline_now);
	CHECK(nr->cmdline_now->value == "0");
	CHECK(nr->cmdline_now->file == "proc/cmdline");
	REQUIRE(nr->cmdline_next);
	CHECK(nr->cmdline_next->value == "1");
	CHECK(nr->cmdline_next->file == "etc/default/grub.d/rdnafix.cfg");
	CHECK(nr->cmdline_next->line == 2);
	CHECK(nr->next_boot == "1");
	CHECK(nr->live == "0");
	CHECK(nr->state == SettingState::pending_reboot);
	const Setting *lt = find(v, "amdgpu", "lockup_timeout");
	REQUIRE(lt);
	CHECK(lt->cmdline_now);
	CHECK_FALSE(lt->cmdline_next); // GRUB_CMDLINE_LINUX="" in zz.cfg drops it
	CHECK_FALSE(lt->next_boot);
	CHECK(lt->state == SettingState::pending_reboot);
}

TEST_CASE("settings: the command line overriding modprobe.d is 'overridden'", "[settings]")
{
	Tree t;
	base(t, "quiet amdgpu.noretry=0");
	grub(t, "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet amdgpu.noretry=0\"\n");
	t.write("etc/modprobe.d/amdgpu.conf", "options amdgpu noretry=1\n");
	t.write("sys/module/amdgpu/parameters/noretry", "0\n");
	auto v = configured_settings(t.collect());
	const Setting *nr = find(v, "amdgpu", "noretry");
	REQUIRE(nr);
	CHECK(nr->next_boot == "0");
	CHECK(nr->cmdline_next->file == "etc/default/grub");
	CHECK(nr->state == SettingState::overridden);
}

TEST_CASE("settings: in effect, pending reboot and not applied by the owned file's mtime", "[settings]")
{
	Tree t;
	base(t);
	t.write("etc/modprobe.d/rdnafix.conf", "options rdnafix noretry=1 targets=rdna1\n", kBoot - 3600);
	t.write("sys/module/rdnafix/parameters/noretry", "1\n");
	t.write("sys/module/rdnafix/parameters/targets", "\n");
	auto v = configured_settings(t.collect());
	const Setting *nr = find(v, "rdnafix", "noretry");
	const Setting *tg = find(v, "rdnafix", "targets");
	REQUIRE(nr);
	REQUIRE(tg);
	CHECK(nr->owned);
	CHECK(nr->state == SettingState::in_effect);
	CHECK(tg->live == "");
	CHECK(tg->state == SettingState::not_applied); // configured before this boot, not in effect
	t.touch("etc/modprobe.d/rdnafix.conf", kBoot + 60);
	v = configured_settings(t.collect());
	CHECK(find(v, "rdnafix", "targets")->state == SettingState::pending_reboot);
	CHECK(find(v, "rdnafix", "noretry")->state == SettingState::in_effect);
	CHECK(to_string(SettingState::pending_reboot) == "pending-reboot");
}

TEST_CASE("settings: boot loader unknown: the next boot keeps the running command line", "[settings]")
{
	Tree t;
	base(t, "ttm.pages_limit=4194304");
	t.write("etc/modprobe.d/ttm.conf", "options ttm pages_limit=8388608\n");
	t.write("sys/module/ttm/parameters/pages_limit", "4194304\n");
	auto v = configured_settings(t.collect());
	const Setting *pl = find(v, "ttm", "pages_limit");
	REQUIRE(pl);
	CHECK_FALSE(pl->cmdline_next);
	CHECK(pl->next_boot == "4194304");
	CHECK(pl->state == SettingState::overridden);
}

TEST_CASE("settings: systemd-boot's etc/kernel/cmdline is the next command line", "[settings]")
{
	Tree t;
	base(t, "root=/dev/sda1");
	t.write("etc/kernel/cmdline", "root=/dev/sda1 rdnafix.noretry=1\n");
	t.write("sys/module/rdnafix/parameters/noretry", "-1\n");
	auto v = configured_settings(t.collect());
	const Setting *nr = find(v, "rdnafix", "noretry");
	REQUIRE(nr);
	REQUIRE(nr->cmdline_next);
	CHECK(nr->cmdline_next->file == "etc/kernel/cmdline");
	CHECK(nr->next_boot == "1");
	CHECK(nr->live == "-1");
	CHECK(nr->state == SettingState::pending_reboot); // not on /proc/cmdline yet
	CHECK_FALSE(nr->owned);
}

namespace {

// The softdep lines of rdnafix among the modprobe.d files kmod reads: "path:line" each.
std::vector<std::string> rdnafix_softdeps(const Snapshot &s)
{
	std::vector<std::string> out;
	for (const auto &f : s.boot.modprobe)
		for (const auto &e : f.config.entries)
			if (e.kind == rdnafix::core::ModprobeKind::softdep && e.module == "amdgpu" &&
			    std::find(e.pre.begin(), e.pre.end(), "rdnafix") != e.pre.end())
				out.push_back(f.path + ":" + std::to_string(e.where.line));
	return out;
}

} // namespace

TEST_CASE("settings: the rdnafix-dkms package's softdep is read from lib/ and usr/lib/modprobe.d; the same name in "
	  "etc/ replaces it",
	  "[settings]")
{
	// The file the package installs (debian/rdnafix-dkms.install), as shipped.
	std::ifstream in(std::string(RDNAFIX_FIXTURES) + "/../../debian/modprobe/rdnafix.conf");
	REQUIRE(in);
	const std::string packaged((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
	// lib/: Debian 12's kmod 30; usr/lib/: a root without the /lib link (later kmod reads it too)
	for (const std::string dir : {"lib/modprobe.d", "usr/lib/modprobe.d"}) {
		CAPTURE(dir);
		Tree t;
		base(t);
		t.write(dir + "/rdnafix.conf", packaged);
		auto deps = rdnafix_softdeps(t.collect());
		REQUIRE(deps.size() == 1);
		CHECK(deps[0].rfind(dir + "/rdnafix.conf:", 0) == 0);
		CHECK(find(configured_settings(t.collect()), "rdnafix", "noretry") == nullptr); // no options

		// `rdnactl config` with amdgpu options only: its file hides the package's, softdep included
		t.write("etc/modprobe.d/rdnafix.conf", "options amdgpu noretry=1\n");
		auto s = t.collect();
		CHECK(rdnafix_softdeps(s).empty());
		for (const auto &f : s.boot.modprobe)
			CHECK(f.path != dir + "/rdnafix.conf");

		// with rdnafix options it writes its own softdep line: that one is in effect
		t.write("etc/modprobe.d/rdnafix.conf", "options rdnafix noretry=1\nsoftdep amdgpu pre: rdnafix\n");
		deps = rdnafix_softdeps(t.collect());
		REQUIRE(deps.size() == 1);
		CHECK(deps[0] == "etc/modprobe.d/rdnafix.conf:2");

		// another name in etc/ does not hide it
		std::filesystem::remove(t.root() / "etc/modprobe.d/rdnafix.conf");
		t.write("etc/modprobe.d/amdgpu.conf", "options amdgpu noretry=1\n");
		deps = rdnafix_softdeps(t.collect());
		REQUIRE(deps.size() == 1);
		CHECK(deps[0].rfind(dir + "/rdnafix.conf:", 0) == 0);
	}
}
