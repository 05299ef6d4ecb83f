// The environment-variable tables: copied no-op variables, near misses of
// real names, PyTorch's allocator configuration syntax.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "core/env_vars.hpp"
#include "core/parse.hpp"

#include <set>

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix::core;

TEST_CASE("copied variables: every row has an effect and an upstream source", "[env][vars]")
{
	std::set<std::string_view> names;
	for (const auto &c : copied_vars()) {
		INFO(c.name);
		CHECK(names.insert(c.name).second);
		CHECK_FALSE(c.effect.empty());
		CHECK(c.source.size() > 20);
		// A no-op variable is never one the runtimes read.
		CHECK((known_var(c.name) == nullptr || c.kind == CopiedKind::build_only));
	}
	REQUIRE(copied_var("CUDA_LAUNCH_BLOCKING"));
	CHECK(copied_var("CUDA_LAUNCH_BLOCKING")->kind == CopiedKind::cuda_only);
	CHECK_THAT(std::string(copied_var("CUDA_LAUNCH_BLOCKING")->instead),
		   ContainsSubstring("AMD_SERIALIZE_KERNEL=3"));
	CHECK(copied_var("PYTORCH_ROCM_ARCH")->kind == CopiedKind::build_only);
	CHECK(copied_var("TF_FORCE_GPU_ALLOW_GROWTH")->kind == CopiedKind::other_framework);
	CHECK(copied_var("HIP_LAUNCH_BLOCKING") == nullptr);
	CHECK(copied_var("CUDA_VISIBLE_DEVICES") == nullptr); // HIP reads it (rocclr flags.hpp)
}

TEST_CASE("edit distance: insert, delete, substitute, swap", "[env][vars]")
{
	CHECK(edit_distance("HSA_OVERIDE_GFX_VERSION", "HSA_OVERRIDE_GFX_VERSION") == 1);
	CHECK(edit_distance("PYTORCH_HIP_ALLOC_CONFIG", "PYTORCH_HIP_ALLOC_CONF") == 2);
	CHECK(edit_distance("HSA_OVERRIDE_GFX_VRESION", "HSA_OVERRIDE_GFX_VERSION") == 1); // swap
	CHECK(edit_distance("", "abc") == 3);
	CHECK(edit_distance("same", "same") == 0);
}

TEST_CASE("near misses of real names", "[env][vars]")
{
	CHECK(near_miss("HSA_OVERIDE_GFX_VERSION") == "HSA_OVERRIDE_GFX_VERSION");
	CHECK(near_miss("HSA_OVERRIDE_GFX_VERSON") == "HSA_OVERRIDE_GFX_VERSION");
	CHECK(near_miss("hsa_override_gfx_version") == "HSA_OVERRIDE_GFX_VERSION"); // getenv is case-sensitive
	CHECK(near_miss("PYTORCH_HIP_ALLOC_CONFIG") == "PYTORCH_HIP_ALLOC_CONF");
	CHECK(near_miss("PYTORCH_CUDA_ALLOC_CONFIG") == "PYTORCH_CUDA_ALLOC_CONF");
	CHECK(near_miss("ROCM_VISIBLE_DEVICES") == "ROCR_VISIBLE_DEVICES");
	CHECK(near_miss("HIP_VISIBLE_DEVICE") == "HIP_VISIBLE_DEVICES");
	CHECK(near_miss("HSA_XNAK") == "HSA_XNACK");
	// Real names, the per-node override form, no-op table names and far names are not misses.
	CHECK(near_miss("HSA_OVERRIDE_GFX_VERSION") == std::nullopt);
	CHECK(near_miss("HSA_OVERRIDE_GFX_VERSION_1") == std::nullopt);
	CHECK(near_miss("HSA_OVERRIDE_GFX_VERSION_12") == std::nullopt);
	CHECK(near_miss("CUDA_VISIBLE_DEVICES") == std::nullopt);
	CHECK(near_miss("CUDA_LAUNCH_BLOCKING") == std::nullopt);
	CHECK(near_miss("PYTORCH_ALLOC_CONF") == std::nullopt);
	CHECK(near_miss("HOME") == std::nullopt);
	CHECK(near_miss("XDG_SESSION_TYPE") == std::nullopt);
	CHECK(near_miss("ROCM_HOME") == std::nullopt);
	CHECK(near_miss("HIP_PATH") == std::nullopt);
	CHECK(near_miss(std::string(5000, 'A')) == std::nullopt);
}

TEST_CASE("every known name names its source", "[env][vars]")
{
	std::set<std::string_view> names;
	for (const auto &k : known_vars()) {
		INFO(k.name);
		CHECK(names.insert(k.name).second);
		CHECK(k.source.size() > 10);
		CHECK(near_miss(k.name) == std::nullopt);
	}
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
