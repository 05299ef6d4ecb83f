// plan_initramfs / list_command on fixture roots: the generator's own file,
// regeneration per kernel with an image, nothing when nothing changes, the
// initramfs-tools hook run by a real shell.
#include "config/initramfs.hpp"

#include "roots.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

using namespace rdnafix;
using Argv = std::vector<std::string>;

TEST_CASE("initramfs-tools: the hook goes in, each kernel with an image is regenerated", "[initramfs]")
{
	auto s = test::root_snapshot("debian-grub");
	REQUIRE(s.boot.initramfs == machine::InitramfsGenerator::initramfs_tools);
	auto p = config::plan_initramfs(s, true, true);
	CHECK_FALSE(p.refusal);
	REQUIRE(p.files.size() == 1);
	CHECK(p.files[0].path == "etc/initramfs-tools/hooks/rdnafix");
	CHECK(p.files[0].mode == 0755);
	REQUIRE(p.files[0].content);
	CHECK(p.files[0].content->find("manual_add_modules rdnafix\n") != std::string::npos);
	CHECK(p.files[0].content->find(". /usr/share/initramfs-tools/hook-functions\n") != std::string::npos);
	// 6.12.57+deb13-amd64 has no image: no command, a note.
	REQUIRE(p.commands.size() == 1);
	CHECK(p.commands[0].argv == Argv{"update-initramfs", "-u", "-k", "6.1.0-18-amd64"});
	bool noted = false;
	for (const auto &n : p.notes)
		noted |= n.find("kernel 6.12.57+deb13-amd64 has no initramfs image") != std::string::npos;
	CHECK(noted);
}

TEST_CASE("initramfs-tools: nothing changes, nothing runs; a changed modprobe.d file still regenerates", "[initramfs]")
{
	auto s = test::root_snapshot("debian-grub");
	test::set_owned(s, "etc/initramfs-tools/hooks/rdnafix",
			config::initramfs_owned_content(machine::InitramfsGenerator::initramfs_tools));
	auto same = config::plan_initramfs(s, true, false);
	CHECK(same.files.empty());
	CHECK(same.commands.empty());
	auto conf = config::plan_initramfs(s, true, true);
	CHECK(conf.files.empty());
	REQUIRE(conf.commands.size() == 1);
	CHECK(conf.commands[0].argv[0] == "update-initramfs");
	// Unwanted: the hook is deleted and the image rebuilt without it.
	auto off = config::plan_initramfs(s, false, false);
	REQUIRE(off.files.size() == 1);
	CHECK_FALSE(off.files[0].content);
	REQUIRE(off.commands.size() == 1);
	CHECK(off.commands[0].why.find("take rdnafix out of") != std::string::npos);
}

TEST_CASE("dracut: the conf.d file and dracut --force --kver with the image path found", "[initramfs]")
{
	auto s = test::root_snapshot("fedora-grubby");
	REQUIRE(s.boot.initramfs == machine::InitramfsGenerator::dracut);
	auto p = config::plan_initramfs(s, true, false);
	REQUIRE(p.files.size() == 1);
	CHECK(p.files[0].path == "etc/dracut.conf.d/rdnafix.conf");
	CHECK(p.files[0].mode == 0644);
	CHECK(*p.files[0].content == "# Managed by rdnactl (rdnafix). Edit with 'rdnactl config'.\n"
				     "# dracut: the rdnafix module and its options go into every initramfs.\n"
				     "add_drivers+=\" rdnafix \"\n"
				     "install_items+=\" /etc/modprobe.d/rdnafix.conf \"\n");
	REQUIRE(p.commands.size() == 2);
	CHECK(p.commands[0].argv == Argv{"dracut", "--force", "--kver", "6.11.4-301.fc41.x86_64",
					 "/boot/initramfs-6.11.4-301.fc41.x86_64.img"});
	CHECK(p.commands[1].argv == Argv{"dracut", "--force", "--kver", "6.12.5-200.fc41.x86_64",
					 "/boot/initramfs-6.12.5-200.fc41.x86_64.img"});
	// rdnafix is built only for 6.12.5: the older kernel's image cannot hold it.
	bool noted = false;
	for (const auto &n : p.notes)
		noted |= n.find("rdnafix is not built for kernel 6.11.4-301.fc41.x86_64") != std::string::npos;
	CHECK(noted);
	// Debian with dracut: Debian's image name.
	auto d = test::root_snapshot("debian-sdboot");
	auto pd = config::plan_initramfs(d, true, false);
	REQUIRE(pd.commands.size() == 1);
	CHECK(pd.commands[0].argv ==
	      Argv{"dracut", "--force", "--kver", "6.1.0-18-amd64", "/boot/initrd.img-6.1.0-18-amd64"});
}

TEST_CASE("mkinitcpio: the conf.d file and one mkinitcpio -P", "[initramfs]")
{
	auto s = test::root_snapshot("arch-sdboot");
	REQUIRE(s.boot.initramfs == machine::InitramfsGenerator::mkinitcpio);
	REQUIRE(s.boot.kernels.size() == 1);
	CHECK(s.boot.kernels[0].initramfs_image == "boot/initramfs-linux.img");
	auto p = config::plan_initramfs(s, true, false);
	REQUIRE(p.files.size() == 1);
	CHECK(p.files[0].path == "etc/mkinitcpio.conf.d/rdnafix.conf");
	CHECK(p.files[0].content->find("MODULES+=(rdnafix)\nFILES+=(/etc/modprobe.d/rdnafix.conf)\n") !=
	      std::string::npos);
	REQUIRE(p.commands.size() == 1);
	CHECK(p.commands[0].argv == Argv{"mkinitcpio", "-P"});
}

TEST_CASE("a file rdnactl left for another generator is removed", "[initramfs]")
{
	auto s = test::root_snapshot("fedora-grubby");
	test::set_owned(s, "etc/initramfs-tools/hooks/rdnafix", "old");
	auto p = config::plan_initramfs(s, true, false);
	REQUIRE(p.files.size() == 2);
	CHECK(p.files[0].path == "etc/initramfs-tools/hooks/rdnafix");
	CHECK_FALSE(p.files[0].content);
	CHECK(p.files[1].path == "etc/dracut.conf.d/rdnafix.conf");
}

TEST_CASE("no generator: a note and nothing to regenerate; immutable: refused", "[initramfs]")
{
	auto s = test::root_snapshot("debian-nogen");
	REQUIRE(s.boot.initramfs == machine::InitramfsGenerator::none);
	auto p = config::plan_initramfs(s, true, true);
	CHECK(p.files.empty());
	CHECK(p.commands.empty());
	REQUIRE(p.notes.size() == 1);
	CHECK(p.notes[0].find("amdgpu then loads from the root file system") != std::string::npos);
	CHECK_FALSE(config::list_command(s, s.boot.kernels.at(0)));

	auto n = test::root_snapshot("silverblue");
	auto pn = config::plan_initramfs(n, true, true);
	REQUIRE(pn.refusal);
	CHECK(pn.refusal->find("ostree (/run/ostree-booted)") != std::string::npos);
	CHECK(pn.files.empty());
	CHECK(pn.commands.empty());
}

TEST_CASE("list_command: the generator's own lister with the absolute image path", "[initramfs]")
{
	auto d = test::root_snapshot("debian-grub");
	auto c = config::list_command(d, d.boot.kernels.at(0));
	REQUIRE(c);
	CHECK(c->argv == Argv{"lsinitramfs", "/boot/initrd.img-6.1.0-18-amd64"});
	CHECK_FALSE(config::list_command(d, d.boot.kernels.at(1))); // no image
	auto f = test::root_snapshot("fedora-grubby");
	CHECK(config::list_command(f, f.boot.kernels.at(0))->argv ==
	      Argv{"lsinitrd", "/boot/initramfs-6.11.4-301.fc41.x86_64.img"});
	auto a = test::root_snapshot("arch-sdboot");
	CHECK(config::list_command(a, a.boot.kernels.at(0))->argv == Argv{"lsinitcpio", "/boot/initramfs-linux.img"});
}

TEST_CASE("the initramfs-tools hook is a valid hook: sh -n, prereqs, real hook-functions", "[initramfs][shell]")
{
	namespace fs = std::filesystem;
	const fs::path dir = fs::temp_directory_path() / ("rdnafix-hook-" + std::to_string(::getpid()));
	fs::create_directories(dir);
	const fs::path hook = dir / "rdnafix";
	{
		std::ofstream(hook) << config::initramfs_owned_content(machine::InitramfsGenerator::initramfs_tools);
	}
	auto run = [&](const std::string &cmd) {
		std::string out;
		FILE *f = ::popen(cmd.c_str(), "r");
		REQUIRE(f);
		char buf[256];
		while (std::fgets(buf, sizeof buf, f))
			out += buf;
		int rc = ::pclose(f);
		return std::pair<int, std::string>{rc, out};
	};
	CHECK(run("sh -n '" + hook.string() + "'").first == 0);
	// mkinitramfs asks every hook for its prerequisites first: an empty line.
	auto pre = run("sh '" + hook.string() + "' prereqs");
	CHECK(pre.first == 0);
	CHECK(pre.second == "\n");
	// With the host's initramfs-tools: the hook runs with mkinitramfs's
	// environment; the module is not installed for the host kernel, so
	// manual_add_modules adds nothing and the hook still succeeds.
	if (fs::exists("/usr/share/initramfs-tools/hook-functions")) {
		fs::create_directories(dir / "dest");
		auto r = run("cd '" + dir.string() + "' && DESTDIR='" + (dir / "dest").string() +
			     "' version=0.0.0-none verbose=n MODULESDIR=/nonexistent sh '" + hook.string() + "' 2>&1");
		CHECK(r.first == 0);
	}
	fs::remove_all(dir);
}
