// RDNA-COV-001..005: the coverage report in the assessment turned into
// findings (hand-built snapshots and reports; no I/O).
#include "model.hpp"
#include "snapshot_builders.hpp"

#include "software/libdirs.hpp"
#include "software/scan.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace rdnafix::status;
using Catch::Matchers::ContainsSubstring;
using rdnafix::test::amd;
using rdnafix::test::base;
using rdnafix::test::set_env;
namespace cov = rdnafix::coverage;

namespace {

cov::Install torch(std::string label, std::vector<std::string> targets)
{
	cov::Install in;
	in.kind = cov::InstallKind::pytorch;
	in.label = std::move(label);
	in.runtime_version = "6.2.41133";
	cov::Library l;
	l.name = "libtorch_hip.so";
	for (const auto &t : targets)
		l.targets.push_back(*cov::target_in_file_name(t));
	in.libraries.push_back(l);
	return in;
}

// assess + a coverage report judged for the snapshot's GPUs, then evaluate.
std::vector<Finding> run(const Snapshot &s, std::vector<cov::Install> installs)
{
	Assessment a = assess(s);
	cov::Report r;
	r.gpus = *cov::gpus_of(s, {});
	r.installs = std::move(installs);
	r.judgements = cov::judge(r.installs, r.gpus);
	r.summary = cov::summarize(r.installs, r.gpus, r.judgements);
	a.coverage = r;
	return evaluate(s, a);
}

std::vector<Finding> with(const std::vector<Finding> &f, std::string_view id)
{
	std::vector<Finding> out;
	for (const auto &x : f)
		if (x.id == id)
			out.push_back(x);
	return out;
}

const std::vector<std::string> kTorch251 = {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100"};

} // namespace

TEST_CASE("gfx1031 with a gfx1030-only torch: COV-002 with the ISA-safe value as a remedy", "[findings][coverage]")
{
	auto s = base();
	s.devices.push_back(amd("0000:03:00.0", "gfx1031", "rdna2", false, 1, 0));
	auto f = run(s, {torch("PyTorch 2.5.1+rocm6.2", kTorch251)});
	auto c = with(f, "RDNA-COV-002");
	REQUIRE(c.size() == 1);
	CHECK(c[0].severity == Severity::warn);
	CHECK_THAT(c[0].finding,
		   ContainsSubstring("PyTorch 2.5.1+rocm6.2 (libtorch_hip.so) has gfx1030 but not gfx1031: "
				     "HSA_OVERRIDE_GFX_VERSION=10.3.0 is the ISA-safe way to run it"));
	REQUIRE(std::holds_alternative<SetEnv>(c[0].remedies.at(0)));
	CHECK(std::get<SetEnv>(c[0].remedies[0]).value == "10.3.0");
	// The unsupported-target finding now states the fact instead of "may".
	auto g = with(f, "RDNA-GPU-002");
	REQUIRE(g.size() == 1);
	CHECK_THAT(g[0].why, ContainsSubstring("PyTorch 2.5.1+rocm6.2: only with HSA_OVERRIDE_GFX_VERSION=10.3.0"));
	CHECK(std::holds_alternative<NoChange>(g[0].remedies.at(0)));
	CHECK(exit_code_for(f) == 1);
}

TEST_CASE("the override set to the needed value: COV-003 info, no COV-002", "[findings][coverage]")
{
	auto s = base();
	s.devices.push_back(amd("0000:03:00.0", "gfx1031", "rdna2", false, 1, 0));
	set_env(s, "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
	auto f = run(s, {torch("PyTorch 2.5.1+rocm6.2", kTorch251)});
	CHECK(with(f, "RDNA-COV-002").empty());
	auto c = with(f, "RDNA-COV-003");
	REQUIRE(c.size() == 1);
	CHECK(c[0].severity == Severity::info);
	CHECK_THAT(c[0].finding, ContainsSubstring("HSA_OVERRIDE_GFX_VERSION=10.3.0 is what runs it (isa_safe)"));
}

TEST_CASE("gfx1032 with a gfx110X-only torch: COV-001 error with the exact remedy", "[findings][coverage]")
{
	auto s = base();
	s.devices.push_back(amd("0000:03:00.0", "gfx1032", "rdna2", false, 1, 0));
	auto f = run(s, {torch("PyTorch 2.7.1+rocm7.0.0", {"gfx1100", "gfx1101", "gfx1102", "gfx1151"})});
	auto c = with(f, "RDNA-COV-001");
	REQUIRE(c.size() == 1);
	CHECK(c[0].severity == Severity::error);
	CHECK_THAT(c[0].finding, ContainsSubstring("has only gfx1100 gfx1101 gfx1102 gfx1151"));
	CHECK_THAT(c[0].fix, ContainsSubstring("https://download.pytorch.org/whl/rocm6.4"));
	CHECK_THAT(c[0].fix, ContainsSubstring("HSA_OVERRIDE_GFX_VERSION=10.3.0"));
}

TEST_CASE("RDNA1 with gfx1030 code: the only override is unsafe, so COV-001", "[findings][coverage]")
{
	auto s = base();
	s.devices.push_back(amd("0000:03:00.0", "gfx1010", "rdna1", false, 1, 0));
	auto f = run(s, {torch("PyTorch 2.5.1+rocm6.2", kTorch251)});
	auto c = with(f, "RDNA-COV-001");
	REQUIRE(c.size() == 1);
	CHECK_THAT(c[0].fix, ContainsSubstring("PYTORCH_ROCM_ARCH=gfx1010"));
	CHECK(with(f, "RDNA-COV-002").empty());
}

TEST_CASE("gfx1151 with native code and an override: COV-004 unsets it", "[findings][coverage]")
{
	auto s = base();
	s.devices.push_back(amd("0000:c6:00.0", "gfx1151", "rdna3_5", true, 1, 0));
	set_env(s, "HSA_OVERRIDE_GFX_VERSION=11.0.0\n");
	auto f = run(s, {torch("PyTorch 2.9.0+rocm7.0", {"gfx1100", "gfx1151"})});
	auto c = with(f, "RDNA-COV-004");
	REQUIRE(c.size() == 1);
	CHECK_THAT(c[0].finding, ContainsSubstring("is not needed on 0000:c6:00.0: PyTorch 2.9.0+rocm7.0 has native "
						   "gfx1151 code; with it the runtime loads gfx1100 code instead"));
	REQUIRE(std::holds_alternative<UnsetEnv>(c[0].remedies.at(0)));
	// Nothing installed: no coverage finding at all.
	CHECK(with(run(s, {}), "RDNA-COV-004").empty());
}

TEST_CASE("a library with problems: COV-005; without a report no COV finding", "[findings][coverage]")
{
	auto s = base();
	s.devices.push_back(amd("0000:03:00.0", "gfx1030", "rdna2", false, 1, 0));
	auto in = torch("PyTorch", {"gfx1030"});
	in.libraries[0].path = "usr/lib/libtorch_hip.so";
	in.libraries[0].problems = {"hipv4-amdgcn-amd-amdhsa--gfx1030: entry says gfx1030, e_flags say gfx1031 (0x37)"};
	auto f = run(s, {in});
	auto c = with(f, "RDNA-COV-005");
	REQUIRE(c.size() == 1);
	CHECK(c[0].subject == "/usr/lib/libtorch_hip.so");
	auto none = evaluate(s, assess(s));
	for (const auto &x : none)
		CHECK(!x.id.starts_with("RDNA-COV"));
}
