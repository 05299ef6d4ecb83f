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

namespace {

// A copy of fixture `name` with the RX 6700 XT fault block of ROCm/legacy-rocm-build#6003 as this
// boot's kernel log (tests/unit/status/data/SOURCE.md).
std::filesystem::path with_fault_log(const rdnafix::test::TempDir &t, const std::string &name)
{
	namespace fs = std::filesystem;
	const fs::path fx = fs::path(RDNAFIX_FIXTURES) / name;
	const fs::path root = t.path() / name;
	fs::copy(fx / "root", root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
	t.write(name + "/var/log/rdnafix-dmesg",
		rdnafix::test::read_file(fs::path(RDNAFIX_TOP) /
					 "tests/unit/status/data/gfx10-fault/rocm-legacy-rocm-build-6003.dmesg"));
	return root;
}

nlohmann::json status_json(const std::filesystem::path &root, const std::string &fixture, const std::string &user)
{
	const auto fx = std::filesystem::path(RDNAFIX_FIXTURES) / fixture;
	auto r = rdnafix::test::run_rdnactl(
		{"status", "--root", root.string(), "--env", (fx / "env").string(), "--user", user, "--json"},
		{"RDNAFIX_KNOWLEDGE_DIRS="});
	INFO(r.err);
	return nlohmann::json::parse(r.out);
}

std::string finding_text(const nlohmann::json &j, const std::string &id)
{
	for (const auto &f : j["findings"])
		if (f["id"] == id)
			return f["finding"].get<std::string>() + " | fix: " + f["fix"].get<std::string>();
	return "";
}

} // namespace

TEST_CASE("RDNA-MEM-010: VM faults on RDNA1/RDNA2 get the MTYPE line and what the evidence points at",
	  "[findings][memory][faults]")
{
	rdnafix::test::TempDir t;
	SECTION("RDNA1 with HSA_OVERRIDE_GFX_VERSION=10.3.0: the unsafe override")
	{
		auto x = finding_text(status_json(with_fault_log(t, "rx5600xt-k614"), "rx5600xt-k614", "carol"),
				      "RDNA-MEM-010");
		CHECK_THAT(x, ContainsSubstring("maps this memory NC or UC, never CC"));
		CHECK_THAT(x, ContainsSubstring("\"MTYPE_NC\" is not the cure"));
		CHECK_THAT(x, ContainsSubstring("points at HSA_OVERRIDE_GFX_VERSION=10.3.0"));
		CHECK_THAT(x, ContainsSubstring("fix: unset HSA_OVERRIDE_GFX_VERSION"));
	}
	SECTION("RDNA2 without an override: a bug, with the decoded fault")
	{
		auto x = finding_text(
			status_json(with_fault_log(t, "not-in-render-group"), "not-in-render-group", "bob"),
			"RDNA-MEM-010");
		CHECK_THAT(x, ContainsSubstring("maps this memory NC or UC"));
		CHECK_THAT(x, ContainsSubstring("a bug in the kernel or the program: the last fault"));
		CHECK_THAT(x, ContainsSubstring("TCP"));
	}
	SECTION("RDNA3.5 (Strix Halo): not this finding")
	{
		CHECK(finding_text(status_json(with_fault_log(t, "strix-halo"), "strix-halo", "dave"), "RDNA-MEM-010")
			      .empty());
	}
	SECTION("no fault in the log: not this finding")
	{
		const auto fx = std::filesystem::path(RDNAFIX_FIXTURES) / "rx5600xt-k614";
		CHECK(finding_text(status_json(fx / "root", "rx5600xt-k614", "carol"), "RDNA-MEM-010").empty());
	}
}

TEST_CASE("explain: an aperture violation on an RDNA1 machine gets the MTYPE line with its evidence",
	  "[explain][faults]")
{
	const auto log = std::filesystem::path(RDNAFIX_TOP) /
			 "tests/explain/corpus/RDNA-LOG-004/automatic1111-stable-diffusion-webui-9283.log";
	auto run = [&](const std::string &fixture, const std::string &user) {
		const auto fx = std::filesystem::path(RDNAFIX_FIXTURES) / fixture;
		return rdnafix::test::run_rdnactl({"explain", log.string(), "--root", (fx / "root").string(), "--env",
						   (fx / "env").string(), "--user", user, "--no-coverage"},
						  {"RDNAFIX_KNOWLEDGE_DIRS="})
			.out;
	};
	const std::string rdna1 = run("rx5600xt-k614", "carol");
	CHECK_THAT(rdna1, ContainsSubstring("maps this memory NC or UC, never CC"));
	CHECK_THAT(rdna1,
		   ContainsSubstring(
			   "not the cure; here the evidence points at HSA_OVERRIDE_GFX_VERSION=10.3.0, which runs "
			   "code of another ISA on gfx1010"));
	const std::string rdna2 = run("not-in-render-group", "bob");
	CHECK_THAT(rdna2, ContainsSubstring("not the cure; here the evidence points at a bug"));
	CHECK_THAT(run("strix-halo", "dave"), !ContainsSubstring("MTYPE_NC"));
}
