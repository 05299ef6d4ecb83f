// Conflicts: another modprobe.d file read before or after the owned one, the
// boot loader's command line (next boot) and /proc/cmdline (this boot);
// which value the next boot uses and why.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "config/conflicts.hpp"
#include "core/parse.hpp"

#include <algorithm>

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix;
using config::ModuleChange;

namespace {

void add_file(machine::Snapshot &s, const std::string &path, const std::string &text)
{
	s.boot.modprobe.push_back({path, std::nullopt, core::parse_modprobe_conf(text, "/" + path)});
	std::sort(s.boot.modprobe.begin(), s.boot.modprobe.end(), [](const auto &a, const auto &b) {
		return a.path.substr(a.path.rfind('/')) < b.path.substr(b.path.rfind('/'));
	});
}

} // namespace

TEST_CASE("conflicts: a file read after the owned one wins; one read before is overridden")
{
	machine::Snapshot s;
	add_file(s, "etc/modprobe.d/amdgpu.conf", "options amdgpu noretry=0\n");
	add_file(s, "lib/modprobe.d/zz-vendor.conf", "options amdgpu vm_fragment_size=4\n");
	add_file(s, "etc/modprobe.d/rdnafix.conf", "options amdgpu noretry=0 vm_fragment_size=9\n");

	auto c = config::find_conflicts(s, {{"amdgpu", "noretry", "1"}, {"amdgpu", "vm_fragment_size", "9"}}, {}, {});
	REQUIRE(c.size() == 2);
	CHECK(c[0].key == "amdgpu.noretry");
	CHECK_FALSE(c[0].remains); // amdgpu.conf sorts before rdnafix.conf
	CHECK(c[0].next == "1");
	CHECK_THAT(c[0].why, ContainsSubstring("etc/modprobe.d/amdgpu.conf:1 sets amdgpu.noretry=0 too"));
	CHECK(c[1].key == "amdgpu.vm_fragment_size");
	CHECK(c[1].remains); // zz-vendor.conf sorts after it, whatever its directory
	CHECK(c[1].next == "4");
	CHECK(c[1].source == "lib/modprobe.d/zz-vendor.conf:1");
	CHECK_THAT(c[1].why, ContainsSubstring("after the reboot amdgpu.vm_fragment_size will be 4, not 9"));

	// Nobody else sets it: nothing to say.
	CHECK(config::find_conflicts(s, {{"rdnafix", "noretry", "1"}}, {}, {}).empty());
	// Unset in the owned file, still set elsewhere: the user is told it stays.
	auto u = config::find_conflicts(s, {}, {{"amdgpu", "vm_fragment_size", std::nullopt}}, {});
	REQUIRE(u.size() == 1);
	CHECK(u[0].remains);
	CHECK_THAT(u[0].why, ContainsSubstring("still sets amdgpu.vm_fragment_size=4"));
}

TEST_CASE("conflicts: the next boot's kernel command line wins over modprobe.d")
{
	machine::Snapshot s;
	s.boot.bootloader = machine::BootloaderKind::grub;
	s.boot.cmdline_vars.push_back({"etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT", 6,
				       "quiet amdgpu.noretry=0 amdgpu.vm_fragment_size=9", false, false});
	s.boot.cmdline_vars.push_back({"etc/default/grub", "GRUB_CMDLINE_LINUX", 9, "rdnafix.noretry=1", false, false});
	// A later plain assignment replaces the earlier one.
	s.boot.cmdline_vars.push_back({"etc/default/grub.d/x.cfg", "GRUB_CMDLINE_LINUX", 1, "", false, false});

	auto c = config::find_conflicts(s, {{"amdgpu", "noretry", "1"}, {"rdnafix", "noretry", "1"}}, {}, {});
	REQUIRE(c.size() == 1);
	CHECK(c[0].key == "amdgpu.noretry");
	CHECK(c[0].remains);
	CHECK(c[0].next == "0");
	CHECK(c[0].source == "etc/default/grub:6");
	CHECK_THAT(c[0].why, ContainsSubstring("wins over modprobe.d"));
	CHECK_THAT(c[0].why, ContainsSubstring("rdnactl config set --cmdline amdgpu.noretry="));

	// The same value: said, but not a conflict.
	auto same = config::find_conflicts(s, {{"amdgpu", "vm_fragment_size", "9"}}, {}, {});
	REQUIRE(same.size() == 1);
	CHECK_FALSE(same[0].remains);

	// This invocation changes the command line too: its value counts.
	auto fixed = config::find_conflicts(s, {{"amdgpu", "noretry", "1"}}, {}, {{"amdgpu.noretry", "1"}});
	REQUIRE(fixed.size() == 1);
	CHECK_FALSE(fixed[0].remains);
	CHECK(config::find_conflicts(s, {{"amdgpu", "noretry", "1"}}, {}, {{"amdgpu.noretry", std::nullopt}}).empty());

	// Appending assignments keep the earlier words.
	machine::Snapshot a;
	a.boot.bootloader = machine::BootloaderKind::grub;
	a.boot.cmdline_vars.push_back({"etc/default/grub", "GRUB_CMDLINE_LINUX", 3, "amdgpu.noretry=0", false, false});
	a.boot.cmdline_vars.push_back(
		{"etc/default/grub.d/y.cfg", "GRUB_CMDLINE_LINUX", 1, "$GRUB_CMDLINE_LINUX quiet", true, true});
	auto ap = config::find_conflicts(a, {{"amdgpu", "noretry", "1"}}, {}, {});
	REQUIRE(ap.size() == 1);
	CHECK(ap[0].next == "0");
	CHECK(ap[0].source == "etc/default/grub:3");
}

TEST_CASE("conflicts: this boot's command line no longer in the boot loader's configuration")
{
	machine::Snapshot s;
	s.driver.cmdline = "BOOT_IMAGE=/vmlinuz root=UUID=x amdgpu.noretry=0 quiet";
	add_file(s, "etc/modprobe.d/rdnafix.conf", "options amdgpu noretry=1\n");
	// The boot loader is unknown: the running command line is taken to stay, and it wins.
	auto unknown = config::find_conflicts(s, {{"amdgpu", "noretry", "1"}}, {}, {});
	REQUIRE(unknown.size() == 1);
	CHECK(unknown[0].remains);
	CHECK(unknown[0].next == "0");
	CHECK_THAT(unknown[0].source, ContainsSubstring("proc/cmdline"));
	// The boot loader's configuration is known and no longer has it.
	s.boot.bootloader = machine::BootloaderKind::grub;
	s.boot.cmdline_vars.push_back({"etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT", 6, "quiet", false, false});
	auto c = config::find_conflicts(s, {{"amdgpu", "noretry", "1"}}, {}, {});
	REQUIRE(c.size() == 1);
	CHECK_FALSE(c[0].remains);
	CHECK(c[0].source == "proc/cmdline");
	CHECK_THAT(c[0].why, ContainsSubstring("no longer has it"));
}
