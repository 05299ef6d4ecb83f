// Status answers that hold on real machines (issue 10, items 8 and 9): an iGPU
// at any HIP index, a target without code objects and no override, APU memory
// by kernel version, the per-node override spelling.  Hand-built snapshots in,
// findings out.
#include "model.hpp"
#include "snapshot_builders.hpp"
#include "support.hpp"

#include "core/env_vars.hpp"
#include "core/parse.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <filesystem>

#include <unistd.h>

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

std::string exported(const Snapshot &s, const std::string &name)
{
	for (const auto &e : recommend_env(s))
		if (e.name == name && !e.unset)
			return e.value;
	return "(not exported)";
}

// The rx6750xt-raphael layout: RX 6750 XT (gfx1031) KFD node 1 = GPU index 0,
// Raphael iGPU (gfx1036) KFD node 2 = GPU index 1 (tests/fixtures/rx6750xt-raphael).
Snapshot dgpu_then_igpu()
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1031", "rdna2", false, 1, 0),
		     amd("0000:16:00.0", "gfx1036", "rdna2", true, 2, 1)};
	return s;
}

} // namespace

TEST_CASE("an iGPU without code objects is flagged at HIP index 1, with the value that hides it",
	  "[findings][env][igpu]")
{
	auto s = dgpu_then_igpu();
	SECTION("no *_VISIBLE_DEVICES: the iGPU is HIP device 1")
	{
		set_env(s, "");
		auto x = find(evaluate(s), "RDNA-ENV-018");
		REQUIRE(x.has_value());
		CHECK(x->severity == Severity::warn);
		CHECK_THAT(x->finding, ContainsSubstring("HIP device 1 (KFD node 2)"));
		CHECK_THAT(x->fix, ContainsSubstring("export ROCR_VISIBLE_DEVICES=0"));
		CHECK_THAT(x->why, ContainsSubstring("Unable to find code object for all current devices"));
		CHECK(exported(s, "ROCR_VISIBLE_DEVICES") == "0");
		CHECK_FALSE(find(evaluate(s), "RDNA-ENV-006")); // the iGPU is not index 0
	}
	SECTION("HIP_VISIBLE_DEVICES=0,1 keeps it: the HIP value is given")
	{
		set_env(s, "HIP_VISIBLE_DEVICES=0,1\n");
		auto x = find(evaluate(s), "RDNA-ENV-018");
		REQUIRE(x.has_value());
		CHECK_THAT(x->fix, ContainsSubstring("export HIP_VISIBLE_DEVICES=0 "));
		CHECK(exported(s, "HIP_VISIBLE_DEVICES") == "0");
	}
	SECTION("HIP indexes what ROCR left: ROCR_VISIBLE_DEVICES=1,0 with HIP_VISIBLE_DEVICES=1,0")
	{
		// ROCR order: iGPU, dGPU; HIP 1,0 -> dGPU, iGPU: the iGPU is HIP device 1,
		// and HIP_VISIBLE_DEVICES=1 keeps only the dGPU.
		set_env(s, "ROCR_VISIBLE_DEVICES=1,0\nHIP_VISIBLE_DEVICES=1,0\n");
		auto x = find(evaluate(s), "RDNA-ENV-018");
		REQUIRE(x.has_value());
		CHECK_THAT(x->fix, ContainsSubstring("export HIP_VISIBLE_DEVICES=1 "));
	}
	SECTION("hidden, or given code by an ISA-safe override: nothing to say")
	{
		set_env(s, "ROCR_VISIBLE_DEVICES=0\n");
		CHECK_FALSE(find(evaluate(s), "RDNA-ENV-018"));
		set_env(s, "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
		CHECK_FALSE(find(evaluate(s), "RDNA-ENV-018"));
	}
	SECTION("at index 0 the existing checks speak (cuda:0 is the iGPU)")
	{
		set_env(s, "ROCR_VISIBLE_DEVICES=1,0\n");
		auto f = evaluate(s);
		CHECK(find(f, "RDNA-ENV-007"));
		CHECK_FALSE(find(f, "RDNA-ENV-018"));
	}
}

TEST_CASE("a target without official code objects and no override is a warning with the remedy", "[findings][gpu]")
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1032", "rdna2", false, 1, 0)};
	set_env(s, "");
	auto x = find(evaluate(s), "RDNA-GPU-002");
	REQUIRE(x.has_value());
	CHECK(x->severity == Severity::warn);
	CHECK_THAT(x->fix, ContainsSubstring("export HSA_OVERRIDE_GFX_VERSION=10.3.0"));
	CHECK(exported(s, "HSA_OVERRIDE_GFX_VERSION") == "10.3.0");
	// A lone APU (gfx1035, Rembrandt) is judged the same way.
	s.devices = {amd("0000:e5:00.0", "gfx1035", "rdna2", true, 1, 0)};
	x = find(evaluate(s), "RDNA-GPU-002");
	REQUIRE(x.has_value());
	CHECK(x->severity == Severity::warn);
	// With the safe override set it runs gfx1030 code: information only.
	set_env(s, "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
	x = find(evaluate(s), "RDNA-GPU-002");
	REQUIRE(x.has_value());
	CHECK(x->severity == Severity::info);
	// Hidden from ROCm: information only.
	s = dgpu_then_igpu();
	set_env(s, "ROCR_VISIBLE_DEVICES=0\nHSA_OVERRIDE_GFX_VERSION_1=10.3.0\n");
	x = find(evaluate(s), "RDNA-GPU-002", "0000:16:00.0");
	REQUIRE(x.has_value());
	CHECK(x->severity == Severity::info);
}

TEST_CASE("APU memory: before Linux 6.10 the advice is the BIOS carve-out, not ttm.pages_limit", "[findings][memory]")
{
	auto s = base();
	s.devices = {amd("0000:64:00.0", "gfx1103", "rdna3", true, 1, 0)};
	s.devices[0].vram_total_bytes = 512ull << 20;
	s.devices[0].gtt_total_bytes = 14ull << 30;
	s.driver.mem_total_bytes = 28ull << 30;
	s.driver.ttm_limit_bytes = 14ull << 30;
	SECTION("Ubuntu 24.04's 6.8: carve-out")
	{
		s.driver.kernel_release = "6.8.0-45-generic";
		auto f = evaluate(s);
		auto x = find(f, "RDNA-MEM-002");
		REQUIRE(x.has_value());
		CHECK(x->severity == Severity::warn);
		CHECK_THAT(x->finding, ContainsSubstring("0.5 GiB"));
		CHECK_THAT(x->fix, ContainsSubstring("BIOS"));
		CHECK_THAT(x->fix, ContainsSubstring("6.10"));
		CHECK_THAT(x->why, ContainsSubstring("89773b85599a"));
		CHECK_FALSE(find(f, "RDNA-MEM-001")); // raising pages_limit would do nothing
		CHECK_FALSE(find(f, "RDNA-MEM-003"));
		for (const auto &r : x->remedies)
			CHECK_FALSE(std::holds_alternative<ModuleOption>(r));
	}
	SECTION("6.10 and later: GTT, so ttm.pages_limit")
	{
		s.driver.kernel_release = "6.10.0";
		auto f = evaluate(s);
		CHECK_FALSE(find(f, "RDNA-MEM-002"));
		CHECK(find(f, "RDNA-MEM-003"));
	}
	SECTION("a carve-out that is already most of the memory is fine")
	{
		s.driver.kernel_release = "6.8.0-45-generic";
		s.devices[0].vram_total_bytes = 24ull << 30;
		s.driver.mem_total_bytes = 6ull << 30;
		auto f = evaluate(s);
		CHECK_FALSE(find(f, "RDNA-MEM-002"));
		CHECK_FALSE(find(f, "RDNA-MEM-003"));
	}
}

TEST_CASE("HSA_OVERRIDE_GFX_VERSION_01 is not node 1: the runtime reads _%d exactly", "[findings][env]")
{
	using rdnafix::core::hsa_override_node;
	CHECK(hsa_override_node("HSA_OVERRIDE_GFX_VERSION_1") == 1u);
	CHECK(hsa_override_node("HSA_OVERRIDE_GFX_VERSION_0") == 0u);
	CHECK(hsa_override_node("HSA_OVERRIDE_GFX_VERSION_01") == std::nullopt);
	CHECK(hsa_override_node("HSA_OVERRIDE_GFX_VERSION_00") == std::nullopt);
	CHECK(hsa_override_node("HSA_OVERRIDE_GFX_VERSION_+1") == std::nullopt);
	CHECK(hsa_override_node("HSA_OVERRIDE_GFX_VERSION_4294967296") == std::nullopt);
	CHECK(rdnafix::core::near_miss("HSA_OVERRIDE_GFX_VERSION_01", *rdnafix::test::builtin_variables()) ==
	      "HSA_OVERRIDE_GFX_VERSION_1");
	auto s = dgpu_then_igpu();
	set_env(s, "HSA_OVERRIDE_GFX_VERSION_01=10.3.0\n");
	CHECK(s.environment.overrides.empty());
	auto f = evaluate(s);
	auto x = find(f, "RDNA-ENV-015");
	REQUIRE(x.has_value());
	CHECK_THAT(x->finding, ContainsSubstring("did you mean HSA_OVERRIDE_GFX_VERSION_1"));
	CHECK_FALSE(find(f, "RDNA-ENV-004")); // no override judged as if it were node 1's
	// Its value is not moved to the node-1 name blindly.
	CHECK(exported(s, "HSA_OVERRIDE_GFX_VERSION_1") == "(not exported)");
}

TEST_CASE("parameters the kernel makes root-only are 'root only': a user gets exit 0 on a healthy machine",
	  "[hostile][root-only]")
{
	namespace fs = std::filesystem;
	std::vector<std::string> prefix = rdnafix::test::drop_root_prefix();
	if (::geteuid() == 0 && prefix.empty())
		SKIP("running as root without setpriv: permission bits do not stop root");
	rdnafix::test::TempDir t;
	const fs::path root = t.path() / "root";
	fs::copy(std::string(RDNAFIX_FIXTURES) + "/rx6750xt-raphael/root", root,
		 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
	// Everything readable by others, as on a real machine ...
	fs::permissions(t.path(), fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
	for (const auto &e : fs::recursive_directory_iterator(root))
		if (!e.is_symlink())
			fs::permissions(e.path(),
					fs::perms::others_read |
						(e.is_directory() ? fs::perms::others_exec : fs::perms::none),
					fs::perm_options::add);
	// ... except what amdgpu registers with mode 0600.
	for (const char *p : {"gttsize", "gartsize"})
		fs::permissions(root / "sys/module/amdgpu/parameters" / p,
				fs::perms::owner_read | fs::perms::owner_write);
	// The dGPU with its safe override, the iGPU hidden: nothing to warn about.
	t.write("env", "HSA_OVERRIDE_GFX_VERSION=10.3.0\nROCR_VISIBLE_DEVICES=0\n");
	fs::permissions(t.path() / "env", fs::perms::others_read, fs::perm_options::add);
	auto r = rdnafix::test::run_rdnactl(
		{"status", "--json", "--root", root.string(), "--env", (t.path() / "env").string(), "--user", "alice"},
		{}, prefix);
	INFO(r.out << r.err);
	auto j = nlohmann::json::parse(r.out);
	for (const auto &u : j["driver"]["unreadable"])
		CHECK(u["path"].get<std::string>().find("gttsize") == std::string::npos);
	bool gttsize = false;
	for (const auto &p : j["driver"]["params"])
		if (p["name"] == "gttsize") {
			gttsize = true;
			CHECK(p["root_only"] == true);
			CHECK(p["value"].is_null());
		}
	CHECK(gttsize);
	for (const auto &f : j["findings"]) {
		INFO(f.dump());
		CHECK(f["id"] != "RDNA-RDR-000");
		CHECK(f["severity"] == "info");
	}
	CHECK(r.exit_code == 0);
	auto text = rdnafix::test::run_rdnactl({"status", "--color", "never", "--verbose", "--root", root.string(),
						"--env", (t.path() / "env").string(), "--user", "alice"},
					       {}, prefix);
	CHECK_THAT(text.out, ContainsSubstring("root only"));
	CHECK(text.exit_code == 0);
}
