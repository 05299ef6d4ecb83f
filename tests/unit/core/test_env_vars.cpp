// The pure functions over the variables table (lookup by name and pattern,
// slow values, accepted values, {value}, near misses of its names) and
// PyTorch's allocator configuration syntax.  The table here is a small one
// built in the test; the real one is data (tests/unit/knowledge).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "core/env_vars.hpp"
#include "core/parse.hpp"

#include <set>

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix::core;

namespace {

VarEntry row(std::string name, VarStatus st = VarStatus::effective)
{
	VarEntry e;
	e.name = std::move(name);
	e.status = st;
	e.sources = {"upstream"};
	return e;
}

// The names the near-miss tests need, as the real table has them.
VarTable small_table()
{
	VarTable t;
	for (const char *n : {"HSA_OVERRIDE_GFX_VERSION", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
			      "CUDA_VISIBLE_DEVICES", "HSA_XNACK", "PYTORCH_HIP_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF",
			      "PYTORCH_ALLOC_CONF", "HIP_PATH", "ROCM_PATH"})
		t.push_back(row(n));
	t.push_back(row("HSA_OVERRIDE_GFX_VERSION_<N>"));
	t.push_back(row("MIOPEN_DEBUG_*"));
	t.push_back(row("CUDA_LAUNCH_BLOCKING", VarStatus::no_effect_on_rocm));
	t.push_back(row("PYTORCH_MAX_SPLIT_SIZE_MB", VarStatus::not_a_real_variable));
	return t;
}

} // namespace

TEST_CASE("find_var: exact names, NAME_<N> node ids, PREFIX* families", "[env][vars]")
{
	const VarTable t = small_table();
	CHECK(find_var(t, "HSA_XNACK")->name == "HSA_XNACK");
	CHECK(find_var(t, "HSA_OVERRIDE_GFX_VERSION_1")->name == "HSA_OVERRIDE_GFX_VERSION_<N>");
	CHECK(find_var(t, "HSA_OVERRIDE_GFX_VERSION_2147483647"));
	CHECK(find_var(t, "HSA_OVERRIDE_GFX_VERSION_01") == nullptr); // the runtime prints %d
	CHECK(find_var(t, "HSA_OVERRIDE_GFX_VERSION_-1") == nullptr);
	CHECK(find_var(t, "HSA_OVERRIDE_GFX_VERSION_2147483648") == nullptr);
	CHECK(find_var(t, "MIOPEN_DEBUG_CONV_GEMM")->name == "MIOPEN_DEBUG_*");
	CHECK(find_var(t, "MIOPEN_DEBUGX") == nullptr);
	CHECK(find_var(t, "HOME") == nullptr);
}

TEST_CASE("looks_relevant: the prefixes of ROCm, PyTorch and the applications", "[env][vars]")
{
	for (const char *n :
	     {"HSA_FOO", "HIP_BAR", "ROCM_HOME", "ROCR_X", "MIOPEN_X", "ROCBLAS_X", "HIPBLASLT_X", "TENSILE_X",
	      "PYTORCH_X", "TORCH_X", "AMD_X", "OLLAMA_X", "GGML_X", "HCC_X", "GPU_X", "CUDA_X", "ROC_X"})
		CHECK(looks_relevant(n));
	for (const char *n : {"HOME", "PATH", "XDG_SESSION_TYPE", "LANG", "hsa_foo"})
		CHECK_FALSE(looks_relevant(n));
}

TEST_CASE("slow values, accepted values and {value}", "[env][vars]")
{
	VarEntry log = row("AMD_LOG_LEVEL", VarStatus::debug_slow);
	log.slow_from = 3;
	log.accepts = {"<int>"};
	CHECK_FALSE(is_slow(log, "2"));
	CHECK(is_slow(log, "3"));
	CHECK(is_slow(log, "4"));
	CHECK_FALSE(is_slow(log, "four"));
	CHECK(value_accepted(log, "4"));
	CHECK(value_accepted(log, "-1"));
	CHECK_FALSE(value_accepted(log, "four"));
	VarEntry blocking = row("HIP_LAUNCH_BLOCKING", VarStatus::debug_slow);
	CHECK(is_slow(blocking, "1"));
	CHECK_FALSE(is_slow(blocking, "0"));
	CHECK_FALSE(is_slow(blocking, ""));
	CHECK_FALSE(is_slow(row("HSA_XNACK"), "1")); // only debug-slow rows are slow
	VarEntry fa = row("FLASH_ATTENTION_TRITON_AMD_ENABLE");
	fa.accepts = {"TRUE", "FALSE"};
	CHECK(value_accepted(fa, "TRUE"));
	CHECK_FALSE(value_accepted(fa, "1"));
	CHECK(value_accepted(row("X"), "anything")); // no accepts: not checked
	CHECK(with_value("max_split_size_mb:{value}", "512") == "max_split_size_mb:512");
	CHECK(with_value("{value},{value}", "a") == "a,a");
	CHECK(with_value("plain", "a") == "plain");
	CHECK(var_status_from_word("debug-slow") == VarStatus::debug_slow);
	CHECK(var_status_from_word("slow") == std::nullopt);
	for (VarStatus s : var_statuses())
		CHECK(var_status_from_word(var_status_word(s)) == s);
}

TEST_CASE("edit distance: insert, delete, substitute, swap", "[env][vars]")
{
	CHECK(edit_distance("HSA_OVERIDE_GFX_VERSION", "HSA_OVERRIDE_GFX_VERSION") == 1);
	CHECK(edit_distance("PYTORCH_HIP_ALLOC_CONFIG", "PYTORCH_HIP_ALLOC_CONF") == 2);
	CHECK(edit_distance("HSA_OVERRIDE_GFX_VRESION", "HSA_OVERRIDE_GFX_VERSION") == 1); // swap
	CHECK(edit_distance("", "abc") == 3);
	CHECK(edit_distance("same", "same") == 0);
}

TEST_CASE("near misses of the table's names", "[env][vars]")
{
	const VarTable t = small_table();
	CHECK(near_miss("HSA_OVERIDE_GFX_VERSION", t) == "HSA_OVERRIDE_GFX_VERSION");
	CHECK(near_miss("HSA_OVERRIDE_GFX_VERSON", t) == "HSA_OVERRIDE_GFX_VERSION");
	CHECK(near_miss("hsa_override_gfx_version", t) == "HSA_OVERRIDE_GFX_VERSION"); // getenv is case-sensitive
	CHECK(near_miss("PYTORCH_HIP_ALLOC_CONFIG", t) == "PYTORCH_HIP_ALLOC_CONF");
	CHECK(near_miss("PYTORCH_CUDA_ALLOC_CONFIG", t) == "PYTORCH_CUDA_ALLOC_CONF");
	CHECK(near_miss("ROCM_VISIBLE_DEVICES", t) == "ROCR_VISIBLE_DEVICES");
	CHECK(near_miss("HIP_VISIBLE_DEVICE", t) == "HIP_VISIBLE_DEVICES");
	CHECK(near_miss("HSA_XNAK", t) == "HSA_XNACK");
	// Table names, the per-node override form, no-op and made-up table names and far names are
	// not misses; a made-up name is never proposed.
	CHECK(near_miss("HSA_OVERRIDE_GFX_VERSION", t) == std::nullopt);
	CHECK(near_miss("HSA_OVERRIDE_GFX_VERSION_1", t) == std::nullopt);
	CHECK(near_miss("HSA_OVERRIDE_GFX_VERSION_12", t) == std::nullopt);
	CHECK(near_miss("CUDA_VISIBLE_DEVICES", t) == std::nullopt);
	CHECK(near_miss("CUDA_LAUNCH_BLOCKING", t) == std::nullopt);
	CHECK(near_miss("PYTORCH_ALLOC_CONF", t) == std::nullopt);
	CHECK(near_miss("HOME", t) == std::nullopt);
	CHECK(near_miss("XDG_SESSION_TYPE", t) == std::nullopt);
	CHECK(near_miss("ROCM_HOME", t) == std::nullopt);
	CHECK(near_miss("HIP_PATH", t) == std::nullopt);
	CHECK(near_miss(std::string(5000, 'A'), t) == std::nullopt);
	CHECK(near_miss("PYTORCH_MAX_SPLIT_SIZE_M", t) == std::nullopt);
	CHECK(invalid_override_node("HSA_OVERRIDE_GFX_VERSION_-1", t).has_value());
	CHECK(invalid_override_node("HSA_OVERRIDE_GFX_VERSION_01", t) == std::nullopt);
}

TEST_CASE("allocator config: PyTorch's tokens", "[env][alloc]")
{
	auto c = parse_alloc_conf("garbage_collection_threshold:0.6, max_split_size_mb:128,"
				  "roundup_power2_divisions:[256:1,512:2,>:4],expandable_segments:True");
	CHECK(c.problems.empty());
	REQUIRE(c.options.size() == 4);
	CHECK(c.options[0].key == "garbage_collection_threshold");
	CHECK(c.options[0].value == "0.6");
	CHECK(c.options[1].key == "max_split_size_mb"); // the space is dropped, as PyTorch does
	CHECK(c.options[2].value == "[256:1,512:2,>:4]");
	CHECK(c.options[3].value == "True");
	CHECK(parse_alloc_conf("").options.empty());
	CHECK(parse_alloc_conf("a:1,").problems.empty());
}

TEST_CASE("allocator config: syntax errors name the option", "[env][alloc]")
{
	auto c = parse_alloc_conf("max_split_size_mb=128,expandable_segments:,:x,a:1:2,b:[1:2");
	REQUIRE(c.problems.size() == 5);
	CHECK_THAT(c.problems[0], ContainsSubstring("option 1: 'max_split_size_mb=128' has no ':value'"));
	CHECK_THAT(c.problems[1], ContainsSubstring("option 2: 'expandable_segments' has no value"));
	CHECK_THAT(c.problems[2], ContainsSubstring("option 3: expected a key, got ':'"));
	CHECK_THAT(c.problems[3], ContainsSubstring("option 4: unexpected ':' after a:1"));
	CHECK_THAT(c.problems[4], ContainsSubstring("option 5: 'b' has an unclosed '['"));
	CHECK(alloc_conf_key("expandable_segments")->value == AllocValue::boolean);
	CHECK(alloc_conf_key("release_lock_on_hipmalloc"));
	CHECK(alloc_conf_key("expandable_segment") == nullptr);
}
