// config undo: one transaction per call, back to exactly the previous files
// (content and mode), commands re-run, an empty journal, a file changed
// since the transaction, dry runs, a failing command during undo, and the
// journal entry a crash leaves half-built.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support.hpp"

#include <nlohmann/json.hpp>

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix;
using test::TempRoot;

namespace {

std::map<std::string, std::string> without_state(std::map<std::string, std::string> tree)
{
	for (auto it = tree.begin(); it != tree.end();)
		it = it->first.rfind("var", 0) == 0 || it->first.rfind("boot/initrd", 0) == 0 ? tree.erase(it)
											      : std::next(it);
	return tree;
}

} // namespace

TEST_CASE("undo: walks back one transaction per call, to the exact previous files")
{
	TempRoot t;
	t.write("etc/modprobe.d/rdnafix.conf", "options rdnafix noretry=0\n", 0600); // hand-made, odd mode
	test::TestPlanners tp;
	const auto p = test::planners(t.root(), tp);
	const auto state0 = without_state(t.tree());
	REQUIRE(test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, p).rc == 0);
	const auto state1 = without_state(t.tree());
	REQUIRE(test::apply(test::options(t.root()), {{"amdgpu", "lockup_timeout", "10000"}}, {}, p).rc == 0);
	REQUIRE(test::apply(test::options(t.root()), {}, {{"amdgpu.noretry", "1"}}, p).rc == 0);
	CHECK(t.exists("etc/default/grub.d/rdnafix.cfg"));
	CHECK(t.exists("var/lib/rdnafix/config/journal/000003"));

	auto u3 = test::undo(test::options(t.root()));
	INFO(u3.out << u3.err);
	REQUIRE(u3.rc == 0);
	CHECK_FALSE(t.exists("etc/default/grub.d/rdnafix.cfg"));
	CHECK_THAT(u3.out, ContainsSubstring("undoing transaction 000003"));
	CHECK_THAT(u3.out, ContainsSubstring("ran: true"));
	CHECK_FALSE(t.exists("var/lib/rdnafix/config/journal/000003"));

	auto u2 = test::undo(test::options(t.root()));
	REQUIRE(u2.rc == 0);
	CHECK(without_state(t.tree()) == state1);
	CHECK(t.read("boot/initrd.img-test") == t.read("etc/modprobe.d/rdnafix.conf")); // regenerated

	auto u1 = test::undo(test::options(t.root()));
	REQUIRE(u1.rc == 0);
	CHECK(without_state(t.tree()) == state0);
	CHECK(t.mode("etc/modprobe.d/rdnafix.conf") == 0600);

	auto none = test::undo(test::options(t.root()));
	CHECK(none.rc == 0);
	CHECK_THAT(none.out, ContainsSubstring("nothing to undo"));
	CHECK(without_state(t.tree()) == state0);

	auto o = test::options(t.root());
	o.json = true;
	auto j = nlohmann::json::parse(test::undo(o).out);
	CHECK(j["nothing_to_do"] == true);
	CHECK(j["exit_code"] == 0);
}

TEST_CASE("undo: a file changed since the transaction is not overwritten")
{
	TempRoot t;
	test::TestPlanners tp;
	REQUIRE(test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, test::planners(t.root(), tp))
			.rc == 0);
	t.write("etc/modprobe.d/rdnafix.conf", "options rdnafix noretry=-1\n");
	const auto before = t.tree();
	auto u = test::undo(test::options(t.root()));
	CHECK(u.rc == 2);
	CHECK_THAT(u.err, ContainsSubstring("was changed after transaction 000001"));
	CHECK(t.tree() == before);
}

TEST_CASE("undo: --dry-run shows the restore and writes nothing; --no-initramfs skips the generator")
{
	TempRoot t;
	test::TestPlanners tp;
	REQUIRE(test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, test::planners(t.root(), tp))
			.rc == 0);
	const auto before = t.tree();
	auto o = test::options(t.root());
	o.dry_run = true;
	auto d = test::undo(o);
	CHECK(d.rc == 0);
	CHECK_THAT(d.out, ContainsSubstring("--- a/etc/modprobe.d/rdnafix.conf\n+++ /dev/null"));
	CHECK_THAT(d.out, ContainsSubstring("would run: sh -c"));
	CHECK(t.tree() == before);

	o.dry_run = false;
	o.no_initramfs = true;
	auto n = test::undo(o);
	CHECK(n.rc == 1);
	CHECK_THAT(n.out, ContainsSubstring("skipped (--no-initramfs)"));
	CHECK_FALSE(t.exists("etc/modprobe.d/rdnafix.conf"));
	CHECK(t.read("boot/initrd.img-test") ==
	      before.at("boot/initrd.img-test").substr(0, before.at("boot/initrd.img-test").rfind("|mode=")));
}

TEST_CASE("undo: a command failing during undo puts the transaction's files back and keeps the entry")
{
	TempRoot t;
	test::TestPlanners tp;
	tp.fail_initramfs = false;
	REQUIRE(test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, test::planners(t.root(), tp))
			.rc == 0);
	// Make the recorded command fail now: the image path becomes a directory.
	std::filesystem::remove(t.root() + "/boot/initrd.img-test");
	std::filesystem::create_directories(t.root() + "/boot/initrd.img-test/x");
	// After the roll-back the failed command runs again on the restored files (it may have left its
	// image half-made); with the module file back, its `cp` puts a copy into that directory.
	auto no_image = [](std::map<std::string, std::string> tree) {
		std::erase_if(tree, [](const auto &e) { return e.first.rfind("boot/initrd.img-test/", 0) == 0; });
		return tree;
	};
	const auto before = no_image(t.tree());
	auto u = test::undo(test::options(t.root()));
	CHECK(u.rc == 3);
	CHECK_THAT(u.err, ContainsSubstring("failed"));
	CHECK(no_image(t.tree()) == before);
	CHECK(t.exists("var/lib/rdnafix/config/journal/000001/manifest.json"));
}

TEST_CASE("undo: an entry a crash left half-built is not a transaction")
{
	TempRoot t;
	t.write("var/lib/rdnafix/config/journal/.000001.new/prev/0", "x");
	auto u = test::undo(test::options(t.root()));
	CHECK(u.rc == 0);
	CHECK_THAT(u.out, ContainsSubstring("nothing to undo"));
	test::TestPlanners tp;
	REQUIRE(test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, test::planners(t.root(), tp))
			.rc == 0);
	CHECK(t.exists("var/lib/rdnafix/config/journal/000001/manifest.json"));
	CHECK_FALSE(t.exists("var/lib/rdnafix/config/journal/.000001.new"));

	t.write("var/lib/rdnafix/config/journal/000002/manifest.json", "{not json");
	auto bad = test::undo(test::options(t.root()));
	CHECK(bad.rc == 2);
	CHECK_THAT(bad.err, ContainsSubstring("journal/000002"));
}
