// collect_modules: per installed kernel, the rdnafix module's version and the
// kernel it was built for (its .modinfo), the kernel image, DKMS's builds of
// rdnafix and the tail of the make.log of a kernel without rdnafix, on the
// layout of Debian 12 with DKMS (kbuild_tree.hpp); hostile names, links and
// files stay inside the root and cannot hang or crash the reader.
#include "machine/collect.hpp"

#include "kbuild_tree.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <sys/stat.h>

using namespace rdnafix::machine;
using namespace rdnafix::test;
using Catch::Matchers::ContainsSubstring;

namespace {

const InstalledKernel &kernel(const Snapshot &s, const std::string &rel)
{
	for (const auto &k : s.boot.kernels)
		if (k.release == rel)
			return k;
	FAIL("kernel " << rel << " not collected");
	throw 0;
}

} // namespace

TEST_CASE("collect_modules: a kernel with rdnafix built and one where DKMS failed", "[collect][kbuild]")
{
	Tree t;
	kbuild_tree(t);
	auto s = t.collect();
	REQUIRE(s.boot.kernels.size() == 2);
	CHECK(s.boot.dkms_versions == std::vector<std::string>{"0.1.0"});

	const auto &built = kernel(s, kBuiltRel);
	CHECK(built.image == std::string("boot/vmlinuz-") + kBuiltRel);
	REQUIRE(built.rdnafix_modules.size() == 1);
	const auto &m = built.rdnafix_modules[0];
	CHECK(m.version == "0.1.0");
	CHECK(m.built_for == kBuiltRel);
	CHECK(m.modinfo_error.empty());
	CHECK(m.signature == SignatureState::unsigned_module);
	REQUIRE(built.dkms.size() == 1);
	CHECK(built.dkms[0].version == "0.1.0");
	CHECK(built.dkms[0].arch == "x86_64");
	CHECK(built.dkms[0].module);
	CHECK(built.dkms[0].installed);
	CHECK_FALSE(built.dkms_log); // read only for a kernel without rdnafix

	const auto &fresh = kernel(s, kNewRel);
	CHECK(fresh.default_boot);
	CHECK(fresh.rdnafix_modules.empty());
	CHECK(fresh.dkms.empty());
	REQUIRE(fresh.dkms_log);
	CHECK(fresh.dkms_log->path == std::string(kDkms) + "/0.1.0/build/make.log");
	CHECK(fresh.dkms_log->failed);
	CHECK(fresh.dkms_log->version == "0.1.0");
	REQUIRE(fresh.dkms_log->tail.size() == kDkmsLogTailLines);
	CHECK_THAT(fresh.dkms_log->tail.back(), ContainsSubstring("Error 1"));
	CHECK_THAT(fresh.dkms_log->tail[kDkmsLogTailLines - 2], ContainsSubstring("linux/kprobes.h"));
}

TEST_CASE("collect_modules: the failed log of another kernel is not this kernel's", "[collect][kbuild]")
{
	Tree t;
	kbuild_tree(t);
	// dkms keeps one build/ per version: the last build's log names its kernel.
	t.write(std::string(kDkms) + "/0.1.0/build/make.log", make_log("6.12.99-amd64", 5, true));
	auto s = t.collect();
	CHECK_FALSE(kernel(s, kNewRel).dkms_log);
}

TEST_CASE("collect_modules: images, built-for and compressed modules", "[collect][kbuild]")
{
	Tree t;
	kbuild_tree(t);
	// Fedora keeps the image in lib/modules/<rel>/vmlinuz.
	t.write("lib/modules/6.12.5-200.fc41.x86_64/modules.dep", "");
	t.write("lib/modules/6.12.5-200.fc41.x86_64/vmlinuz", "image");
	// A module copied from another kernel: its vermagic names 6.1.
	t.write(std::string("lib/modules/") + kNewRel + "/extra/rdnafix.ko",
		modsig_sample("rdnafix-0.1.0-6.1.0-56-amd64.ko"));
	// A leftover module tree without an image (a removed kernel with modules.dep kept).
	t.write("lib/modules/6.1.0-10-amd64/modules.dep", "");
	t.write("lib/modules/6.1.0-10-amd64/updates/dkms/rdnafix.ko.xz",
		modsig_sample("tiny-unsigned-6.1.0-56-amd64.ko.xz"));
	auto s = t.collect();
	CHECK(kernel(s, "6.12.5-200.fc41.x86_64").image == "lib/modules/6.12.5-200.fc41.x86_64/vmlinuz");
	CHECK(kernel(s, "6.1.0-10-amd64").image.empty());
	const auto &xz = kernel(s, "6.1.0-10-amd64").rdnafix_modules.at(0);
	CHECK(xz.built_for == "6.1.0-56-amd64"); // through xz
	CHECK(xz.version.empty());               // tiny has no MODULE_VERSION
	const auto &copied = kernel(s, kNewRel).rdnafix_modules.at(0);
	CHECK(copied.built_for == kBuiltRel);
	CHECK_FALSE(kernel(s, kNewRel).dkms_log); // it has a module file: no log read
}

TEST_CASE("collect_modules: an empty or damaged module has an unknown version, with the reason", "[collect][kbuild]")
{
	Tree t;
	kbuild_tree(t);
	t.write(std::string("lib/modules/") + kNewRel + "/updates/dkms/rdnafix.ko", "");
	t.write(std::string("lib/modules/") + kNewRel + "/updates/rdnafix.ko.xz", "\xfd"
										  "7zXZ broken");
	auto s = t.collect();
	const auto &m = kernel(s, kNewRel).rdnafix_modules;
	REQUIRE(m.size() == 2);
	CHECK(m[0].version.empty());
	CHECK_FALSE(m[0].modinfo_error.empty());
	CHECK_THAT(m[1].modinfo_error, ContainsSubstring("xz"));
}

TEST_CASE("collect_modules: hostile DKMS trees stay inside the root", "[collect][kbuild][hostile]")
{
	Tree t;
	kbuild_tree(t);
	const std::string log = std::string(kDkms) + "/0.1.0/build/make.log";
	SECTION("the log is a FIFO: not read, no hang")
	{
		std::filesystem::remove(t.root() / log);
		REQUIRE(mkfifo((t.root() / log).c_str(), 0600) == 0);
		auto s = t.collect();
		CHECK_FALSE(kernel(s, kNewRel).dkms_log);
	}
	SECTION("the log is an absolute symlink: re-rooted, not the host's file")
	{
		std::filesystem::remove(t.root() / log);
		t.write("elsewhere/make.log", make_log(kNewRel, 2, true));
		std::filesystem::create_symlink("/elsewhere/make.log", t.root() / log);
		auto s = t.collect();
		REQUIRE(kernel(s, kNewRel).dkms_log);
		CHECK(kernel(s, kNewRel).dkms_log->tail.size() == 7); // the whole short log
	}
	SECTION("a huge log: only its end is read")
	{
		std::string big = make_log(kNewRel, 200000, true);
		REQUIRE(big.size() > (4u << 20));
		t.write(log, big);
		auto s = t.collect();
		REQUIRE(kernel(s, kNewRel).dkms_log);
		CHECK(kernel(s, kNewRel).dkms_log->tail.size() == kDkmsLogTailLines);
		CHECK_THAT(kernel(s, kNewRel).dkms_log->tail.back(), ContainsSubstring("Error 1"));
	}
	SECTION("odd names in the DKMS tree: a version that is a file, a link loop, control characters")
	{
		t.write(std::string(kDkms) + "/9.9.9", "not a directory");
		std::filesystem::create_symlink("loop", t.root() / kDkms / "loop");
		t.mkdir(std::string(kDkms) + "/1.0\x1b[31m/" + kNewRel + "/x86_64");
		auto s = t.collect();
		CHECK(s.boot.dkms_versions == std::vector<std::string>{"0.1.0", "1.0\x1b[31m"});
		REQUIRE(kernel(s, kNewRel).dkms.size() == 1);
		CHECK_FALSE(kernel(s, kNewRel).dkms[0].module);
	}
	SECTION("a log whose first line is not dkms's is not taken")
	{
		t.write(log, "random text\n" + make_log(kNewRel, 2, true));
		auto s = t.collect();
		CHECK_FALSE(kernel(s, kNewRel).dkms_log);
	}
}
