// The override table (userspace/data/isa-targets.tsv, override-pairs.tsv):
// consistent with the generic families, every same-family pair judged, no
// report makes a pair safer than the LLVM facts, and the 780M is never told
// that 11.0.0 is safe.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "core/gpudb.hpp"
#include "core/isadb.hpp"
#include "core/rules.hpp"

#include <set>
#include <string>

using Catch::Matchers::ContainsSubstring;
using rdnafix::core::GfxTarget;
namespace rules = rdnafix::rules;
namespace isadb = rdnafix::isadb;

namespace {
GfxTarget gfx(std::string_view name)
{
	auto t = rdnafix::gpudb::parse_gfx_name(name);
	REQUIRE(t.has_value());
	return *t;
}
} // namespace

TEST_CASE("override table: the gfx1103 (780M) -> 11.0.0 override is not called safe", "[rules][override][table]")
{
	for (const char *native : {"gfx1102", "gfx1103"})
		for (const char *ov : {"gfx1100", "gfx1101"}) {
			INFO(native << " -> " << ov);
			auto a = rules::assess_override(gfx(native), gfx(ov));
			CHECK(a.verdict != rules::OverrideVerdict::isa_safe);
			CHECK(a.verdict == rules::OverrideVerdict::works_not_guaranteed);
			CHECK_THAT(a.reason, ContainsSubstring("VGPRs"));
		}
	auto safe = rules::safe_override_for(gfx("gfx1103"));
	REQUIRE(safe.has_value());
	CHECK(safe->name() != "gfx1100");
	CHECK(safe->name() == "gfx1102"); // same instructions, register file; gfx1102 code adds a work-around
	CHECK(rules::safe_override_for(gfx("gfx1102")) == std::nullopt);
}

TEST_CASE("override table: every family member has one row, under its family", "[rules][override][table]")
{
	std::set<std::string> members;
	for (const auto &f : rules::isa_families())
		for (const auto &m : f.members) {
			members.insert(m.name());
			const auto *t = isadb::target(m.name());
			INFO(m.name());
			REQUIRE(t != nullptr);
			CHECK(t->generic == f.generic_name);
			CHECK((t->vgprs_wave32 == 1024 || t->vgprs_wave32 == 1536));
			CHECK_FALSE(t->source.empty());
		}
	CHECK(members.size() == isadb::targets().size());
	for (const auto &t : isadb::targets())
		CHECK(members.count(std::string(t.name)) == 1);
	// LLVM: 1.5x VGPRs on gfx1100, gfx1101, gfx1151 and gfx12 only.
	std::set<std::string> big;
	for (const auto &t : isadb::targets())
		if (t.vgprs_wave32 == 1536)
			big.insert(std::string(t.name));
	CHECK(big == std::set<std::string>{"gfx1100", "gfx1101", "gfx1151", "gfx1200", "gfx1201"});
}

TEST_CASE("override table: every same-family pair is judged, with its evidence", "[rules][override][table]")
{
	std::size_t safe = 0, caveat = 0, unsafe = 0;
	for (const auto &f : rules::isa_families())
		for (const auto &n : f.members)
			for (const auto &o : f.members) {
				if (n == o)
					continue;
				auto a = rules::assess_override(n, o);
				INFO(n.name() << " -> " << o.name() << ": " << a.reason);
				CHECK(a.reason.find("LLVM") != std::string::npos);
				switch (a.verdict) {
				case rules::OverrideVerdict::isa_safe:
					++safe;
					break;
				case rules::OverrideVerdict::works_not_guaranteed:
					++caveat;
					break;
				case rules::OverrideVerdict::unsafe:
					++unsafe;
					break;
				default:
					FAIL("a same-family pair without a verdict");
				}
				// Same feature set <=> identical code <=> safe both ways.
				if (isadb::target(n.name())->llvm_features == isadb::target(o.name())->llvm_features)
					CHECK(a.verdict == rules::OverrideVerdict::isa_safe);
			}
	// 12 + 42 + 56 + 2 ordered pairs.
	CHECK(safe + caveat + unsafe == 112);
	CHECK(safe > 0);
	CHECK(caveat > 0);
	CHECK(unsafe > 0);
}

TEST_CASE("override table: a report never makes a pair safer than the LLVM facts", "[rules][override][table]")
{
	REQUIRE_FALSE(isadb::reported_pairs().empty());
	for (const auto &p : isadb::reported_pairs()) {
		INFO(p.native << " -> " << p.override_target);
		auto n = gfx(p.native), o = gfx(p.override_target);
		REQUIRE(rules::isa_family_of(n) != nullptr);
		CHECK(rules::isa_family_of(n) == rules::isa_family_of(o));
		auto a = rules::assess_override(n, o);
		// assess_override keeps the derived verdict when the row claims more:
		// then the row's verdict and the result differ.
		CHECK(rules::to_string(a.verdict) == p.verdict);
		CHECK_THAT(a.reason, ContainsSubstring(std::string(p.evidence)));
		CHECK(p.evidence.find('#') != std::string_view::npos); // names an issue
	}
}

TEST_CASE("override table: the comma lists", "[rules][override][table]")
{
	CHECK(isadb::missing("a,b,c", "b") == std::vector<std::string_view>{"a", "c"});
	CHECK(isadb::missing("", "a").empty());
	CHECK(isadb::missing("a", "") == std::vector<std::string_view>{"a"});
}
