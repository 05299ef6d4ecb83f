// native_way: nothing on a normal system; on NixOS, SteamOS and rpm-ostree
// the exact native instructions (full text), including what is not possible.
#include "config/bootloader.hpp"
#include "config/immutable.hpp"

#include "roots.hpp"

#include <catch2/catch_test_macros.hpp>

#include <string>
#include <vector>

using namespace rdnafix;

namespace {

const std::vector<std::string> kLines = {"options rdnafix noretry=1 targets=rdna1,rdna2",
					 "softdep amdgpu pre: rdnafix"};

} // namespace

TEST_CASE("native_way: a normal system has none", "[immutable]")
{
	for (const char *root : {"debian-grub", "fedora-grubby", "arch-sdboot", "popos-kernelstub"}) {
		auto s = test::root_snapshot(root);
		CHECK_FALSE(config::native_way(s, kLines, {{"amdgpu.noretry", "1"}}));
	}
}

TEST_CASE("native_way: NixOS", "[immutable]")
{
	auto s = test::root_snapshot("nixos");
	REQUIRE(s.boot.immutable == machine::ImmutableKind::nixos);
	auto t = config::native_way(s, kLines, {{"amdgpu.noretry", "1"}});
	REQUIRE(t);
	CHECK(*t ==
	      "NixOS builds /etc/modprobe.d and the boot entries from its configuration (/etc/NIXOS): rdnactl writes "
	      "nothing here. Put this into /etc/nixos/configuration.nix (or a module of your flake), then run 'sudo "
	      "nixos-rebuild boot' and reboot:\n"
	      "\n"
	      "  boot.extraModprobeConfig = ''\n"
	      "    options rdnafix noretry=1 targets=rdna1,rdna2\n"
	      "    softdep amdgpu pre: rdnafix\n"
	      "  '';\n"
	      "  boot.kernelParams = [ \"amdgpu.noretry=1\" ];\n"
	      "\n"
	      "Remove every other \"amdgpu.noretry=...\" word from boot.kernelParams where your configuration sets it: "
	      "NixOS joins the lists of all modules and has no option that deletes a word.\n"
	      "rdnafix is an out-of-tree module: NixOS loads it only when it is built for the configured kernel and "
	      "listed in boot.extraModulePackages (a derivation that builds kmod/ against "
	      "config.boot.kernelPackages.kernel.dev; rdnactl does not write it). If amdgpu is in "
	      "boot.initrd.kernelModules, add \"rdnafix\" there too, and give rdnafix's options as boot.kernelParams "
	      "words (rdnafix.noretry=1 ...), which reach the module wherever it loads from.\n");
	// plan_cmdline refuses with the same instructions.
	auto p = config::plan_cmdline(s, {{"amdgpu.noretry", "1"}});
	REQUIRE(p.refusal);
	CHECK(p.refusal->find("boot.kernelParams = [ \"amdgpu.noretry=1\" ];") != std::string::npos);
	CHECK(p.files.empty());
	CHECK(p.commands.empty());
}

TEST_CASE("native_way: SteamOS", "[immutable]")
{
	auto s = test::root_snapshot("steamos");
	REQUIRE(s.boot.immutable == machine::ImmutableKind::steamos);
	auto t = config::native_way(s, kLines, {{"amdgpu.gttsize", std::nullopt}, {"ttm.pages_limit", "3145728"}});
	REQUIRE(t);
	CHECK(*t ==
	      "SteamOS (/etc/os-release) runs from a read-only image that each update replaces whole: rdnactl "
	      "writes nothing here.\n"
	      "Not possible to keep: the rdnafix module. It must be built against the running kernel, and SteamOS "
	      "ships neither its headers nor DKMS; 'steamos-readonly disable' lets pacman install them, but the "
	      "next SteamOS update replaces the root file system and drops them and the built module.\n"
	      "Module options (/etc/modprobe.d): these lines would go into /etc/modprobe.d/rdnafix.conf:\n"
	      "  options rdnafix noretry=1 targets=rdna1,rdna2\n"
	      "  softdep amdgpu pre: rdnafix\n"
	      "but amdgpu loads from the image's own initramfs, which rdnactl cannot rebuild here, so amdgpu "
	      "options there may not apply; kernel command-line words do.\n"
	      "Kernel command line: change GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub (remove "
	      "amdgpu.gttsize=8128) (add ttm.pages_limit=3145728) and run 'sudo update-grub'; a SteamOS update may "
	      "regenerate the boot configuration, so check /proc/cmdline after each update.\n");
}

TEST_CASE("native_way: Fedora Silverblue (rpm-ostree)", "[immutable]")
{
	auto s = test::root_snapshot("silverblue");
	REQUIRE(s.boot.immutable == machine::ImmutableKind::ostree);
	auto t = config::native_way(s, kLines, {{"amdgpu.noretry", "1"}, {"amdgpu.vm_fragment_size", std::nullopt}});
	REQUIRE(t);
	CHECK(*t ==
	      "This is an rpm-ostree/ostree system (/run/ostree-booted): /usr and the boot entries belong to the "
	      "deployed image, so rdnactl writes nothing here. The native way:\n"
	      "Kernel arguments (native, applied to a new deployment at the next boot):\n"
	      "  sudo rpm-ostree kargs --delete=amdgpu.noretry=0 --append=amdgpu.noretry=1\n"
	      "Module options (native: /etc is writable here and carried into every new deployment):\n"
	      "  sudo tee /etc/modprobe.d/rdnafix.conf <<'EOF'\n"
	      "  options rdnafix noretry=1 targets=rdna1,rdna2\n"
	      "  softdep amdgpu pre: rdnafix\n"
	      "  EOF\n"
	      "  sudo rpm-ostree initramfs-etc --track=/etc/modprobe.d/rdnafix.conf\n"
	      "The second command adds the file to the initramfs, where amdgpu loads from; without it the options "
	      "reach only modules loaded later from the root file system.\n"
	      "Not native: the rdnafix module. /usr is read-only, so DKMS cannot install it; it needs a kmod "
	      "package layered with 'rpm-ostree install' and rebuilt for every new kernel (as akmods does), which "
	      "rdnactl does not provide.\n");
	// Only the command line, already as wanted.
	auto same = config::native_way(s, {}, {{"amdgpu.noretry", "0"}});
	REQUIRE(same);
	CHECK(same->find("Kernel arguments: already as configured") != std::string::npos);
	CHECK(same->find("rdnafix module") == std::string::npos);
}
