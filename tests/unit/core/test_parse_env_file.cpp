// The --env FILE parser on shell start-up files: real snippets from issue
// threads (data/shellrc/SOURCE.md) and the shell forms one at a time.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "core/parse.hpp"

#include <chrono>
#include <fstream>
#include <sstream>

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix::core;

namespace {

std::string shellrc(const std::string &name)
{
	std::ifstream f(std::string(RDNAFIX_CORE_TEST_DATA) + "/shellrc/" + name, std::ios::binary);
	REQUIRE(f);
	std::ostringstream s;
	s << f.rdbuf();
	return s.str();
}

bool rocm_name(std::string_view n)
{
	return n.substr(0, 4) == "HSA_" || n.substr(0, 4) == "HIP_" || n.substr(0, 8) == "PYTORCH_";
}

} // namespace

TEST_CASE("shellrc: a ~/.bashrc block with comments and $PATH (rocm_sdk_builder#173)", "[parse][env][shellrc]")
{
	auto e = parse_env_file(shellrc("rocm_sdk_builder-173.bashrc"), rocm_name);
	CHECK(e.problems.empty());
	CHECK(e.get("HSA_OVERRIDE_GFX_VERSION") == "8.0.3");
	CHECK(e.get("ROC_ENABLE_PRE_VEGA") == "1");
	// The last assignment wins; references stay literal (nothing is expanded).
	CHECK(e.get("PATH") == "$PATH:/usr/bin");
	CHECK(e.get("OCL_ICD_VENDORS") == "${OCL_ICD_VENDORS}:/etc/OpenCL/vendors");
	// Commented-out exports are not taken: ROC_ENABLE_PRE_VEGA is set once (line 2).
	int pre_vega = 0;
	for (const auto &v : e.vars)
		pre_vega += v.name == "ROC_ENABLE_PRE_VEGA";
	CHECK(pre_vega == 1);
	CHECK(e.vars.front().line == 2);
}

TEST_CASE("shellrc: webui.sh with if/fi, source, $( ) (sd-webui-forge-classic#222)", "[parse][env][shellrc]")
{
	auto e = parse_env_file(shellrc("forge-classic-222.webui.sh"), rocm_name);
	CHECK(e.problems.empty());
	CHECK(e.get("SCRIPT_DIR") == "$( cd -- \"$( dirname -- \"${BASH_SOURCE[0]}\" )\" &> /dev/null && pwd )");
	CHECK(e.get("use_venv") == "0"); // conditions are not evaluated: the last assignment counts
	CHECK(e.get("install_dir") == "$SCRIPT_DIR");
	CHECK(e.get("clone_dir") == "stable-diffusion-webui");
	CHECK(e.get("python_cmd") == "python3");
	CHECK(e.get("OSTYPE") == std::nullopt); // only compared, never assigned
}

TEST_CASE("shellrc: X=1 cmd takes X (stable-diffusion-webui#14255)", "[parse][env][shellrc]")
{
	auto e = parse_env_file(shellrc("a1111-14255.sh"), rocm_name);
	CHECK(e.problems.empty());
	CHECK(e.get("HSA_OVERRIDE_GFX_VERSION") == "11.0.0");
	CHECK(e.vars.size() == 1);
}

TEST_CASE("shellrc: empty values before a comment (Bonsai-demo#90)", "[parse][env][shellrc]")
{
	auto e = parse_env_file(shellrc("bonsai-demo-90.env"), rocm_name);
	CHECK(e.problems.empty());
	CHECK(e.get("HSA_OVERRIDE_GFX_VERSION") == "11.5.1");
	CHECK(e.get("HSA_ENABLE_INTERRUPT") == "");
	CHECK(e.get("GGML_HIP_NO_VMM") == "ON");
	CHECK(e.vars.size() == 9);
}

TEST_CASE("shellrc: the forms of one line each", "[parse][env][shellrc]")
{
	auto e = parse_env_file(
		"export HSA_OVERRIDE_GFX_VERSION=10.3.0;\n"
		"export PYTORCH_HIP_ALLOC_CONF=\"garbage_collection_threshold:0.6, max_split_size_mb:128\"\n"
		"set -x\n"
		"set -euo pipefail\n"
		"alias sd='HSA_OVERRIDE_GFX_VERSION=11.0.0 python launch.py'\n"
		"source ~/venv/bin/activate\n"
		". /opt/rocm/env.sh\n"
		"rocm_env() {\n"
		"  export HIP_VISIBLE_DEVICES=0\n"
		"}\n"
		"if [ -d /opt/rocm ]; then export ROCM_PATH=/opt/rocm; fi\n"
		"declare -x HSA_ENABLE_SDMA=0 && echo ok\n"
		"env AMD_LOG_LEVEL=3 HIP_LAUNCH_BLOCKING=1 python x.py\n"
		"PATH+=\":/opt/rocm/bin\"\n"
		"set -gx PYTORCH_ROCM_ARCH gfx1030\n"
		"export A=1 B=\"two words\" C\n"
		"HSA_XNACK=1\n"
		"unset HSA_XNACK\n"
		"LD_LIBRARY_PATH=/a:\\\n"
		"/b\n",
		rocm_name);
	CHECK(e.problems.empty());
	CHECK(e.get("HSA_OVERRIDE_GFX_VERSION") == "10.3.0"); // not the alias's 11.0.0
	CHECK(e.get("PYTORCH_HIP_ALLOC_CONF") == "garbage_collection_threshold:0.6, max_split_size_mb:128");
	CHECK(e.get("HIP_VISIBLE_DEVICES") == "0");
	CHECK(e.get("ROCM_PATH") == "/opt/rocm");
	CHECK(e.get("HSA_ENABLE_SDMA") == "0");
	CHECK(e.get("AMD_LOG_LEVEL") == "3");
	CHECK(e.get("HIP_LAUNCH_BLOCKING") == "1");
	CHECK(e.get("PATH") == ":/opt/rocm/bin"); // += appends to what the file set (nothing)
	CHECK(e.get("PYTORCH_ROCM_ARCH") == "gfx1030");
	CHECK(e.get("B") == "two words");
	CHECK(e.get("C") == std::nullopt);
	CHECK(e.get("HSA_XNACK") == std::nullopt); // unset after the assignment
	CHECK(e.get("LD_LIBRARY_PATH") == "/a:/b");
	CHECK(e.vars[0].line == 1);
}

TEST_CASE("shellrc: malformed assignments of relevant names are reported", "[parse][env][shellrc]")
{
	auto e =
		parse_env_file("export HSA_OVERRIDE_GFX_VERSION = 10.3.0\n"
			       "HIP_VISIBLE_DEVICES =0\n"
			       "export PYTORCH_HIP_ALLOC_CONF=garbage_collection_threshold:0.6, max_split_size_mb:128\n"
			       "PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128, expandable_segments:True python x.py\n"
			       "OTHER = 1\n"
			       "export UNRELATED=a b:c\n",
			       rocm_name);
	REQUIRE(e.problems.size() == 4);
	CHECK_THAT(e.problems[0], ContainsSubstring("line 1: HSA_OVERRIDE_GFX_VERSION: spaces around '='"));
	CHECK_THAT(e.problems[1], ContainsSubstring("line 2: HIP_VISIBLE_DEVICES: spaces around '='"));
	CHECK_THAT(e.problems[2], ContainsSubstring("line 3: PYTORCH_HIP_ALLOC_CONF: the value ends at the space "
						    "before 'max_split_size_mb:128'"));
	CHECK_THAT(e.problems[3], ContainsSubstring("line 4: PYTORCH_CUDA_ALLOC_CONF: the value ends"));
	// What the shell would set is still recorded.
	CHECK(e.get("PYTORCH_HIP_ALLOC_CONF") == "garbage_collection_threshold:0.6,");
	CHECK(e.get("HSA_OVERRIDE_GFX_VERSION") == std::nullopt);
}

TEST_CASE("shellrc: an unterminated quote stops the parse with its line", "[parse][env][shellrc]")
{
	auto e = parse_env_file("A=1\nB=\"open\nC=2\n", rocm_name);
	REQUIRE(e.problems.size() == 1);
	CHECK_THAT(e.problems[0], ContainsSubstring("line 2: unterminated quote"));
	CHECK(e.get("A") == "1");
	CHECK(e.get("C") == std::nullopt);
	auto p = parse_env_file("X=$(echo 'a'\n", rocm_name);
	REQUIRE(p.problems.size() == 1);
	CHECK_THAT(p.problems[0], ContainsSubstring("line 1: unterminated quote or $("));
}

TEST_CASE("shellrc: a quoted value spanning lines is one value", "[parse][env][shellrc]")
{
	auto e = parse_env_file("PS1=\"line one\nline two\"\nHSA_OVERRIDE_GFX_VERSION=10.3.0\n", rocm_name);
	CHECK(e.problems.empty());
	CHECK(e.get("PS1") == "line one\nline two");
	REQUIRE(e.get("HSA_OVERRIDE_GFX_VERSION") == "10.3.0");
	CHECK(e.vars[1].line == 3);
}

TEST_CASE("shellrc: hostile 1 MiB inputs stay linear", "[parse][env][shellrc][hostile]")
{
	auto timed = [](const std::string &text) {
		auto t0 = std::chrono::steady_clock::now();
		auto e = parse_env_file(text, rocm_name);
		auto s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
		return std::pair{e, s};
	};
	std::string appends;
	while (appends.size() < (1u << 20))
		appends += "X+=a\n";
	auto [a, ta] = timed(appends);
	CHECK(ta < 2.0);
	REQUIRE(a.get("X").has_value());
	CHECK(a.get("X")->size() == appends.size() / 5);
	CHECK(a.vars.size() == 1);
	std::string parens = "X=$(";
	while (parens.size() < (1u << 20))
		parens += "$((";
	parens += std::string(parens.size() / 3 + 1, ')');
	auto [p, tp] = timed(parens);
	CHECK(tp < 2.0);
	std::string quotes(1u << 20, '"');
	auto [q, tq] = timed("A=" + quotes);
	CHECK(tq < 2.0);
	std::string names;
	for (int i = 0; names.size() < (1u << 20); ++i)
		names += "HSA_OVERRIDE_GFX_VERS" + std::to_string(i) + "=1\n";
	auto [n, tn] = timed(names);
	CHECK(tn < 2.0);
}
