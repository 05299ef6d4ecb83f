// `rdnactl fix` as a program, on a captured RX 5600 XT (Linux 6.14, forum
// command line amdgpu.noretry=0) given Debian's GRUB configuration: the
// RDNA1 noretry finding becomes a GRUB drop-in and update-grub; a generator
// that cannot run rolls everything back.
#include <catch2/catch_test_macros.hpp>

#include "support.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>

using rdnafix::test::run_rdnactl;
using rdnafix::test::TempDir;
namespace fs = std::filesystem;

namespace {

// The captured machine plus the boot-loader files of the Debian GRUB root.
void make_root(const fs::path &root)
{
	fs::copy(fs::path(RDNAFIX_FIXTURES) / "rx5600xt-k614/root", root,
		 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
	const fs::path grub = fs::path(RDNAFIX_CONFIG_ROOTS) / "debian-grub";
	for (const char *f : {"etc/default/grub", "usr/sbin/update-grub", "usr/sbin/grub-mkconfig"}) {
		fs::create_directories((root / f).parent_path());
		fs::copy_file(grub / f, root / f);
	}
}

} // namespace

TEST_CASE("fix --dry-run: the RDNA1 noretry finding becomes a GRUB drop-in and update-grub", "[fix][cli]")
{
	TempDir t;
	make_root(t.path());
	auto r = run_rdnactl({"fix", "--dry-run", "--json", "--root", t.path().string()});
	INFO(r.out << r.err);
	CHECK(r.exit_code == 1); // something is left for the user (instructions)
	auto doc = nlohmann::json::parse(r.out);
	CHECK(doc["applied_findings"] == nlohmann::json::array({"RDNA-DRV-003"}));
	const auto &bc = doc["boot_configuration"];
	CHECK(bc["dry_run"] == true);
	REQUIRE(bc["files"].size() == 1);
	CHECK(bc["files"][0]["path"] == "etc/default/grub.d/rdnafix.cfg");
	const std::string diff = bc["files"][0]["diff"];
	CHECK(diff.find("+rdnafix_param 'amdgpu.noretry' 'amdgpu.noretry=1'") != std::string::npos);
	REQUIRE(bc["commands"].size() == 1);
	CHECK(bc["commands"][0]["argv"] == nlohmann::json::array({"update-grub"}));
	CHECK(bc["commands"][0]["state"] == "planned");
	bool gfx_instruction = false;
	for (const auto &in : doc["instructions"])
		gfx_instruction |= in["check"] == "RDNA-GPU-002";
	CHECK(gfx_instruction);
	CHECK_FALSE(fs::exists(t.path() / "etc/default/grub.d"));
	CHECK_FALSE(fs::exists(t.path() / "var/lib/rdnafix"));
}

TEST_CASE("fix: an update-grub that cannot run rolls the drop-in back (exit 3)", "[fix][cli]")
{
	if (geteuid() != 0)
		SKIP("needs root (chroot)");
	TempDir t;
	make_root(t.path());
	// The root has no shell, so `chroot ROOT update-grub` fails like a broken generator.
	auto r = run_rdnactl({"fix", "--root", t.path().string()});
	INFO(r.out << r.err);
	CHECK(r.exit_code == 3);
	CHECK(r.out.find("update-grub") != std::string::npos);
	CHECK_FALSE(fs::exists(t.path() / "etc/default/grub.d/rdnafix.cfg"));
}

TEST_CASE("fix as any user: --dry-run works, a real run is refused with exit 2", "[fix][cli]")
{
	auto nobody = rdnafix::test::drop_root_prefix();
	if (nobody.empty())
		SKIP("needs root and setpriv to run as nobody");
	TempDir t;
	make_root(t.path());
	fs::permissions(t.path(), fs::perms::others_read | fs::perms::others_exec, fs::perm_options::add);
	auto dry = run_rdnactl({"fix", "--dry-run", "--root", t.path().string()}, {}, nobody);
	INFO(dry.out << dry.err);
	CHECK(dry.exit_code == 1);
	CHECK(dry.out.find("Dry run") != std::string::npos);
	auto real = run_rdnactl({"fix", "--root", t.path().string()}, {}, nobody);
	INFO(real.out << real.err);
	CHECK(real.exit_code == 2);
	CHECK(real.err.find("root") != std::string::npos);
	CHECK_FALSE(fs::exists(t.path() / "etc/default/grub.d"));
}
