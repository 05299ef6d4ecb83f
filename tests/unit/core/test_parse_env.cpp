// Environment files, environ, HSA_OVERRIDE_GFX_VERSION, *_VISIBLE_DEVICES.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "core/parse.hpp"

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix::core;

TEST_CASE("env file: assignments, export, quotes, comments", "[parse][env]")
{
	auto e = parse_env_file(
		"# audited environment\n"
		"HSA_OVERRIDE_GFX_VERSION=10.3.0\n"
		"export PYTORCH_HIP_ALLOC_CONF=\"expandable_segments:True,garbage_collection_threshold:0.8\"\n"
		"HIP_VISIBLE_DEVICES='0'   # the dGPU\n"
		"EMPTY=\n"
		"ESC=\"a \\\"quoted\\\" \\$HOME\"\n"
		"CONCAT=a\"b c\"'d'\n"
		"HSA_OVERRIDE_GFX_VERSION=11.0.0\n");
	CHECK(e.problems.empty());
	CHECK(e.get("HSA_OVERRIDE_GFX_VERSION") == "11.0.0"); // last assignment wins in a file
	CHECK(e.get("PYTORCH_HIP_ALLOC_CONF") == "expandable_segments:True,garbage_collection_threshold:0.8");
	CHECK(e.get("HIP_VISIBLE_DEVICES") == "0");
	CHECK(e.get("EMPTY") == "");
	CHECK(e.get("ESC") == "a \"quoted\" $HOME");
	CHECK(e.get("CONCAT") == "ab cd");
	CHECK(e.get("MISSING") == std::nullopt);
	CHECK(e.vars.size() == 7);
	CHECK(e.vars[1].line == 3);
}

TEST_CASE("env file: commands are skipped, broken assignments reported", "[parse][env]")
{
	// No relevance filter: every name counts.  "not an assignment" and
	// "1BAD=x" are commands to a shell (skipped silently); "B=two words"
	// sets B for the command "words"; the unterminated quote ends the parse.
	auto e = parse_env_file("not an assignment\n1BAD=x\nB=two words\nD=a:1, b:2\nC=ok\nA=\"unterminated\nE=1\n");
	CHECK(e.get("B") == "two");
	CHECK(e.get("C") == "ok");
	CHECK(e.get("D") == "a:1,");
	CHECK(e.get("E") == std::nullopt);
	REQUIRE(e.problems.size() == 2);
	CHECK_THAT(e.problems[0], ContainsSubstring("line 4: D: the value ends at the space before 'b:2'"));
	CHECK_THAT(e.problems[1], ContainsSubstring("line 6: unterminated quote"));
}

TEST_CASE("environ: NUL separated, first one wins", "[parse][env]")
{
	const std::string raw(
		"HOME=/root\0HSA_OVERRIDE_GFX_VERSION=10.3.0\0NOEQUALS\0HSA_OVERRIDE_GFX_VERSION=11.0.0\0", 84);
	auto e = parse_environ(raw);
	CHECK(e.vars.size() == 3);
	CHECK(e.problems.size() == 1);
	CHECK(e.get("HSA_OVERRIDE_GFX_VERSION") == "10.3.0");
	CHECK(e.get("HOME") == "/root");
}

TEST_CASE("HSA_OVERRIDE_GFX_VERSION values", "[parse][env]")
{
	auto ok = parse_hsa_override("10.3.0");
	REQUIRE(ok.ok());
	CHECK(ok->name() == "gfx1030");
	CHECK(parse_hsa_override("11.5.1")->name() == "gfx1151");
	CHECK(parse_hsa_override("9.0.10")->name() == "gfx90a");
	CHECK(parse_hsa_override("63.255.255").ok());
	CHECK(parse_hsa_override(" 10.3.0")->name() == "gfx1030"); // sscanf %u skips leading blanks, as ROCr
	CHECK(parse_hsa_override("10.+3.0")->name() == "gfx1030");

	struct Bad {
		const char *value;
		const char *why;
	};
	const Bad bad[] = {
		{"gfx1031", "does not accept a gfx name (the dotted form of gfx1031 is 10.3.1)"},
		{"10.3", "it has 2 fields, ROCr needs exactly three"},
		{"10,3,0", "separated by '.', not ','"},
		{"", "it is empty"},
		{"10.3.0 ", "trailing characters"},
		{"10.3.0.1", "more than three fields"},
		{"64.0.0", "major is above 63"},
		{"10.256.0", "at most 255"},
		{"ten.3.0", "unexpected character 't'"},
		{"10", "it has 1 field, ROCr needs exactly three"},
		{"10.3.", "it has 2 fields"},
		{"-10.3.0", "unexpected character '-'"},
		{"10.3.0\n", "trailing characters"},
	};
	for (const auto &b : bad) {
		INFO(b.value);
		auto r = parse_hsa_override(b.value);
		REQUIRE_FALSE(r.ok());
		CHECK_THAT(r.error().message, ContainsSubstring(b.why));
		CHECK_THAT(r.error().message, ContainsSubstring("HSA_OVERRIDE_GFX_VERSION value '"));
		CHECK_THAT(r.error().message, ContainsSubstring("such as 10.3.0 (gfx1030)"));
	}
	CHECK(hsa_override_node("HSA_OVERRIDE_GFX_VERSION_2") == 2u);
	CHECK(hsa_override_node("HSA_OVERRIDE_GFX_VERSION") == std::nullopt);
	CHECK(hsa_override_node("HSA_OVERRIDE_GFX_VERSION_x") == std::nullopt);
}

TEST_CASE("*_VISIBLE_DEVICES lists", "[parse][env]")
{
	auto a = parse_visible_devices("0,1", "HIP_VISIBLE_DEVICES");
	REQUIRE(a.ok());
	REQUIRE(a->devices.size() == 2);
	CHECK(a->devices[1].index == 1u);
	auto u = parse_visible_devices(" GPU-5a7d3e2f8c9b1a04 , 1", "ROCR_VISIBLE_DEVICES");
	REQUIRE(u.ok());
	CHECK(u->devices[0].uuid == "GPU-5a7d3e2f8c9b1a04");
	CHECK_FALSE(u->devices[0].index.has_value());
	auto empty = parse_visible_devices("", "CUDA_VISIBLE_DEVICES");
	REQUIRE(empty.ok());
	CHECK(empty->hides_all());
	auto neg = parse_visible_devices("-1", "CUDA_VISIBLE_DEVICES");
	REQUIRE(neg.ok());
	CHECK(neg->hides_all());
	CHECK(neg->stopped_at == "-1");
	auto partial = parse_visible_devices("1,-1,0", "HIP_VISIBLE_DEVICES");
	REQUIRE(partial.ok());
	CHECK(partial->devices.size() == 1);
	for (const char *bad : {"gpu0", "0,,1", "1.5", "GPU-xyz"}) {
		INFO(bad);
		auto r = parse_visible_devices(bad, "HIP_VISIBLE_DEVICES");
		REQUIRE_FALSE(r.ok());
		CHECK_THAT(r.error().message, ContainsSubstring("HIP_VISIBLE_DEVICES entry '"));
		CHECK_THAT(r.error().message, ContainsSubstring("valid: a comma-separated list"));
	}
}

TEST_CASE("PyTorch allocator config: expandable_segments on", "[parse][env]")
{
	CHECK(alloc_conf_expandable("expandable_segments:True"));
	CHECK(alloc_conf_expandable("max_split_size_mb:128,EXPANDABLE_SEGMENTS:TRUE"));
	CHECK_FALSE(alloc_conf_expandable("expandable_segments:False"));
	CHECK_FALSE(alloc_conf_expandable(""));
}
