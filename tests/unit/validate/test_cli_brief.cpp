// The real rdnactl, twice and more against one temporary history, on this
// machine (which has no GPU runtime; on one that has, the cases run): the
// first --if-stack-changed --brief run records the stack with its verdict;
// the second says "unchanged" and records nothing; a changed
// HSA_OVERRIDE_GFX_VERSION (part of the stack) is a new stack, named in the line.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <filesystem>
#include <regex>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "io/child_runner.hpp"

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;

namespace {

struct Out {
	int rc = -1;
	std::string text; // stdout + stderr
};

// rdnactl ARGS with HSA_OVERRIDE_GFX_VERSION set to `override` (empty: unset).
Out rdnactl(const std::string &override, std::vector<std::string> args)
{
	rdnafix::io::ChildSpec spec;
	spec.exe = "/usr/bin/env";
	spec.args = override.empty() ? std::vector<std::string>{"-u", "HSA_OVERRIDE_GFX_VERSION"}
				     : std::vector<std::string>{"HSA_OVERRIDE_GFX_VERSION=" + override};
	spec.args.push_back(RDNACTL_PATH);
	spec.args.insert(spec.args.end(), args.begin(), args.end());
	spec.timeout_s = 600;
	spec.output_tail_bytes = 1 << 20;
	const auto o = rdnafix::io::run_child(spec);
	REQUIRE(o.exited);
	return {o.exit_code, o.output_tail};
}

std::size_t runs_in(const std::string &db)
{
	const auto o = rdnactl("", {"history", "--json", "--history-db", db});
	return nlohmann::json::parse(o.text)["runs"].size();
}

} // namespace

TEST_CASE("validate --if-stack-changed --brief: records once per stack, one line each time", "[cli]")
{
	char tmpl[] = "/tmp/rdnafix-brief-XXXXXX";
	REQUIRE(::mkdtemp(tmpl));
	const std::string dir = tmpl, db = dir + "/state/history.db";
	const std::vector<std::string> svc = {"validate", "--quick",      "--if-stack-changed",
					      "--brief",  "--history-db", db};
	// the verdict: "not run: <reason>" here, "N passed, M failed" on a machine with a GPU runtime
	const std::regex verdict("(not run: [^;]+|[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?)");
	const auto one_line = [](const std::string &t) { return !t.empty() && t.find('\n') == t.size() - 1; };

	auto first = rdnactl("", svc);
	INFO(first.text);
	CHECK(one_line(first.text));
	CHECK((first.rc == 0 || first.rc == 1 || first.rc == 2));
	std::smatch m;
	CHECK(std::regex_match(first.text,
			       std::regex("rdnafix validate: first recorded stack: .*; recorded as run 1\n")));
	CHECK(std::regex_search(first.text, m, verdict));
	REQUIRE(runs_in(db) == 1);
	const auto h1 = nlohmann::json::parse(rdnactl("", {"history", "--json", "--history-db", db}).text)["runs"][0];
	CHECK(h1["stack_recorded"] == true);
	CHECK_FALSE(h1["stack"].contains("env.HSA_OVERRIDE_GFX_VERSION"));
	if (first.rc == 2) { // not run, and recorded as such with the reason the line gives
		CHECK(h1["verdict"] == "not_run");
		const std::string reason = h1["not_run"];
		CHECK_FALSE(reason.empty());
		CHECK_THAT(first.text, ContainsSubstring("not run: "));
	}

	auto second = rdnactl("", svc);
	INFO(second.text);
	CHECK(second.rc == 0);
	CHECK_THAT(second.text, StartsWith("rdnafix validate: stack unchanged since run 1 ("));
	CHECK_THAT(second.text, ContainsSubstring("): not run\n"));
	CHECK(one_line(second.text));
	CHECK(runs_in(db) == 1);

	auto changed = rdnactl("10.3.0", svc);
	INFO(changed.text);
	CHECK(one_line(changed.text));
	CHECK_THAT(changed.text, StartsWith("rdnafix validate: new stack ("));
	CHECK_THAT(changed.text, ContainsSubstring("env.HSA_OVERRIDE_GFX_VERSION"));
	CHECK_THAT(changed.text, ContainsSubstring("10.3.0"));
	CHECK_THAT(changed.text, ContainsSubstring("; recorded as run 2\n"));
	CHECK(runs_in(db) == 2);
	const auto h2 = nlohmann::json::parse(rdnactl("", {"history", "--json", "--history-db", db}).text)["runs"][1];
	CHECK(h2["stack"]["env.HSA_OVERRIDE_GFX_VERSION"] == "10.3.0");
	CHECK(rdnactl("10.3.0", svc).rc == 0); // that stack is now the last one

	// Without --if-stack-changed it runs anyway and says it is the same stack; --no-history records nothing.
	auto again = rdnactl("10.3.0", {"validate", "--quick", "--brief", "--no-history", "--history-db", db});
	INFO(again.text);
	CHECK_THAT(again.text, StartsWith("rdnafix validate: same stack as run 2: "));
	CHECK_THAT(again.text, ContainsSubstring("; not recorded\n"));
	CHECK(runs_in(db) == 2);

	auto both = rdnactl("", {"validate", "--brief", "--json", "--no-history"});
	CHECK(both.rc == 2);
	CHECK_THAT(both.text, ContainsSubstring("--brief"));
	std::filesystem::remove_all(dir);
}
