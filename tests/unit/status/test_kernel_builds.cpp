// The per-kernel build decision (status/kernel_builds.hpp) on the Debian 12 +
// DKMS layout of tests/unit/machine/kbuild_tree.hpp: RDNA-CFG-003 keeps the
// default boot kernel, RDNA-MOD-007 the other installed kernels; `rdnactl
// kernel-check` says built / not configured / missing with the DKMS make.log
// tail and the Secure Boot and signing state; the real binary's exit codes.
#include "kernel_builds.hpp"
#include "render.hpp"
#include "support.hpp"

#include "kbuild_tree.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>

using namespace rdnafix;
using namespace rdnafix::test;
using Catch::Matchers::ContainsSubstring;
using status::KernelVerdict;

namespace {

struct Checked {
	machine::Snapshot s;
	status::Assessment a;
	std::vector<status::Finding> findings;
};

Checked check(const Tree &t)
{
	Checked c{t.collect(), {}, {}};
	c.a = status::assess(c.s);
	c.findings = status::evaluate(c.s, c.a);
	return c;
}

std::vector<const status::Finding *> with_id(const Checked &c, const std::string &id)
{
	std::vector<const status::Finding *> out;
	for (const auto &f : c.findings)
		if (f.id == id)
			out.push_back(&f);
	return out;
}

// An older kernel, installed and bootable, without headers or rdnafix.
void old_kernel(const Tree &t)
{
	t.write("boot/vmlinuz-5.10.0-30-amd64", "image");
	t.write("lib/modules/5.10.0-30-amd64/modules.dep", "");
}

} // namespace

TEST_CASE("kernel builds: the new default kernel without rdnafix is RDNA-CFG-003, not MOD-007", "[kbuild]")
{
	Tree t;
	kbuild_tree(t);
	auto c = check(t);
	auto cfg = with_id(c, "RDNA-CFG-003");
	REQUIRE(cfg.size() == 1);
	CHECK(cfg[0]->subject == kNewRel);
	CHECK(with_id(c, "RDNA-MOD-007").empty());

	auto k = status::kernel_check(c.s, c.a, kNewRel);
	CHECK(k.verdict == KernelVerdict::missing);
	CHECK(status::exit_code_for(k) == 1);
	CHECK(k.configured_by == "/usr/lib/modprobe.d/rdnafix.conf:1 softdep amdgpu pre: rdnafix");
	CHECK_THAT(k.fix, ContainsSubstring(std::string("dkms autoinstall -k ") + kNewRel));
	CHECK_THAT(k.fix, ContainsSubstring("/var/lib/dkms/rdnafix/0.1.0/build/make.log"));

	const std::string banner = status::kernel_check_banner(c.s, k, "");
	CHECK_THAT(banner, ContainsSubstring(std::string("rdnafix is configured but NOT BUILT for kernel ") + kNewRel));
	CHECK_THAT(banner, ContainsSubstring(std::string("after a reboot into ") + kNewRel + " rdnafix will not load"));
	CHECK_THAT(banner, ContainsSubstring("DKMS's build of rdnafix 0.1.0 failed"));
	CHECK_THAT(banner, ContainsSubstring("last 20 lines of /var/lib/dkms/rdnafix/0.1.0/build/make.log:"));
	CHECK_THAT(banner, ContainsSubstring("rdnactl:   | make[2]: *** [scripts/Makefile.build:250: rdnafix_hooks.o] "
					     "Error 1"));
	CHECK(std::count(banner.begin(), banner.end(), '|') == 20);
	CHECK_THAT(banner, ContainsSubstring("Secure Boot: unknown"));
	CHECK_THAT(banner, ContainsSubstring("no DKMS signing key (/var/lib/dkms/mok.pub)"));
	CHECK_THAT(banner, ContainsSubstring(std::string("rdnafix of ") + kBuiltRel + ": unsigned"));
}

TEST_CASE("kernel builds: an older installed kernel without rdnafix is RDNA-MOD-007 (warn)", "[kbuild]")
{
	Tree t;
	kbuild_tree(t, true, NewKernel::built);
	old_kernel(t);
	auto c = check(t);
	auto mod = with_id(c, "RDNA-MOD-007");
	REQUIRE(mod.size() == 1);
	CHECK(mod[0]->subject == "5.10.0-30-amd64");
	CHECK(mod[0]->severity == status::Severity::warn);
	CHECK_THAT(mod[0]->finding, ContainsSubstring("after a reboot into 5.10.0-30-amd64 rdnafix will not load"));
	CHECK_THAT(mod[0]->finding, ContainsSubstring("no rdnafix.ko below /lib/modules/5.10.0-30-amd64"));
	CHECK_THAT(mod[0]->fix, ContainsSubstring("apt install linux-headers-5.10.0-30-amd64, then dkms autoinstall -k "
						  "5.10.0-30-amd64"));
	REQUIRE(mod[0]->remedies.size() == 1);
	const auto *pkg = std::get_if<core::InstallPackage>(&mod[0]->remedies[0]);
	REQUIRE(pkg);
	CHECK(pkg->name == "linux-headers-5.10.0-30-amd64");
}

TEST_CASE("kernel builds: a leftover module tree without an image is not a kernel to boot", "[kbuild]")
{
	Tree t;
	kbuild_tree(t);
	t.write("lib/modules/5.10.0-30-amd64/modules.dep", "");
	auto c = check(t);
	CHECK(with_id(c, "RDNA-MOD-007").empty());
}

TEST_CASE("kernel builds: not configured, nothing to report", "[kbuild]")
{
	Tree t;
	kbuild_tree(t, false);
	old_kernel(t);
	auto c = check(t);
	CHECK(with_id(c, "RDNA-MOD-007").empty());
	CHECK(with_id(c, "RDNA-CFG-003").empty());
	auto k = status::kernel_check(c.s, c.a, kNewRel);
	CHECK(k.verdict == KernelVerdict::not_configured);
	CHECK(status::exit_code_for(k) == 0);
	CHECK(status::kernel_check_banner(c.s, k, "").empty());
}

TEST_CASE("kernel builds: built, with the version from .modinfo", "[kbuild]")
{
	Tree t;
	kbuild_tree(t);
	auto c = check(t);
	auto k = status::kernel_check(c.s, c.a, kBuiltRel);
	CHECK(k.verdict == KernelVerdict::built);
	CHECK(status::exit_code_for(k) == 0);
	CHECK(status::kernel_check_line(k) == std::string("rdnafix 0.1.0 is built for ") + kBuiltRel +
						      ": /lib/modules/" + kBuiltRel +
						      "/updates/dkms/rdnafix.ko (unsigned)\n");
	CHECK(status::built_text(k.build) == "yes (0.1.0)");
	auto j = status::kernel_check_json(c.s, k);
	CHECK(j["verdict"] == "built");
	CHECK(j["module"]["version"] == "0.1.0");
	CHECK(j["module"]["built_for"] == kBuiltRel);
	CHECK(j["exit_code"] == 0);
	// The 6.12 build, installed compressed as DKMS does for a kernel with CONFIG_MODULE_COMPRESS_XZ.
	Tree t2;
	kbuild_tree(t2, true, NewKernel::built);
	auto c2 = check(t2);
	auto k2 = status::kernel_check(c2.s, c2.a, kNewRel);
	CHECK(k2.verdict == KernelVerdict::built);
	REQUIRE(k2.build.module);
	CHECK(k2.build.module->built_for == kNewRel);
	CHECK(k2.build.module->path == std::string("lib/modules/") + kNewRel + "/updates/dkms/rdnafix.ko.xz");
	CHECK(with_id(c2, "RDNA-CFG-003").empty());
	CHECK(with_id(c2, "RDNA-MOD-007").empty());
}

TEST_CASE("kernel builds: a module built for another kernel is not built", "[kbuild]")
{
	Tree t;
	kbuild_tree(t, true, NewKernel::copied); // the 6.1 module copied under the new kernel
	auto c = check(t);
	auto k = status::kernel_check(c.s, c.a, kNewRel);
	CHECK(k.verdict == KernelVerdict::missing);
	CHECK(status::missing_text(k.build) == std::string("/lib/modules/") + kNewRel +
						       "/updates/dkms/rdnafix.ko was built for " + kBuiltRel +
						       ", not for " + kNewRel);
	// RDNA-CFG-003 sees a file; MOD-007 says it is the wrong one.
	auto mod = with_id(c, "RDNA-MOD-007");
	REQUIRE(mod.size() == 1);
	CHECK(mod[0]->subject == kNewRel);
}

TEST_CASE("kernel builds: DKMS built it but did not install it", "[kbuild]")
{
	Tree t;
	kbuild_tree(t);
	t.write(std::string(kDkms) + "/0.1.0/" + kNewRel + "/x86_64/module/rdnafix.ko", "module");
	auto c = check(t);
	auto k = status::kernel_check(c.s, c.a, kNewRel);
	CHECK(k.verdict == KernelVerdict::missing);
	CHECK(k.fix == std::string("dkms install -m rdnafix -v 0.1.0 -k ") + kNewRel);
}

TEST_CASE("kernel builds: Secure Boot on and DKMS's key not enrolled are in the banner", "[kbuild]")
{
	Tree t;
	kbuild_tree(t);
	// efivarfs: 4 attribute bytes, then the value.
	t.write("sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e0e98cbc23e0",
		std::string("\x06\x00\x00\x00\x01", 5));
	t.write("var/lib/dkms/mok.pub", "certificate bytes");
	t.write("sys/firmware/efi/mok-variables/MokListRT", "other keys only");
	auto c = check(t);
	auto k = status::kernel_check(c.s, c.a, kNewRel);
	const std::string banner = status::kernel_check_banner(c.s, k, "SecureBoot enabled");
	CHECK_THAT(banner, ContainsSubstring("Secure Boot: on (mokutil --sb-state: SecureBoot enabled)"));
	CHECK_THAT(banner, ContainsSubstring("DKMS signs with /var/lib/dkms/mok.pub (NOT enrolled in MokListRT"));
	CHECK_THAT(banner, ContainsSubstring("kernel/module/signing.c"));
}

TEST_CASE("kernel builds: the log tail is made terminal-safe", "[kbuild][hostile]")
{
	Tree t;
	kbuild_tree(t);
	t.write(std::string(kDkms) + "/0.1.0/build/make.log",
		make_log(kNewRel, 1, true) + "evil \x1b]0;title\x07 \x1b[2J line\n");
	auto c = check(t);
	auto k = status::kernel_check(c.s, c.a, kNewRel);
	const std::string banner = status::kernel_check_banner(c.s, k, "");
	CHECK(banner.find('\x1b') == std::string::npos);
	CHECK(banner.find('\x07') == std::string::npos);
	CHECK_THAT(banner, ContainsSubstring("evil"));
}

TEST_CASE("kernel builds: status shows 'rdnafix built' per kernel, text and JSON", "[kbuild]")
{
	Tree t;
	kbuild_tree(t);
	auto c = check(t);
	auto j = status::configuration_json(c.s, c.a);
	REQUIRE(j["kernels"].size() == 2);
	CHECK(j["kernels"][0]["release"] == kBuiltRel);
	CHECK(j["kernels"][0]["rdnafix_built"] == true);
	CHECK(j["kernels"][0]["rdnafix_version"] == "0.1.0");
	CHECK(j["kernels"][1]["rdnafix_built"] == false);
	CHECK(j["kernels"][1]["dkms_log"]["failed"] == true);
	CHECK_THAT(j["kernels"][1]["rdnafix_dkms"].get<std::string>(), ContainsSubstring("failed"));
	std::string text;
	for (const auto &l : status::configuration_lines(c.s, c.a))
		text += l + "\n";
	CHECK_THAT(text, ContainsSubstring(std::string("kernel ") + kBuiltRel +
					   ", running, headers: rdnafix built: yes "
					   "(0.1.0) /lib/modules/"));
	CHECK_THAT(text, ContainsSubstring(std::string("kernel ") + kNewRel +
					   ", default, headers: rdnafix built: no "
					   "(no rdnafix.ko below /lib/modules/" +
					   kNewRel));
}

TEST_CASE("kernel builds: rdnactl kernel-check exit codes and output", "[kbuild][cli]")
{
	Tree t;
	kbuild_tree(t);
	const std::string root = t.root().string();
	auto missing = run_rdnactl({"kernel-check", "--root", root, kNewRel});
	CHECK(missing.exit_code == 1);
	CHECK_THAT(missing.out, ContainsSubstring("NOT built"));
	CHECK_THAT(missing.err, ContainsSubstring("Error 1"));
	auto built = run_rdnactl({"kernel-check", "--root", root, kBuiltRel});
	CHECK(built.exit_code == 0);
	CHECK(built.err.empty());
	auto json = run_rdnactl({"kernel-check", "--json", "--root", root, kNewRel});
	CHECK(json.exit_code == 1);
	auto j = nlohmann::json::parse(json.out);
	CHECK(j["verdict"] == "missing");
	CHECK(j["dkms_log"]["tail"].size() == 20);
	CHECK(json.err.empty());
	auto absent = run_rdnactl({"kernel-check", "--root", root, "9.9.9-none"});
	CHECK(absent.exit_code == 2);
	CHECK_THAT(absent.out, ContainsSubstring("kernel 9.9.9-none is not installed"));
	auto bad = run_rdnactl({"kernel-check", "--root", root, "--", "../../etc"});
	CHECK(bad.exit_code == 2);
	CHECK_THAT(bad.err, ContainsSubstring("is not a directory name"));
	auto none = run_rdnactl({"kernel-check", "--root", root});
	CHECK(none.exit_code == 2);
}

TEST_CASE("kernel builds: the running default kernel lost its module while rdnafix is loaded", "[kbuild]")
{
	// What `dkms remove rdnafix/0.1.0 -k $(uname -r)` leaves: rdnafix still loaded, no file.
	Tree t;
	kbuild_tree(t);
	t.write("proc/sys/kernel/osrelease", std::string(kNewRel) + "\n");
	t.write("proc/modules", "rdnafix 16384 0 - Live 0x0000000000000000\n");
	auto c = check(t);
	REQUIRE(c.s.rdnafix.loaded);
	auto cfg = with_id(c, "RDNA-CFG-003");
	REQUIRE(cfg.size() == 1);
	CHECK(cfg[0]->subject == kNewRel);
	CHECK_THAT(cfg[0]->finding, ContainsSubstring("default boot kernel"));
	CHECK(with_id(c, "RDNA-MOD-007").empty());
}
