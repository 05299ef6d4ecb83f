// RDNA-GPU-002's words match the machine (issue 21): a GPU without a KFD node
// is not "hidden by *_VISIBLE_DEVICES", an invalid override is not "no
// override", a safe override that is set is not asked for again; and a GPU that
// HIP_VISIBLE_DEVICES hides gets no coverage warning.
#include "model.hpp"
#include "snapshot_builders.hpp"
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

using namespace rdnafix::status;
using namespace rdnafix::machine;
using Catch::Matchers::ContainsSubstring;
using rdnafix::test::amd;
using rdnafix::test::base;
using rdnafix::test::set_env;

namespace {

std::optional<Finding> find(const std::vector<Finding> &f, const std::string &id, const std::string &subject = "")
{
	for (const auto &x : f)
		if (x.id == id && (subject.empty() || x.subject.find(subject) != std::string::npos))
			return x;
	return std::nullopt;
}

} // namespace

TEST_CASE("RDNA-GPU-002: a GPU with no KFD node is not 'hidden by *_VISIBLE_DEVICES'", "[findings][gpu]")
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1032", "rdna2", false)}; // no KFD node: /dev/kfd missing
	set_env(s, "");
	auto x = find(evaluate(s), "RDNA-GPU-002");
	REQUIRE(x.has_value());
	CHECK_THAT(x->finding, !ContainsSubstring("VISIBLE_DEVICES"));
	CHECK(x->severity == Severity::warn);
}

TEST_CASE("RDNA-GPU-002: an invalid override is named, not 'no HSA_OVERRIDE_GFX_VERSION is set'", "[findings][gpu]")
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1032", "rdna2", false, 1, 0)};
	set_env(s, "HSA_OVERRIDE_GFX_VERSION=gfx1031\n");
	auto x = find(evaluate(s), "RDNA-GPU-002");
	REQUIRE(x.has_value());
	CHECK_THAT(x->finding, !ContainsSubstring("no HSA_OVERRIDE_GFX_VERSION is set"));
	CHECK_THAT(x->finding, ContainsSubstring("invalid ('gfx1031', RDNA-ENV-001)"));
	// A valid override that gives it no code is not "no override" either.
	set_env(s, "HSA_OVERRIDE_GFX_VERSION=11.0.0\n");
	x = find(evaluate(s), "RDNA-GPU-002");
	REQUIRE(x.has_value());
	CHECK_THAT(x->finding, ContainsSubstring("HSA_OVERRIDE_GFX_VERSION=11.0.0 does not give it code"));
}

TEST_CASE("RDNA-GPU-002: with the safe override set, the fix does not export it again", "[findings][gpu]")
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1031", "rdna2", false, 1, 0)};
	set_env(s, "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
	auto x = find(evaluate(s), "RDNA-GPU-002");
	REQUIRE(x.has_value());
	CHECK(x->severity == Severity::info);
	CHECK_THAT(x->fix, !ContainsSubstring("export"));
	CHECK_THAT(x->fix, ContainsSubstring("HSA_OVERRIDE_GFX_VERSION=10.3.0 stays set"));
}

TEST_CASE("HIP_VISIBLE_DEVICES=0 hides the iGPU: no coverage finding for it", "[findings][coverage]")
{
	const std::filesystem::path fx = std::filesystem::path(RDNAFIX_FIXTURES) / "rx6750xt-torch-gfx1030";
	rdnafix::test::TempDir t;
	t.write("env", rdnafix::test::read_file(fx / "env") + "HIP_VISIBLE_DEVICES=0\n");
	auto r = rdnafix::test::run_rdnactl({"status", "--root", (fx / "root").string(), "--env",
					     (t.path() / "env").string(), "--user", "alice", "--json"},
					    {"RDNAFIX_KNOWLEDGE_DIRS="});
	INFO(r.err);
	auto j = nlohmann::json::parse(r.out);
	int dgpu = 0;
	for (const auto &f : j["findings"]) {
		const std::string id = f["id"], subject = f["subject"];
		CHECK_FALSE((id.rfind("RDNA-COV-", 0) == 0 && subject.find("0000:16:00.0") != std::string::npos));
		dgpu += id == "RDNA-COV-002" && subject.find("0000:03:00.0") != std::string::npos;
	}
	CHECK(dgpu == 1); // the visible dGPU is still judged
}
