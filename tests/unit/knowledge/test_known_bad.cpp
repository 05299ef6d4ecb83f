// known-bad.toml: the built-in table parses, bad entries are reported with
// file:line, overlays replace by id, and conditions hold only on facts.
#include "knowledge/builtin.hpp"
#include "knowledge/known_bad.hpp"
#include "knowledge/model.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace rdnafix::knowledge;
using Catch::Matchers::ContainsSubstring;

namespace {

std::string all(const std::vector<Problem> &p)
{
	std::string s;
	for (const auto &x : p)
		s += to_text(x) + "\n";
	return s;
}

} // namespace

TEST_CASE("known-bad: the built-in table parses and names real upstream reports", "[known_bad]")
{
	Base b;
	std::vector<Problem> problems;
	parse(builtin_files(), &b, &problems);
	INFO(all(problems));
	CHECK(problems.empty());
	REQUIRE(b.known_bad.size() >= 2);
	for (const auto &e : b.known_bad) {
		INFO(e.id);
		CHECK_FALSE(e.sources.empty());
		CHECK_FALSE(e.when.empty());
		CHECK(e.file == "known-bad.toml");
	}
}

TEST_CASE("known-bad: every malformed field is a problem with file:line", "[known_bad]")
{
	const std::string text = R"([[known_bad]]
id = "Bad Id"
kind = "bios"
severity = "fatal"
title = "x"
gfx = ["navi21"]
when = ["drm 3.64", "firmware.mes = "]
symptom = "s"
workaround = "w"
sources = ["ROCm/ROCm#1"]
colour = "red"

[[known_bad]]
id = "fine-entry"
kind = "kernel"
severity = "warning"
title = "t"
when = ["kernel >= 6.14", "kernel < 6.15"]
symptom = "s"
workaround = "w"
sources = ["https://example.org/report"]
)";
	Base b;
	std::vector<Problem> p;
	parse({{"local.toml", text}}, &b, &p);
	const auto s = all(p);
	CHECK_THAT(s, ContainsSubstring("local.toml:2: id `Bad Id` must be"));
	CHECK_THAT(s, ContainsSubstring("kind `bios` is not one of firmware, kernel, drm, rocm, pytorch"));
	CHECK_THAT(s, ContainsSubstring("severity `fatal` is not one of error, warning"));
	CHECK_THAT(s, ContainsSubstring("gfx `navi21` is not a gfx target name"));
	CHECK_THAT(s, ContainsSubstring("condition `drm 3.64` has no operator"));
	CHECK_THAT(s, ContainsSubstring("condition `firmware.mes = ` is not of the form"));
	CHECK_THAT(s, ContainsSubstring("source `ROCm/ROCm#1` is not an https:// address"));
	CHECK_THAT(s, ContainsSubstring("unknown field `colour`"));
	REQUIRE(b.known_bad.size() == 1); // the broken entry is left out, the rest kept
	CHECK(b.known_bad[0].id == "fine-entry");
	Facts f{{"kernel", "6.14.0-29-generic"}};
	CHECK(match_known_bad(b.known_bad, f, "gfx1150").size() == 1);
	f["kernel"] = "6.15.2";
	CHECK(match_known_bad(b.known_bad, f, "gfx1150").empty());
	CHECK(match_known_bad(b.known_bad, {}, "gfx1150").empty()); // an absent fact never holds
}

TEST_CASE("known-bad: an overlay entry with the same id replaces the built-in one", "[known_bad]")
{
	Base b;
	std::vector<Problem> p;
	parse(builtin_files(), &b, &p);
	const auto before = b.known_bad.size();
	parse({{"/etc/rdnafix/knowledge.d/site.toml", R"([[known_bad]]
id = "mes-0x83-gfx115x"
kind = "firmware"
severity = "warning"
title = "site: MES 0x83 tolerated here"
gfx = ["gfx1151"]
when = ["firmware.mes = 0x83"]
symptom = "s"
workaround = "w"
sources = ["https://github.com/ROCm/legacy-rocm-build/issues/5724"]
)"}},
	      &b, &p);
	INFO(all(p));
	CHECK(p.empty());
	CHECK(b.known_bad.size() == before);
	const Facts f{{"firmware.mes", "0x00000083"}};
	CHECK(match_known_bad(b.known_bad, f, "gfx1150").empty()); // the overlay narrowed it to gfx1151
	const auto m = match_known_bad(b.known_bad, f, "gfx1151");
	REQUIRE(m.size() == 1);
	CHECK_FALSE(m[0]->error);
	CHECK(m[0]->file == "/etc/rdnafix/knowledge.d/site.toml");
}

TEST_CASE("known-bad: derived bounds decide only when they can", "[known_bad]")
{
	VersionCondition c;
	std::string err;
	REQUIRE(parse_condition("drm < 3.64", &c, &err));
	CHECK(holds(c, {{"drm", "3.61.0"}}));
	CHECK_FALSE(holds(c, {{"drm", "3.64.0"}}));
	CHECK(holds(c, {{"drm.min", "3.49"}, {"drm.max", "3.61"}}));
	CHECK_FALSE(holds(c, {{"drm.min", "3.61"}, {"drm.max", "3.64"}}));
	REQUIRE(parse_condition("drm >= 3.64", &c, &err));
	CHECK(holds(c, {{"drm.min", "3.64"}}));
	CHECK_FALSE(holds(c, {{"drm.max", "3.64"}}));
	REQUIRE(parse_condition("env.expandable_segments = true", &c, &err));
	CHECK(holds(c, {{"env.expandable_segments", "true"}}));
	CHECK_FALSE(holds(c, {{"env.expandable_segments", "false"}}));
}
