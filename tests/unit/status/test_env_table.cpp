// The variables table drives the Environment section, the findings and
// `rdnactl env` (docs/knowledge.md "Variables", docs/checks.md RDNA-ENV-008,
// 014, 016, 019..022): the variables guides tell RDNA users to copy, run
// through the real binary on a captured machine, text and JSON; a name the
// table lacks is listed as unknown; an overlay row replaces a built-in one.
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <nlohmann/json.hpp>

#include <map>

using Catch::Matchers::ContainsSubstring;
using rdnafix::test::run_rdnactl;
using rdnafix::test::TempDir;

namespace {

// As guides write them (issue 20's list, plus a name no table has).
const char *kGuideVars = R"(export TORCH_USE_HIP_DSA=1
export ROCBLAS_USE_HIPBLASLT=1
export DEVICE_LIB_PATH=/opt/rocm/amdgcn/bitcode
export HIP_DEVICE_LIB_PATH=/opt/rocm/amdgcn/bitcode
export PYTORCH_MAX_SPLIT_SIZE_MB=512
export HSA_USE_SVM=0
export MIOPEN_DEVICE_ARCH=gfx1030
export AMD_LOG_LEVEL=4
export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb=512
export HSA_ENABLE_SDMA=false
export FLASH_ATTENTION_TRITON_AMD_ENABLE=1
export HCC_HOME=/opt/rocm/hcc
export HSA_FOO=1
)";

const std::string kRoot = std::string(RDNAFIX_FIXTURES) + "/rx6750xt-torch-gfx1030/root";

struct Run {
	rdnafix::test::RunResult text, json, env;
};

Run run_all(const TempDir &d, const std::string &knowledge_dirs)
{
	const std::vector<std::string> env{"RDNAFIX_KNOWLEDGE_DIRS=" + knowledge_dirs};
	const std::string file = (d.path() / "guide.env").string();
	return {run_rdnactl({"status", "--root", kRoot, "--env", file, "--no-coverage", "--color", "never"}, env),
		run_rdnactl({"status", "--root", kRoot, "--env", file, "--no-coverage", "--json"}, env),
		run_rdnactl({"env", "--root", kRoot, "--env", file}, env)};
}

// verdict per name from the JSON's environment.judged.
std::map<std::string, std::string> verdicts(const nlohmann::json &j)
{
	std::map<std::string, std::string> out;
	for (const auto &v : j.at("environment").at("judged"))
		out[v.at("name").get<std::string>()] = v.at("verdict").get<std::string>();
	return out;
}

bool has_finding(const nlohmann::json &j, const std::string &id, const std::string &subject)
{
	for (const auto &f : j.at("findings"))
		if (f.at("id") == id && f.at("subject") == subject)
			return true;
	return false;
}

} // namespace

TEST_CASE("every variable guides copy is listed and judged, text and JSON", "[env][vars][cli]")
{
	TempDir d;
	d.write("guide.env", kGuideVars);
	const Run r = run_all(d, "");
	REQUIRE(r.text.exit_code == 1);
	REQUIRE(r.json.exit_code == 1);
	// The Environment section lists each one with its verdict.
	for (const char *line :
	     {"TORCH_USE_HIP_DSA=1  [build time only]", "ROCBLAS_USE_HIPBLASLT=1  [in effect]",
	      "DEVICE_LIB_PATH=/opt/rocm/amdgcn/bitcode  [build time only]",
	      "HIP_DEVICE_LIB_PATH=/opt/rocm/amdgcn/bitcode  [build time only]",
	      "PYTORCH_MAX_SPLIT_SIZE_MB=512  [not a real variable]", "HSA_USE_SVM=0  [in effect]",
	      "MIOPEN_DEVICE_ARCH=gfx1030  [in effect]", "AMD_LOG_LEVEL=4  [slow debug switch]",
	      "PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb=512  [value rejected]", "HSA_FOO=1  [unknown]"}) {
		INFO(line);
		CHECK_THAT(r.text.out, ContainsSubstring(line));
	}
	const auto j = nlohmann::json::parse(r.json.out);
	const auto v = verdicts(j);
	CHECK(v.at("TORCH_USE_HIP_DSA") == "build time only");
	CHECK(v.at("ROCBLAS_USE_HIPBLASLT") == "in effect");
	CHECK(v.at("DEVICE_LIB_PATH") == "build time only");
	CHECK(v.at("HIP_DEVICE_LIB_PATH") == "build time only");
	CHECK(v.at("PYTORCH_MAX_SPLIT_SIZE_MB") == "not a real variable");
	CHECK(v.at("HSA_USE_SVM") == "in effect");
	CHECK(v.at("MIOPEN_DEVICE_ARCH") == "in effect");
	CHECK(v.at("AMD_LOG_LEVEL") == "slow debug switch");
	CHECK(v.at("PYTORCH_CUDA_ALLOC_CONF") == "value rejected");
	CHECK(v.at("HSA_FOO") == "unknown");
	for (const auto &x : j.at("environment").at("judged"))
		if (x.at("name") == "HSA_FOO")
			CHECK(x.at("status").is_null());
		else
			CHECK_FALSE(x.at("sources").empty());
	// The findings: each judgement that needs a change has its id.
	CHECK(has_finding(j, "RDNA-ENV-014", "TORCH_USE_HIP_DSA"));
	CHECK(has_finding(j, "RDNA-ENV-014", "DEVICE_LIB_PATH"));
	CHECK(has_finding(j, "RDNA-ENV-019", "PYTORCH_MAX_SPLIT_SIZE_MB"));
	CHECK(has_finding(j, "RDNA-ENV-008", "environment"));
	CHECK(has_finding(j, "RDNA-ENV-016", "PYTORCH_CUDA_ALLOC_CONF"));
	CHECK(has_finding(j, "RDNA-ENV-022", "HSA_FOO"));
	CHECK(has_finding(j, "RDNA-ENV-021", "HSA_ENABLE_SDMA")); // ROCr compares with "0" and "1" only
	CHECK(has_finding(j, "RDNA-ENV-021", "FLASH_ATTENTION_TRITON_AMD_ENABLE"));
	CHECK(has_finding(j, "RDNA-ENV-020", "HCC_HOME"));
	CHECK(v.at("HSA_ENABLE_SDMA") == "value ignored");
	CHECK(v.at("HCC_HOME") == "deprecated");
	CHECK_THAT(r.text.out, ContainsSubstring("debug switches set: AMD_LOG_LEVEL=4"));
	CHECK_THAT(r.text.out, ContainsSubstring("PyTorch separates key and value with ':' (max_split_size_mb:512)"));
}

TEST_CASE("rdnactl env prints the repairs of the copied variables", "[env][vars][cli]")
{
	TempDir d;
	d.write("guide.env", kGuideVars);
	const Run r = run_all(d, "");
	REQUIRE(r.env.exit_code == 0);
	// The made-up variable becomes the allocator key it meant; the '=' typo is repaired.
	CHECK_THAT(r.env.out, ContainsSubstring("unset PYTORCH_MAX_SPLIT_SIZE_MB\n"));
	CHECK_THAT(r.env.out, ContainsSubstring("export PYTORCH_HIP_ALLOC_CONF='max_split_size_mb:512'\n"));
	CHECK_THAT(r.env.out, ContainsSubstring("export PYTORCH_CUDA_ALLOC_CONF='max_split_size_mb:512'\n"));
	CHECK_THAT(r.env.out, ContainsSubstring("unset AMD_LOG_LEVEL\n"));
	CHECK_THAT(r.env.out, ContainsSubstring("unset TORCH_USE_HIP_DSA\n"));
	CHECK_THAT(r.env.out, ContainsSubstring("export FLASH_ATTENTION_TRITON_AMD_ENABLE='TRUE'\n"));
	CHECK_THAT(r.env.out, ContainsSubstring("unset HCC_HOME\n"));
	// An effective variable and an unknown one are left alone.
	CHECK_THAT(r.env.out, !ContainsSubstring("HSA_USE_SVM"));
	CHECK_THAT(r.env.out, !ContainsSubstring("HSA_FOO"));
}

TEST_CASE("an overlay row replaces a built-in variable", "[env][vars][cli][overlay]")
{
	TempDir d;
	d.write("guide.env", "export HSA_USE_SVM=0\n");
	d.write("knowledge.d/local.toml", R"([[variable]]
name = "HSA_USE_SVM"
family = "hsa"
status = "not-a-real-variable"
does = "Local policy: treated as made up."
values = "none"
versions = "none"
sources = ["https://example.org/local-policy"]
)");
	const Run before = run_all(d, "");
	CHECK_THAT(before.text.out, ContainsSubstring("HSA_USE_SVM=0  [in effect]"));
	const Run after = run_all(d, (d.path() / "knowledge.d").string());
	CHECK_THAT(after.text.out, ContainsSubstring("HSA_USE_SVM=0  [not a real variable]"));
	CHECK(has_finding(nlohmann::json::parse(after.json.out), "RDNA-ENV-019", "HSA_USE_SVM"));
	CHECK_THAT(after.env.out, ContainsSubstring("unset HSA_USE_SVM\n"));
	// A broken overlay row is shown, not fatal, and the built-in row stays.
	d.write("knowledge.d/local.toml", "[[variable]]\nname = \"HSA_USE_SVM\"\nstatus = \"maybe\"\n");
	const Run broken = run_all(d, (d.path() / "knowledge.d").string());
	CHECK_THAT(broken.text.out, ContainsSubstring("HSA_USE_SVM=0  [in effect]"));
	CHECK_THAT(broken.text.out, ContainsSubstring("status `maybe` is not one of"));
}

TEST_CASE("explain --check-knowledge accepts a variables file", "[env][vars][cli]")
{
	TempDir d;
	d.write("vars.toml", R"([[variable]]
name = "HSA_USE_SVM"
family = "hsa"
status = "effective"
does = "Local copy."
values = "0"
versions = "all"
sources = ["https://example.org/x"]
)");
	auto ok = run_rdnactl({"explain", "--check-knowledge", (d.path() / "vars.toml").string()},
			      {"RDNAFIX_KNOWLEDGE_DIRS="});
	CHECK(ok.exit_code == 0);
	CHECK_THAT(ok.out, ContainsSubstring("vars.toml: 1 variable valid; replaces built-in HSA_USE_SVM"));
	d.write("vars.toml", "[[variable]]\nname = \"HSA_USE_SVM\"\nfamily = \"hsa\"\n");
	auto bad = run_rdnactl({"explain", "--check-knowledge", (d.path() / "vars.toml").string()},
			       {"RDNAFIX_KNOWLEDGE_DIRS="});
	CHECK(bad.exit_code == 1);
	CHECK_THAT(bad.err, ContainsSubstring("vars.toml:1: HSA_USE_SVM: `status` is missing"));
}
