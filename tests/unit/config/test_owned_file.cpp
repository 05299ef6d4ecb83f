// The owned modprobe.d file: render order, softdep, delete when empty,
// hand edits (understood, comments dropped, foreign lines named), and the
// unified diff --dry-run prints.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "config/diff.hpp"
#include "config/owned_file.hpp"
#include "core/parse.hpp"

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix;
using config::ModuleChange;

TEST_CASE("owned file: stable order, softdep with rdnafix keys, deleted when empty")
{
	auto v = config::apply_to({}, {{"ttm", "pages_limit", "25165824"},
				       {"amdgpu", "noretry", "1"},
				       {"rdnafix", "targets", "rdna1,rdna2"},
				       {"rdnafix", "noretry", "1"},
				       {"ttm", "page_pool_size", "25165824"}});
	auto text = config::render_owned(v);
	REQUIRE(text);
	CHECK(*text == "# Managed by rdnactl (rdnafix). Edit with 'rdnactl config'.\n"
		       "# 'rdnactl config undo' restores the previous version.\n"
		       "options rdnafix noretry=1 targets=rdna1,rdna2\n"
		       "options amdgpu noretry=1\n"
		       "options ttm pages_limit=25165824 page_pool_size=25165824\n"
		       "softdep amdgpu pre: rdnafix\n");
	// What modprobe makes of it is what was set.
	auto cfg = core::parse_modprobe_conf(*text, "/etc/modprobe.d/rdnafix.conf");
	CHECK(cfg.problems.empty());
	auto opts = core::module_options({cfg}, "rdnafix");
	REQUIRE(opts.size() == 2);
	CHECK(opts[1].first == "targets");
	CHECK(opts[1].second.value == "rdna1,rdna2");

	// Round trip: parsing the rendered file gives the same values back.
	auto back = config::parse_owned(*text, "etc/modprobe.d/rdnafix.conf");
	CHECK(back.foreign.empty());
	CHECK(back.comments.empty());
	CHECK(back.softdep);
	CHECK(config::render_owned(config::apply_to(back.values, {})) == text);

	// Only amdgpu left: no softdep.  Nothing left: no file.
	auto amd = config::apply_to(v, {{"rdnafix", "noretry", std::nullopt},
					{"rdnafix", "targets", std::nullopt},
					{"ttm", "pages_limit", std::nullopt},
					{"ttm", "page_pool_size", std::nullopt}});
	CHECK_THAT(*config::render_owned(amd), !ContainsSubstring("softdep"));
	CHECK_FALSE(config::render_owned(config::apply_to(amd, {{"amdgpu", "noretry", std::nullopt}})));
}

TEST_CASE("owned file: a hand edit is understood; comments reported; foreign lines named with their line")
{
	const std::string hand = "# my notes\n"
				 "options rdnafix targets=rdna2\n"
				 "options rdnafix noretry=0 \\\n"
				 "  noretry=1\n"
				 "\n"
				 "softdep amdgpu pre: rdnafix\n"
				 "options rdnafix bogus=1\n"
				 "blacklist radeon\n"
				 "options snd_hda_intel power_save=0\n"
				 "frobnicate everything\n";
	auto f = config::parse_owned(hand, "etc/modprobe.d/rdnafix.conf");
	REQUIRE(f.values.size() == 2);
	CHECK(config::value_of(f.values, "rdnafix", "noretry") == "1"); // the last value, as kmod
	CHECK(config::value_of(f.values, "rdnafix", "targets") == "rdna2");
	CHECK(f.softdep);
	REQUIRE(f.comments.size() == 1);
	CHECK(f.comments[0].line == 1);
	REQUIRE(f.foreign.size() == 4);
	CHECK(f.foreign[0].line == 7);
	CHECK(f.foreign[0].text == "options rdnafix bogus=1");
	CHECK(f.foreign[1].line == 8);
	CHECK(f.foreign[2].line == 9);
	CHECK(f.foreign[3].line == 10);
	CHECK(f.foreign[3].text == "frobnicate everything");

	// The example file the project ships (kmod/modprobe.d/rdnafix.conf) has comments only.
	auto example = config::parse_owned("# Example\nsoftdep amdgpu pre: rdnafix\n#options rdnafix noretry=1\n",
					   "etc/modprobe.d/rdnafix.conf");
	CHECK(example.foreign.empty());
	CHECK(example.comments.size() == 2);
}

TEST_CASE("diff: unified format with context, new and deleted files")
{
	CHECK(config::unified_diff("a", std::string("x\n"), std::string("x\n")).empty());
	CHECK(config::unified_diff("etc/f", std::nullopt, std::string("one\ntwo\n")) ==
	      "--- /dev/null\n+++ b/etc/f\n@@ -0,0 +1,2 @@\n+one\n+two\n");
	CHECK(config::unified_diff("etc/f", std::string("one\n"), std::nullopt) ==
	      "--- a/etc/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n");
	std::string before, after;
	for (int i = 1; i <= 20; ++i) {
		before += std::to_string(i) + "\n";
		after += (i == 10 ? std::string("ten") : std::to_string(i)) + "\n";
	}
	CHECK(config::unified_diff("f", before, after) ==
	      "--- a/f\n+++ b/f\n@@ -7,7 +7,7 @@\n 7\n 8\n 9\n-10\n+ten\n 11\n 12\n 13\n");
	CHECK(config::unified_diff("f", std::string("a"), std::string("a\n")) ==
	      "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n");
	// Two changes far apart: two hunks.
	std::string far = before;
	far.replace(0, 2, "uno\n");
	far.replace(far.find("20\n"), 3, "twenty\n");
	auto d = config::unified_diff("f", before, far);
	CHECK(d.find("@@ -1,4 +1,4 @@") != std::string::npos);
	CHECK(d.find("@@ -17,4 +17,4 @@") != std::string::npos);
}
