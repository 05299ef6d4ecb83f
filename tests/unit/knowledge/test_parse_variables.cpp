// knowledge: [[variable]] rows (the variables table): every problem of a bad
// row at file:line, overlay replacement, and the built-in table itself
// (sizes, sources, the names the issue lists).
#include "knowledge/builtin.hpp"
#include "knowledge/model.hpp"

#include "core/env_vars.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <map>
#include <set>

using namespace rdnafix::knowledge;
using Catch::Matchers::ContainsSubstring;
using rdnafix::core::VarStatus;

namespace {

const char *kRow = R"(# a comment line
[[variable]]
name = "FROB_LEVEL"
family = "hip"
status = "debug-slow"
does = "Logs every frob."
values = "0 to 4"
versions = "frob 1.x"
accepts = ["<int>"]
slow_from = 3
sources = ["https://example.org/frob/issues/1"]
[[variable.repair]]
kind = "set_env"
name = "FROB_CONF"
value = "level:{value}"
note = "where the level belongs"
)";

std::vector<Problem> problems_of(const std::string &text)
{
	Base b;
	std::vector<Problem> p;
	parse({{"v.toml", text}}, &b, &p);
	return p;
}

std::string replace(std::string s, const std::string &from, const std::string &to)
{
	const auto at = s.find(from);
	REQUIRE(at != std::string::npos);
	return s.replace(at, from.size(), to);
}

// The one problem of `text`, as "file:line: what".
std::string only_problem(const std::string &text)
{
	const auto p = problems_of(text);
	for (const auto &x : p)
		UNSCOPED_INFO(to_text(x));
	REQUIRE(p.size() == 1);
	return to_text(p.front());
}

} // namespace

TEST_CASE("a valid variable row parses with its repair", "[knowledge][variables]")
{
	Base b;
	std::vector<Problem> p;
	parse({{"v.toml", kRow}}, &b, &p);
	REQUIRE(p.empty());
	REQUIRE(b.variables.size() == 1);
	const auto &v = b.variables.front();
	CHECK(v.name == "FROB_LEVEL");
	CHECK(v.status == VarStatus::debug_slow);
	CHECK(v.slow_from == 3);
	CHECK(v.origin == "v.toml:2");
	REQUIRE(v.repair.size() == 1);
	const auto *set = std::get_if<rdnafix::core::SetEnv>(&v.repair.front());
	REQUIRE(set);
	CHECK(set->value == "level:{value}");
	CHECK(rdnafix::core::is_slow(v, "3"));
	CHECK_FALSE(rdnafix::core::is_slow(v, "2"));
}

TEST_CASE("bad variable rows are refused at file:line with what is valid", "[knowledge][variables]")
{
	CHECK_THAT(only_problem(replace(kRow, "status = \"debug-slow\"", "status = \"sometimes\"")),
		   ContainsSubstring("v.toml:5: FROB_LEVEL: status `sometimes` is not one of effective, debug-slow"));
	CHECK_THAT(only_problem(replace(kRow, "family = \"hip\"", "family = \"cobol\"")),
		   ContainsSubstring("v.toml:4: FROB_LEVEL: family `cobol` is not one of hsa, hip"));
	CHECK_THAT(only_problem(replace(kRow, "does = \"Logs every frob.\"\n", "")),
		   ContainsSubstring("v.toml:2: FROB_LEVEL: `does` is missing"));
	CHECK_THAT(only_problem(replace(kRow, "name = \"FROB_LEVEL\"", "name = \"FROB LEVEL\"")),
		   ContainsSubstring("v.toml:3: FROB LEVEL: the name must be an environment variable name"));
	CHECK_THAT(only_problem(replace(kRow, "versions = \"frob 1.x\"", "versions = \"frob 1.x\"\ncolour = \"red\"")),
		   ContainsSubstring("v.toml:9: FROB_LEVEL: unknown field `colour`"));
	CHECK_THAT(only_problem(replace(kRow, "status = \"debug-slow\"", "status = \"effective\"")),
		   ContainsSubstring("v.toml:10: FROB_LEVEL: `slow_from` belongs to status debug-slow only"));
	CHECK_THAT(only_problem(replace(kRow, "[\"https://example.org/frob/issues/1\"]", "[\"docs/knowledge.md\"]")),
		   ContainsSubstring("v.toml:11: FROB_LEVEL: source `docs/knowledge.md` is a file of this repository"));
	CHECK_THAT(only_problem(replace(kRow, "kind = \"set_env\"", "kind = \"reboot\"")),
		   ContainsSubstring("v.toml:13: FROB_LEVEL: repair: kind `reboot` is not one of set_env, unset_env"));
	CHECK_THAT(only_problem(replace(kRow, "value = \"level:{value}\"\n", "")),
		   ContainsSubstring("FROB_LEVEL: `value` is missing"));
	CHECK_THAT(only_problem(std::string(kRow) + "\n" + kRow),
		   ContainsSubstring("v.toml:19: FROB_LEVEL is defined twice"));
	CHECK_THAT(only_problem("variable = 3\n"),
		   ContainsSubstring("v.toml:1: `variable` must be an array of tables"));
	// A broken row is left out; the rest of the file is kept.
	Base b;
	std::vector<Problem> p;
	parse({{"v.toml",
		replace(kRow, "family = \"hip\"", "family = 7") + "\n" + replace(kRow, "FROB_LEVEL", "FROB_OTHER")}},
	      &b, &p);
	REQUIRE(p.size() == 1);
	REQUIRE(b.variables.size() == 1);
	CHECK(b.variables.front().name == "FROB_OTHER");
}

TEST_CASE("an overlay row replaces the built-in row of the same name", "[knowledge][variables]")
{
	Base b;
	std::vector<Problem> p;
	parse(builtin_files(), &b, &p);
	REQUIRE(p.empty());
	const auto *before = rdnafix::core::find_var(b.variables, "HSA_USE_SVM");
	REQUIRE(before);
	CHECK(before->status == VarStatus::effective);
	const std::size_t n = b.variables.size();
	std::string row = replace(kRow, "FROB_LEVEL", "HSA_USE_SVM");
	row = replace(row, "status = \"debug-slow\"", "status = \"deprecated\"");
	row = replace(row, "slow_from = 3\n", "");
	parse({{"/etc/rdnafix/knowledge.d/local.toml", row}}, &b, &p);
	REQUIRE(p.empty());
	CHECK(b.variables.size() == n);
	const auto *after = rdnafix::core::find_var(b.variables, "HSA_USE_SVM");
	REQUIRE(after);
	CHECK(after->status == VarStatus::deprecated);
	CHECK(after->origin == "/etc/rdnafix/knowledge.d/local.toml:2");
}

TEST_CASE("the built-in variables table: size, a source per row, the names guides copy", "[knowledge][variables]")
{
	Base b;
	std::vector<Problem> p;
	parse(builtin_files(), &b, &p);
	REQUIRE(p.empty());
	CHECK(b.variables.size() >= 80);
	std::map<VarStatus, int> by_status;
	std::set<std::string> names;
	for (const auto &v : b.variables) {
		INFO(v.name);
		CHECK(names.insert(v.name).second);
		CHECK_FALSE(v.sources.empty());
		CHECK_FALSE(v.does.empty());
		++by_status[v.status];
		// A name some program reads is never a near miss of another row.
		if (v.name.find('<') == std::string::npos && v.name.find('*') == std::string::npos)
			CHECK(rdnafix::core::near_miss(v.name, b.variables) == std::nullopt);
	}
	for (const char *n : {"HSA_OVERRIDE_GFX_VERSION",
			      "HSA_ENABLE_SDMA",
			      "HSA_XNACK",
			      "HSA_USE_SVM",
			      "HSA_ENABLE_INTERRUPT",
			      "HSA_NO_SCRATCH_RECLAIM",
			      "HIP_VISIBLE_DEVICES",
			      "ROCR_VISIBLE_DEVICES",
			      "HIP_LAUNCH_BLOCKING",
			      "AMD_SERIALIZE_KERNEL",
			      "AMD_LOG_LEVEL",
			      "GPU_MAX_HW_QUEUES",
			      "HIP_DEVICE_LIB_PATH",
			      "DEVICE_LIB_PATH",
			      "ROCM_PATH",
			      "HIP_PATH",
			      "MIOPEN_FIND_MODE",
			      "MIOPEN_USER_DB_PATH",
			      "MIOPEN_DEVICE_ARCH",
			      "ROCBLAS_USE_HIPBLASLT",
			      "ROCBLAS_LAYER",
			      "PYTORCH_HIP_ALLOC_CONF",
			      "PYTORCH_CUDA_ALLOC_CONF",
			      "PYTORCH_ALLOC_CONF",
			      "TORCH_USE_HIP_DSA",
			      "PYTORCH_ROCM_ARCH",
			      "TORCH_BLAS_PREFER_HIPBLASLT",
			      "PYTORCH_MAX_SPLIT_SIZE_MB",
			      "PYTORCH_NO_HIP_MEMORY_CACHING",
			      "TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL",
			      "FLASH_ATTENTION_TRITON_AMD_ENABLE",
			      "OLLAMA_FLASH_ATTENTION",
			      "HCC_AMDGPU_TARGET",
			      "GGML_CUDA_ENABLE_UNIFIED_MEMORY",
			      "CUDA_LAUNCH_BLOCKING",
			      "TF_FORCE_GPU_ALLOW_GROWTH"}) {
		INFO(n);
		CHECK(rdnafix::core::find_var(b.variables, n));
	}
	CHECK(rdnafix::core::find_var(b.variables, "HSA_OVERRIDE_GFX_VERSION_3")->name ==
	      "HSA_OVERRIDE_GFX_VERSION_<N>");
	CHECK(rdnafix::core::find_var(b.variables, "MIOPEN_DEBUG_CONV_WINOGRAD")->name == "MIOPEN_DEBUG_*");
	CHECK(rdnafix::core::find_var(b.variables, "TORCH_USE_HIP_DSA")->status == VarStatus::build_time_only);
	CHECK(rdnafix::core::find_var(b.variables, "PYTORCH_MAX_SPLIT_SIZE_MB")->status ==
	      VarStatus::not_a_real_variable);
	CHECK(by_status[VarStatus::effective] > 0);
	CHECK(by_status[VarStatus::debug_slow] > 0);
}
