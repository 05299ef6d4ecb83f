// A 780M (gfx1103, the captured phoenix-k68 machine) with the override guides
// give it, HSA_OVERRIDE_GFX_VERSION=11.0.0: a caveat (RDNA-ENV-012) that names
// the register file, never called safe, and `fix` does not write it; without
// an override, the value rdnactl proposes is the ISA-safe 11.0.2.
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using rdnafix::test::run_rdnactl;
using rdnafix::test::TempDir;

TEST_CASE("780M with HSA_OVERRIDE_GFX_VERSION=11.0.0: a caveat, not safe, and fix does not write it",
	  "[findings][override]")
{
	const std::string root = std::string(RDNAFIX_FIXTURES) + "/phoenix-k68/root";
	TempDir t;
	t.write("env", "PATH=/usr/bin:/bin\nHSA_OVERRIDE_GFX_VERSION=11.0.0\n");
	const std::string env = (t.path() / "env").string();
	auto r = run_rdnactl({"status", "--root", root, "--env", env, "--user", "carol", "--json"});
	INFO(r.err);
	auto doc = nlohmann::json::parse(r.out);
	bool caveat = false;
	for (const auto &f : doc["findings"]) {
		CHECK(f["id"] != "RDNA-ENV-004"); // the ISA-safe override finding
		if (f["id"] == "RDNA-ENV-012") {
			caveat = true;
			CHECK(f["severity"] == "warn");
			CHECK_THAT(f["finding"].get<std::string>(), ContainsSubstring("1536 VGPRs"));
			CHECK_THAT(f["finding"].get<std::string>(), ContainsSubstring("ROCm/ROCm#4557"));
			CHECK_THAT(f["fix"].get<std::string>(), ContainsSubstring("HSA_OVERRIDE_GFX_VERSION=11.0.2"));
		}
	}
	CHECK(caveat);
	for (const auto &v : doc["environment"]["overrides"][0]["verdicts"])
		CHECK(v["verdict"] == "works_not_guaranteed");

	auto fix = run_rdnactl({"fix", "--dry-run", "--json", "--root", root, "--env", env, "--user", "carol"});
	INFO(fix.out);
	CHECK(fix.out.find("HSA_OVERRIDE_GFX_VERSION=11.0.0") == std::string::npos);
	CHECK(fix.out.find("HSA_OVERRIDE_GFX_VERSION', '11.0.0") == std::string::npos);

	// No override set: the proposal is 11.0.2, never 11.0.0.
	t.write("env", "PATH=/usr/bin:/bin\n");
	auto e = run_rdnactl({"env", "--root", root, "--env", env, "--user", "carol"});
	CHECK_THAT(e.out, ContainsSubstring("HSA_OVERRIDE_GFX_VERSION='11.0.2'"));
	CHECK(e.out.find("11.0.0") == std::string::npos);
}
