// apply_changes() with the real boot plans (default_planners()) on the
// fixture roots of tests/unit/config/roots: a dry run on Debian with GRUB and
// initramfs-tools, a written transaction and its undo on a copy of a root
// without a generator, and NixOS's refusal.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support.hpp"

#include <filesystem>
#include <sstream>

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix;

namespace {

const std::string kRoots = std::string(RDNAFIX_TOP) + "/tests/unit/config/roots/";

test::Run real(const config::ApplyOptions &o, const std::vector<config::ModuleChange> &mods,
	       const std::vector<config::CmdlineChange> &cmdline)
{
	return test::apply(o, mods, cmdline, config::default_planners());
}

} // namespace

TEST_CASE("apply with the boot plans: Debian, GRUB, initramfs-tools, dry run")
{
	auto o = test::options(kRoots + "debian-grub");
	o.dry_run = true;
	o.chroot_commands = true;
	auto r = real(o, {{"rdnafix", "noretry", "1"}}, {{"amdgpu.noretry", "1"}});
	INFO(r.out << r.err);
	CHECK(r.rc == 0);
	CHECK_THAT(r.out, ContainsSubstring("+++ b/etc/modprobe.d/rdnafix.conf"));
	CHECK_THAT(r.out, ContainsSubstring("+++ b/etc/initramfs-tools/hooks/rdnafix"));
	CHECK_THAT(r.out, ContainsSubstring("+++ b/etc/default/grub.d/rdnafix.cfg"));
	CHECK_THAT(r.out, ContainsSubstring("would run: chroot " + kRoots + "debian-grub update-initramfs -u -k "));
	CHECK_THAT(r.out, ContainsSubstring("would run: chroot " + kRoots + "debian-grub update-grub"));

	// Only the modprobe.d side: amdgpu.noretry=0 on GRUB's command line wins; said, exit 1.
	auto c = real(o, {{"amdgpu", "noretry", "1"}}, {});
	CHECK(c.rc == 1);
	CHECK_THAT(c.out, ContainsSubstring("conflict: amdgpu.noretry: the kernel command line of the next boot "
					    "(etc/default/grub:"));
}

TEST_CASE("apply with the boot plans: a root without a generator, written and undone")
{
	test::TempRoot t;
	std::filesystem::copy(kRoots + "debian-nogen", t.root(),
			      std::filesystem::copy_options::recursive |
				      std::filesystem::copy_options::overwrite_existing);
	const auto before = t.tree();
	auto o = test::options(t.root());
	auto r = real(o, {{"rdnafix", "noretry", "1"}, {"rdnafix", "targets", "rdna1,rdna2"}}, {});
	INFO(r.out << r.err);
	REQUIRE(r.rc == 0);
	CHECK_THAT(t.read("etc/modprobe.d/rdnafix.conf"), ContainsSubstring("options rdnafix noretry=1 targets=rdna1"));
	CHECK_THAT(r.out, ContainsSubstring("Saved as transaction 000001"));
	auto u = test::undo(o);
	REQUIRE(u.rc == 0);
	auto after = t.tree();
	for (auto it = after.begin(); it != after.end();)
		it = it->first.rfind("var", 0) == 0 ? after.erase(it) : std::next(it);
	CHECK(after == before);
}

TEST_CASE("apply with the boot plans: NixOS gets its native way, nothing written")
{
	test::TempRoot t;
	std::filesystem::copy(kRoots + "nixos", t.root(),
			      std::filesystem::copy_options::recursive |
				      std::filesystem::copy_options::overwrite_existing);
	const auto before = t.tree();
	auto r = real(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {});
	CHECK(r.rc == 2);
	CHECK_THAT(r.out, ContainsSubstring("boot.extraModprobeConfig"));
	CHECK_THAT(r.out, ContainsSubstring("options rdnafix noretry=1"));
	CHECK(t.tree() == before);
}
