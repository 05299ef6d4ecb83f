// apply_changes() on temporary roots with the test planners: the files and
// the journal it writes, nothing written on any invalid input, dry runs,
// foreign lines, conflicts, --no-initramfs, failed commands rolled back,
// immutable systems, and --root never touching the host's files.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support.hpp"

#include "rdnafix_policy.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix;
using config::ModuleChange;
using test::TempRoot;

namespace {

const std::vector<ModuleChange> kIssueExample = {
	{"rdnafix", "noretry", "1"}, {"rdnafix", "targets", "rdna1,rdna2"}, {"rdnafix", "mtype_sysmem", "nc"}};

const char *kExampleFile = "# Managed by rdnactl (rdnafix). Edit with 'rdnactl config'.\n"
			   "# 'rdnactl config undo' restores the previous version.\n"
			   "options rdnafix noretry=1 mtype_sysmem=nc targets=rdna1,rdna2\n"
			   "softdep amdgpu pre: rdnafix\n";

} // namespace

TEST_CASE("apply: the issue's example writes the owned file, the generator file, runs the command, journals")
{
	TempRoot t;
	test::TestPlanners tp;
	auto r = test::apply(test::options(t.root()), kIssueExample, {}, test::planners(t.root(), tp));
	INFO(r.out << r.err);
	REQUIRE(r.rc == 0);
	CHECK(t.read("etc/modprobe.d/rdnafix.conf") == kExampleFile);
	CHECK(t.mode("etc/modprobe.d/rdnafix.conf") == 0644);
	CHECK(t.mode("etc/initramfs-tools/hooks/rdnafix") == 0755);
	CHECK(t.read("boot/initrd.img-test") == kExampleFile); // the command ran after the file was written
	CHECK(t.exists("var/lib/rdnafix/config/journal/000001/manifest.json"));
	auto m = nlohmann::json::parse(t.read("var/lib/rdnafix/config/journal/000001/manifest.json"));
	CHECK(m["invocation"] == "rdnactl config set (test)");
	REQUIRE(m["files"].size() == 2);
	CHECK(m["files"][0]["path"] == "etc/modprobe.d/rdnafix.conf");
	CHECK(m["files"][0]["previous"] == "absent");
	CHECK(m["commands"][0]["kind"] == "initramfs");
	CHECK_THAT(r.out, ContainsSubstring("+options rdnafix noretry=1 mtype_sysmem=nc targets=rdna1,rdna2"));
	CHECK_THAT(r.out, ContainsSubstring("Saved as transaction 000001"));
	CHECK_THAT(r.out, ContainsSubstring("reboot"));
	CHECK(tp.initramfs_calls == 1);

	// The same again: nothing to do, no new transaction, no command.
	auto again = test::apply(test::options(t.root()), kIssueExample, {}, test::planners(t.root(), tp));
	CHECK(again.rc == 0);
	CHECK_THAT(again.out, ContainsSubstring("Nothing to do"));
	CHECK_FALSE(t.exists("var/lib/rdnafix/config/journal/000002"));
}

TEST_CASE("apply: every invalid value is refused with the policy's message and nothing is written")
{
	TempRoot t;
	t.ram(16);
	t.write("etc/modprobe.d/rdnafix.conf", "options rdnafix noretry=0\n");
	const auto before = t.tree();
	struct Case {
		ModuleChange change;
		std::string message;
	};
	const Case cases[] = {
		{{"rdnafix", "noretry", "2"}, RDNAFIX_VALID_NORETRY},
		{{"rdnafix", "vm_fragment_size", "12"}, RDNAFIX_VALID_FRAGMENT},
		{{"rdnafix", "mtype_vram", "fast"}, RDNAFIX_VALID_MTYPE},
		{{"rdnafix", "targets", "navi10"}, RDNAFIX_VALID_TARGETS},
		{{"rdnafix", "exclude", "rdna1,"}, RDNAFIX_VALID_EXCLUDE},
		{{"rdnafix", "dry_run", "true"}, RDNAFIX_VALID_BOOL},
		{{"amdgpu", "noretry", "3"}, "amdgpu.noretry"},
		{{"amdgpu", "lockup_timeout", "a,b"}, "amdgpu.lockup_timeout"},
		{{"ttm", "pages_limit", std::to_string((15ull << 30) / 4096)}, "more than this machine allows"},
		{{"amdgpu", "ppfeaturemask", "1"}, "not a key rdnactl config manages"},
	};
	for (const auto &c : cases) {
		CAPTURE(c.change.module, c.change.name, *c.change.value);
		test::TestPlanners tp;
		// A valid change next to it is not written either.
		auto r = test::apply(test::options(t.root()), {{"rdnafix", "strict", "1"}, c.change}, {},
				     test::planners(t.root(), tp));
		CHECK(r.rc == 2);
		CHECK_THAT(r.err, ContainsSubstring(c.message));
		CHECK_THAT(r.err, ContainsSubstring("'" + *c.change.value + "'") || ContainsSubstring(c.change.name));
		CHECK(tp.initramfs_calls == 0);
		CHECK(t.tree() == before);
	}
	// An invalid kernel parameter: the same.
	test::TestPlanners tp;
	auto r = test::apply(test::options(t.root()), {}, {{"amdgpu.noretry", "on"}}, test::planners(t.root(), tp));
	CHECK(r.rc == 2);
	CHECK(t.tree() == before);
}

TEST_CASE("apply: --dry-run prints the diff and the commands and writes nothing")
{
	TempRoot t;
	t.write("etc/modprobe.d/rdnafix.conf", kExampleFile);
	const auto before = t.tree();
	test::TestPlanners tp;
	auto o = test::options(t.root());
	o.dry_run = true;
	o.require_root = true; // a dry run works as any user
	auto r = test::apply(o, {{"rdnafix", "noretry", "0"}, {"amdgpu", "vm_fragment_size", "9"}}, {},
			     test::planners(t.root(), tp));
	INFO(r.out << r.err);
	CHECK(r.rc == 0);
	CHECK_THAT(r.out, ContainsSubstring("Dry run"));
	CHECK_THAT(r.out, ContainsSubstring("--- a/etc/modprobe.d/rdnafix.conf\n+++ b/etc/modprobe.d/rdnafix.conf\n"));
	CHECK_THAT(r.out, ContainsSubstring("-options rdnafix noretry=1 mtype_sysmem=nc targets=rdna1,rdna2\n"
					    "+options rdnafix noretry=0 mtype_sysmem=nc targets=rdna1,rdna2\n"
					    "+options amdgpu vm_fragment_size=9\n"));
	CHECK_THAT(r.out, ContainsSubstring("+++ b/etc/initramfs-tools/hooks/rdnafix"));
	CHECK_THAT(r.out, ContainsSubstring("would run: sh -c"));
	CHECK(t.tree() == before);

	o.json = true;
	auto j = test::apply(o, {{"rdnafix", "noretry", "0"}}, {}, test::planners(t.root(), tp));
	auto doc = nlohmann::json::parse(j.out);
	CHECK(doc["dry_run"] == true);
	CHECK(doc["files"][0]["path"] == "etc/modprobe.d/rdnafix.conf");
	CHECK(doc["files"][0]["done"] == false);
	CHECK(doc["commands"][0]["state"] == "planned");
	CHECK(t.tree() == before);
}

TEST_CASE("apply: not root without --dry-run is refused with the reason, nothing written")
{
	TempRoot t;
	test::TestPlanners tp;
	auto o = test::options(t.root());
	o.require_root = true;
	// As root (make test), the refusal is checked in a child that gave up root
	// for nobody's uid: a skip here would leave the check unrun in CI.
	auto check_unprivileged = [&] {
		auto r = test::apply(o, kIssueExample, {}, test::planners(t.root(), tp));
		return r.rc == 2 && r.err.find("needs root") != std::string::npos;
	};
	if (::geteuid() == 0) {
		pid_t pid = ::fork();
		REQUIRE(pid >= 0);
		if (pid == 0) {
			if (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)
				::_exit(3);
			::_exit(check_unprivileged() ? 0 : 1);
		}
		int st = 0;
		REQUIRE(::waitpid(pid, &st, 0) == pid);
		CHECK(WIFEXITED(st));
		CHECK(WEXITSTATUS(st) == 0);
	} else {
		auto r = test::apply(o, kIssueExample, {}, test::planners(t.root(), tp));
		CHECK(r.rc == 2);
		CHECK_THAT(r.err, ContainsSubstring("needs root"));
	}
	CHECK_FALSE(t.exists("etc/modprobe.d/rdnafix.conf"));
}

TEST_CASE("apply: a hand-edited owned file with foreign lines is refused and left alone; comments are dropped")
{
	TempRoot t;
	t.write("etc/modprobe.d/rdnafix.conf", "options rdnafix noretry=1\nblacklist radeon\n");
	auto before = t.tree();
	test::TestPlanners tp;
	auto r = test::apply(test::options(t.root()), {{"rdnafix", "strict", "1"}}, {}, test::planners(t.root(), tp));
	CHECK(r.rc == 2);
	CHECK_THAT(r.err, ContainsSubstring("etc/modprobe.d/rdnafix.conf:2: 'blacklist radeon' was not written by "
					    "rdnactl"));
	CHECK(t.tree() == before);

	// An invalid value a hand edit left behind is refused unless this change replaces it.
	t.write("etc/modprobe.d/rdnafix.conf", "options rdnafix noretry=7\n");
	before = t.tree();
	r = test::apply(test::options(t.root()), {{"rdnafix", "strict", "1"}}, {}, test::planners(t.root(), tp));
	CHECK(r.rc == 2);
	CHECK_THAT(r.err, ContainsSubstring("invalid value '7' for rdnafix.noretry"));
	CHECK(t.tree() == before);
	r = test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, test::planners(t.root(), tp));
	CHECK(r.rc == 0);

	t.write("etc/modprobe.d/rdnafix.conf", "# from the example\nsoftdep amdgpu pre: rdnafix\n");
	r = test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, test::planners(t.root(), tp));
	CHECK(r.rc == 0);
	CHECK_THAT(r.out, ContainsSubstring("comments of the hand-edited"));
	CHECK(t.read("etc/modprobe.d/rdnafix.conf").find("# from the example") == std::string::npos);
}

TEST_CASE("apply: unsetting the last key deletes the owned file and the generator file")
{
	TempRoot t;
	test::TestPlanners tp;
	REQUIRE(test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}, {"amdgpu", "noretry", "1"}}, {},
			    test::planners(t.root(), tp))
			.rc == 0);
	auto r = test::apply(test::options(t.root()), {{"rdnafix", "noretry", std::nullopt}}, {},
			     test::planners(t.root(), tp));
	REQUIRE(r.rc == 0);
	CHECK(t.read("etc/modprobe.d/rdnafix.conf").find("softdep") == std::string::npos);
	CHECK_FALSE(t.exists("etc/initramfs-tools/hooks/rdnafix"));
	r = test::apply(test::options(t.root()), {{"amdgpu", "noretry", std::nullopt}}, {},
			test::planners(t.root(), tp));
	REQUIRE(r.rc == 0);
	CHECK_FALSE(t.exists("etc/modprobe.d/rdnafix.conf"));
	CHECK_THAT(r.out, ContainsSubstring("deleted"));
	CHECK(t.read("boot/initrd.img-test").empty());
}

TEST_CASE("apply: a conflict that remains exits 1 and says which value the next boot uses")
{
	TempRoot t;
	t.write("etc/modprobe.d/zz-local.conf", "options amdgpu noretry=0\n");
	t.write("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet amdgpu.vm_fragment_size=4\"\n");
	t.write("usr/sbin/update-grub", "", 0755);
	test::TestPlanners tp;
	auto r = test::apply(test::options(t.root()), {{"amdgpu", "noretry", "1"}, {"amdgpu", "vm_fragment_size", "9"}},
			     {}, test::planners(t.root(), tp));
	INFO(r.out << r.err);
	CHECK(r.rc == 1);
	CHECK_THAT(r.out, ContainsSubstring("conflict: amdgpu.noretry: etc/modprobe.d/zz-local.conf:1 sets "
					    "amdgpu.noretry=0 and is read after etc/modprobe.d/rdnafix.conf"));
	CHECK_THAT(r.out, ContainsSubstring("conflict: amdgpu.vm_fragment_size: the kernel command line of the next "
					    "boot (etc/default/grub:1)"));
	CHECK(t.exists("etc/modprobe.d/rdnafix.conf")); // written: the conflict is reported, not hidden

	// Changing the command line in the same invocation resolves that one.
	auto c = test::apply(test::options(t.root()), {}, {{"amdgpu.vm_fragment_size", "9"}},
			     test::planners(t.root(), tp));
	INFO(c.out << c.err);
	CHECK(t.read("etc/default/grub.d/rdnafix.cfg") == "# rdnactl test drop-in\namdgpu.vm_fragment_size=9\n");
	CHECK_THAT(c.out, ContainsSubstring("ran: true"));
}

TEST_CASE("apply: --no-initramfs writes the files, skips the generator, says what is stale, exits 1")
{
	TempRoot t;
	test::TestPlanners tp;
	auto o = test::options(t.root());
	o.no_initramfs = true;
	auto r = test::apply(o, kIssueExample, {}, test::planners(t.root(), tp));
	CHECK(r.rc == 1);
	CHECK(t.read("etc/modprobe.d/rdnafix.conf") == kExampleFile);
	CHECK_FALSE(t.exists("boot/initrd.img-test"));
	CHECK_THAT(r.out, ContainsSubstring("skipped (--no-initramfs)"));
	CHECK_THAT(r.out, ContainsSubstring("the initramfs is now stale"));
}

TEST_CASE("apply: a failed command rolls every file back, re-runs what had run, and shows the output")
{
	TempRoot t;
	t.write("etc/modprobe.d/rdnafix.conf", kExampleFile);
	t.write("boot/initrd.img-test", kExampleFile);
	const auto before = t.tree();
	test::TestPlanners tp;
	tp.fail_initramfs = true;
	auto r = test::apply(test::options(t.root()), {{"rdnafix", "noretry", "0"}}, {}, test::planners(t.root(), tp));
	CHECK(r.rc == 3);
	CHECK_THAT(r.err, ContainsSubstring("failed (exit 4)"));
	CHECK_THAT(r.err, ContainsSubstring("boom"));
	CHECK_THAT(r.err, ContainsSubstring("every file was put back"));
	CHECK_THAT(r.out, ContainsSubstring("ran again after the roll-back"));
	auto after = t.tree();
	// The journal directory and the lock remain; every other file is as before.
	for (auto it = after.begin(); it != after.end();)
		it = it->first.rfind("var", 0) == 0 ? after.erase(it) : std::next(it);
	CHECK(after == before);
	CHECK(t.read("boot/initrd.img-test") == kExampleFile); // regenerated from the restored file
	CHECK(test::undo(test::options(t.root())).out.find("nothing to undo") != std::string::npos);
}

TEST_CASE("apply: the owned file changed by another program while planning: nothing is changed, exit 3")
{
	TempRoot t;
	test::TestPlanners tp;
	tp.edit_while_planning = true;
	auto r = test::apply(test::options(t.root()), kIssueExample, {}, test::planners(t.root(), tp));
	CHECK(r.rc == 3);
	CHECK_THAT(r.err, ContainsSubstring("changed while rdnactl was planning"));
	CHECK(t.read("etc/modprobe.d/rdnafix.conf") == "options rdnafix noretry=-1\n");
	CHECK_FALSE(t.exists("etc/initramfs-tools/hooks/rdnafix"));
	CHECK_FALSE(t.exists("var/lib/rdnafix/config/journal/000001"));
}

TEST_CASE("apply: an immutable system gets the native way and nothing is written")
{
	TempRoot t;
	const auto before = t.tree();
	test::TestPlanners tp;
	tp.native = "NixOS: put this into boot.extraModprobeConfig:";
	auto r = test::apply(test::options(t.root()), kIssueExample, {}, test::planners(t.root(), tp));
	CHECK(r.rc == 2);
	CHECK_THAT(r.out, ContainsSubstring("boot.extraModprobeConfig"));
	CHECK_THAT(r.out, ContainsSubstring("options rdnafix noretry=1 mtype_sysmem=nc targets=rdna1,rdna2"));
	CHECK(t.tree() == before);
}

TEST_CASE("apply: --root DIR writes below DIR only, never to the host's /etc or /var/lib")
{
	namespace fs = std::filesystem;
	auto listing = [](const std::string &dir) {
		std::map<std::string, long long> out;
		std::error_code ec;
		for (const auto &e : fs::directory_iterator(dir, ec)) {
			struct stat st {};
			::lstat(e.path().c_str(), &st);
			out[e.path().string()] = st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec;
		}
		return out;
	};
	// /var/lib: only what is rdnafix's (other entries there change under a
	// parallel make test: apt, dkms)
	auto ours = [&](const std::string &dir) {
		std::map<std::string, long long> out;
		for (auto &[name, mtime] : listing(dir))
			if (fs::path(name).filename().string().rfind("rdnafix", 0) == 0)
				out[name] = mtime;
		return out;
	};
	const auto etc = listing("/etc/modprobe.d"), lib = ours("/var/lib"), state = listing("/var/lib/rdnafix");
	struct stat before_etc {};
	::stat("/etc/modprobe.d", &before_etc);
	const bool had_state = fs::exists("/var/lib/rdnafix/config");

	TempRoot t; // a fresh root: only etc/modprobe.d and boot exist
	test::TestPlanners tp;
	auto r = test::apply(test::options(t.root()), kIssueExample, {}, test::planners(t.root(), tp));
	REQUIRE(r.rc == 0);
	REQUIRE(test::undo(test::options(t.root())).rc == 0);

	CHECK(listing("/etc/modprobe.d") == etc);
	CHECK(ours("/var/lib") == lib);
	CHECK(listing("/var/lib/rdnafix") == state);
	struct stat after_etc {};
	::stat("/etc/modprobe.d", &after_etc);
	CHECK(after_etc.st_mtim.tv_nsec == before_etc.st_mtim.tv_nsec);
	CHECK(after_etc.st_mtim.tv_sec == before_etc.st_mtim.tv_sec);
	CHECK(fs::exists("/var/lib/rdnafix/config") == had_state);
	// Everything it wrote is below the root.
	CHECK(t.exists("var/lib/rdnafix/config/lock"));
	for (const auto &e : fs::directory_iterator(t.outer()))
		CHECK(e.path().filename() == "root");
}
