// plan_cmdline on fixture roots: one mechanism per boot loader, the words it
// removes and adds, nothing when nothing changes, refusals with the manual
// step, and what a removed parameter becomes on this kernel.
#include "config/bootloader.hpp"
#include "config/grub_dropin.hpp"

#include "roots.hpp"

#include <catch2/catch_test_macros.hpp>

#include <string>
#include <vector>

using namespace rdnafix;
using config::CmdlineChange;
using Argv = std::vector<std::string>;

namespace {

bool has_note(const config::Plan &p, const std::string &text)
{
	for (const auto &n : p.notes)
		if (n.find(text) != std::string::npos)
			return true;
	return false;
}

} // namespace

TEST_CASE("GRUB on Debian: the drop-in and update-grub", "[bootloader][grub]")
{
	auto s = test::root_snapshot("debian-grub");
	REQUIRE(s.boot.bootloader == machine::BootloaderKind::grub);
	auto p = config::plan_cmdline(s, {{"amdgpu.noretry", "1"}});
	REQUIRE_FALSE(p.refusal);
	REQUIRE(p.files.size() == 1);
	CHECK(p.files[0].path == "etc/default/grub.d/rdnafix.cfg");
	CHECK(p.files[0].mode == 0644);
	REQUIRE(p.files[0].content);
	CHECK(p.files[0].content->rfind("# Managed by rdnactl (rdnafix). Edit with 'rdnactl config'.\n", 0) == 0);
	CHECK(p.files[0].content->find("# rdnactl-cmdline: set amdgpu.noretry=1\n") != std::string::npos);
	CHECK(p.files[0].content->find("rdnafix_param 'amdgpu.noretry' 'amdgpu.noretry=1'\n") != std::string::npos);
	REQUIRE(p.commands.size() == 1);
	CHECK(p.commands[0].argv == Argv{"update-grub"});
	// The parameter is in GRUB_CMDLINE_LINUX_DEFAULT only: it stays there.
	CHECK(has_note(p, "amdgpu.noretry=1: added to GRUB_CMDLINE_LINUX_DEFAULT"));

	// Again with the drop-in in place: nothing to do.
	config::Plan again;
	{
		auto s2 = s;
		test::set_owned(s2, "etc/default/grub.d/rdnafix.cfg", *p.files[0].content);
		again = config::plan_cmdline(s2, {{"amdgpu.noretry", "1"}});
		CHECK(again.files.empty());
		CHECK(again.commands.empty());
		// A second parameter keeps the first one in the drop-in.
		auto more = config::plan_cmdline(s2, {{"amdgpu.vm_fragment_size", std::nullopt}});
		REQUIRE(more.files.size() == 1);
		auto state = config::detail::grub_dropin_state(*more.files[0].content);
		REQUIRE(state.size() == 2);
		CHECK(state[0].param == "amdgpu.noretry");
		CHECK(state[0].value == "1");
		CHECK(state[1].param == "amdgpu.vm_fragment_size");
		CHECK_FALSE(state[1].value);
	}
}

TEST_CASE("GRUB: grub-mkconfig without update-grub, GRUB_CMDLINE_LINUX holder, a later drop-in", "[bootloader][grub]")
{
	auto s = test::root_snapshot("debian-nogen");
	auto p = config::plan_cmdline(s, {{"amdgpu.noretry", "1"}});
	REQUIRE_FALSE(p.refusal);
	REQUIRE(p.commands.size() == 1);
	CHECK(p.commands[0].argv == Argv{"grub-mkconfig", "-o", "/boot/grub/grub.cfg"});
	CHECK(has_note(p, "amdgpu.noretry: GRUB_CMDLINE_LINUX holds it (etc/default/grub line 2)"));
	CHECK(has_note(p, "etc/default/grub.d/zz-local.cfg line 1 is read after rdnactl's drop-in and replaces "
			  "GRUB_CMDLINE_LINUX_DEFAULT whole"));
}

TEST_CASE("GRUB on Fedora: grubby for every entry, the /etc/default/grub line named", "[bootloader][grub]")
{
	auto s = test::root_snapshot("fedora-grubby");
	auto p = config::plan_cmdline(s, {{"amdgpu.noretry", "1"}, {"amdgpu.vm_fragment_size", std::nullopt}});
	REQUIRE_FALSE(p.refusal);
	CHECK(p.files.empty());
	REQUIRE(p.commands.size() == 1);
	CHECK(p.commands[0].argv == Argv{"grubby", "--update-kernel=ALL", "--args=amdgpu.noretry=1",
					 "--remove-args=amdgpu.vm_fragment_size"});
	CHECK(has_note(p, "etc/default/grub line 6 still has amdgpu.noretry=0 in GRUB_CMDLINE_LINUX"));
}

TEST_CASE("systemd-boot with /etc/kernel/cmdline on Arch: edited in place, UKIs rebuilt", "[bootloader]")
{
	auto s = test::root_snapshot("arch-sdboot");
	REQUIRE(s.boot.bootloader == machine::BootloaderKind::systemd_boot);
	auto p = config::plan_cmdline(s, {{"amdgpu.noretry", "1"}});
	REQUIRE_FALSE(p.refusal);
	REQUIRE(p.files.size() == 1);
	CHECK(p.files[0].path == "etc/kernel/cmdline");
	CHECK(*p.files[0].content == "root=UUID=5e6f rw amdgpu.noretry=1 quiet\n");
	REQUIRE(p.commands.size() == 1);
	CHECK(p.commands[0].argv == Argv{"mkinitcpio", "-P"});
	auto same = config::plan_cmdline(s, {{"amdgpu.noretry", "0"}});
	CHECK(same.files.empty());
	CHECK(same.commands.empty());
}

TEST_CASE("systemd-boot on Debian without /etc/kernel/cmdline: created, kernel-install per kernel", "[bootloader]")
{
	auto s = test::root_snapshot("debian-sdboot");
	REQUIRE(s.boot.bootloader == machine::BootloaderKind::systemd_boot);
	auto p = config::plan_cmdline(s, {{"amdgpu.noretry", std::nullopt}, {"rdnafix.noretry", "1"}});
	REQUIRE_FALSE(p.refusal);
	REQUIRE(p.files.size() == 1);
	CHECK(*p.files[0].content == "root=UUID=7a8b ro quiet rdnafix.noretry=1\n");
	REQUIRE(p.commands.size() == 1);
	CHECK(p.commands[0].argv == Argv{"kernel-install", "add", "6.1.0-18-amd64", "/boot/vmlinuz-6.1.0-18-amd64"});
	CHECK(has_note(p, "/etc/kernel/cmdline does not exist"));
}

TEST_CASE("kernelstub: -d the old words, -a the new ones", "[bootloader]")
{
	auto s = test::root_snapshot("popos-kernelstub");
	REQUIRE(s.boot.bootloader == machine::BootloaderKind::kernelstub);
	auto p = config::plan_cmdline(s, {{"amdgpu.noretry", "1"}});
	REQUIRE(p.commands.size() == 2);
	CHECK(p.commands[0].argv == Argv{"kernelstub", "-d", "amdgpu.noretry=0"});
	CHECK(p.commands[1].argv == Argv{"kernelstub", "-a", "amdgpu.noretry=1"});
	auto same = config::plan_cmdline(s, {{"amdgpu.noretry", "0"}});
	CHECK(same.commands.empty());
}

TEST_CASE("refusals: invalid parameters, an unknown boot loader, GRUB elsewhere", "[bootloader]")
{
	auto s = test::root_snapshot("debian-grub");
	for (const CmdlineChange &bad : {CmdlineChange{"quiet", std::nullopt}, CmdlineChange{"amdgpu.noretry", "1 2"},
					 CmdlineChange{"amdgpu.noretry", "'1'"}, CmdlineChange{"amdgpu.no$retry", "1"},
					 CmdlineChange{"amdgpu.noretry", ""}}) {
		auto p = config::plan_cmdline(s, {bad});
		REQUIRE(p.refusal);
		CHECK(p.refusal->find("kernel parameter '") == 0);
		CHECK(p.files.empty());
		CHECK(p.commands.empty());
	}
	auto twice = config::plan_cmdline(s, {{"amdgpu.noretry", "1"}, {"amdgpu.noretry", "0"}});
	REQUIRE(twice.refusal);
	CHECK(*twice.refusal == "kernel parameter 'amdgpu.noretry' is given twice");

	auto u = s;
	u.boot.bootloader = machine::BootloaderKind::unknown;
	auto pu = config::plan_cmdline(u, {{"amdgpu.noretry", "1"}});
	REQUIRE(pu.refusal);
	CHECK(pu.refusal->find("change the kernel command line by hand: remove amdgpu.noretry=0, add "
			       "amdgpu.noretry=1") != std::string::npos);

	auto arch = s;
	arch.boot.os.id = "arch";
	arch.boot.os.pretty_name = "Arch Linux";
	auto pa = config::plan_cmdline(arch, {{"amdgpu.noretry", "1"}});
	REQUIRE(pa.refusal);
	CHECK(pa.refusal->find("GRUB on Arch Linux") == 0);
	CHECK(pa.refusal->find("then run update-grub") != std::string::npos);
}

TEST_CASE("removing amdgpu.noretry=0 on RDNA1 with kernel 6.1 keeps 0: the note says so and suggests =1",
	  "[bootloader][defaults]")
{
	auto s = test::root_snapshot("debian-grub");
	test::add_amd_gpu(s, "0000:03:00.0", "10.1.10");
	// The default boot kernel is the newest installed, 6.12.57+deb13: still 0 for RDNA1.
	auto p = config::plan_cmdline(s, {{"amdgpu.noretry", std::nullopt}});
	REQUIRE_FALSE(p.refusal);
	CHECK(has_note(p, "removing amdgpu.noretry=0 from the kernel command line: on kernel 6.12.57+deb13-amd64 "
			  "(the default boot kernel)"));
	CHECK(has_note(p, "0000:03:00.0 (GC 10.1.10): amdgpu.noretry defaults to -1 (auto), which gives 0 here"));
	CHECK(has_note(p, "the same value as now, so removing it changes nothing here; to turn retry faults off, "
			  "set amdgpu.noretry=1 instead"));
	// An RDNA2 GPU gets 1 by default on that kernel: no such advice.
	auto r2 = test::root_snapshot("debian-grub");
	test::add_amd_gpu(r2, "0000:0b:00.0", "10.3.0");
	auto p2 = config::plan_cmdline(r2, {{"amdgpu.noretry", std::nullopt}});
	CHECK(has_note(p2, "which gives 1 here"));
	CHECK_FALSE(has_note(p2, "changes nothing"));
}

TEST_CASE("removing a parameter that a modprobe.d file also sets: that value applies", "[bootloader][defaults]")
{
	auto s = test::root_snapshot("debian-grub");
	machine::ModprobeSource m;
	m.path = "etc/modprobe.d/amdgpu.conf";
	m.config = core::parse_modprobe_conf("options amdgpu noretry=1\n", "/etc/modprobe.d/amdgpu.conf");
	s.boot.modprobe.push_back(m);
	auto p = config::plan_cmdline(s, {{"amdgpu.noretry", std::nullopt}});
	CHECK(has_note(p, "amdgpu.noretry then comes from /etc/modprobe.d/amdgpu.conf line 1: amdgpu.noretry=1"));
}
