// The real rdnactl across two stacks: validate records the stack of each run,
// and `rdnactl history` (text and --json) names the environment variable that
// changed between them, as on a machine where a user copied
// HSA_OVERRIDE_GFX_VERSION=10.3.0 from a guide.  The selftest cases need no GPU.
#include <catch2/catch_test_macros.hpp>

#include <filesystem>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "io/child_runner.hpp"

using rdnafix::io::ChildSpec;
using rdnafix::io::run_child;

namespace {

struct Out {
	int rc = -1;
	std::string out;
};

// stdout only; `env` is a prefix of the command ("env -u NAME", "NAME=value").
Out sh(const std::string &env, const std::string &args)
{
	ChildSpec spec{"/bin/sh", {"-c", env + " " + std::string(RDNACTL_PATH) + " " + args + " 2>/dev/null"}, 120, 2};
	spec.output_tail_bytes = 1 << 22;
	const auto o = run_child(spec);
	REQUIRE(o.exited);
	return {o.exit_code, o.output_tail};
}

struct TempDir {
	std::string path;
	TempDir()
	{
		char tmpl[] = "/tmp/rdnafix-cli-stack-XXXXXX";
		REQUIRE(::mkdtemp(tmpl));
		path = tmpl;
	}
	~TempDir() { std::filesystem::remove_all(path); }
};

bool has(const std::string &text, const std::string &what)
{
	return text.find(what) != std::string::npos;
}

} // namespace

TEST_CASE("history names the environment variable that changed between two validate runs", "[cli][history][stack]")
{
	TempDir d;
	const std::string db = "--history-db " + d.path + "/h.db";
	const std::string unset = "env -u HSA_OVERRIDE_GFX_VERSION -u HSA_OVERRIDE_GFX_VERSION_1";
	REQUIRE(sh(unset, "validate --case selftest.pass " + db).rc == 0);
	REQUIRE(sh(unset, "validate --case selftest.pass " + db).rc == 0); // same stack: nothing to say
	REQUIRE(sh("HSA_OVERRIDE_GFX_VERSION=10.3.0", "validate --case selftest.pass " + db).rc == 0);

	// The selftest cases' CPU GFLOP/s vary from run to run: --threshold 1 leaves
	// only status changes (a drop of more than 100 % cannot happen).
	const auto text = sh("", "history --threshold 1 " + db);
	INFO(text.out);
	CHECK(text.rc == 0);
	CHECK(has(text.out, "what changed (each run against the run before it on its device):\n"));
	CHECK(has(text.out, ", after run 2): env.HSA_OVERRIDE_GFX_VERSION unset \u2192 10.3.0; everything else "
			    "equal: no case changed\n"));
	CHECK_FALSE(has(text.out, "after run 1)")); // runs 1 and 2 share a stack
	CHECK(has(text.out, "no regressions\n"));

	const auto js = sh("", "history --json --threshold 1 " + db);
	CHECK(js.rc == 0);
	const auto j = nlohmann::json::parse(js.out);
	REQUIRE(j["runs"].size() == 3);
	CHECK(j["runs"][0]["stack_key"] == j["runs"][1]["stack_key"]);
	CHECK(j["runs"][1]["stack_key"] != j["runs"][2]["stack_key"]);
	CHECK(j["runs"][2]["stack"]["env.HSA_OVERRIDE_GFX_VERSION"] == "10.3.0");
	CHECK_FALSE(j["runs"][1]["stack"].contains("env.HSA_OVERRIDE_GFX_VERSION"));
	CHECK(j["runs"][2]["stack"].contains("kernel"));
	CHECK(j["runs"][2]["stack_recorded"] == true);
	CHECK(j["runs"][2]["verdict"] == "pass");
	REQUIRE(j["comparisons"].size() == 1);
	const auto &c = j["comparisons"][0];
	CHECK(c["run"] == 3);
	CHECK(c["against"] == 2);
	CHECK(c["same_stack"] == false);
	CHECK(c["changes"] ==
	      nlohmann::json::array({{{"name", "env.HSA_OVERRIDE_GFX_VERSION"}, {"from", nullptr}, {"to", "10.3.0"}}}));
	CHECK(c["cases"].empty());
	CHECK(j["regressions"].empty());
}
