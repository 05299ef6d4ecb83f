// --if-stack-changed and --brief, pure: the stack against the last recorded
// run (check_stack), the words of the one line, and the line itself.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "run_brief.hpp"

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix::validate;

namespace {

Stack stack(std::initializer_list<std::pair<const char *, const char *>> facts)
{
	Stack s;
	for (const auto &[n, v] : facts)
		s.set(n, v);
	return s;
}

StoredRun run(std::int64_t id, const Stack &s, const char *at = "2026-11-24T10:00:00Z")
{
	StoredRun r;
	r.id = id;
	r.info.stack = s;
	r.info.started_at = at;
	return r;
}

CaseResult result(const char *name, Status st)
{
	CaseResult r;
	r.name = name;
	r.status = st;
	return r;
}

} // namespace

TEST_CASE("brief: no history is the first recorded stack")
{
	const auto c = check_stack({}, stack({{"kernel", "6.1.0-28-amd64"}}));
	CHECK_FALSE(c.last);
	CHECK_FALSE(c.same);
	CHECK(brief_line(c, "not run: " + not_run_text("no_runtime"), 1) ==
	      "rdnafix validate: first recorded stack: not run: no GPU runtime; recorded as run 1");
}

TEST_CASE("brief: the last run decides, not any run on the same stack")
{
	const Stack a = stack({{"kernel", "6.1.0-28-amd64"}, {"env.HSA_OVERRIDE_GFX_VERSION", "10.3.0"}});
	const Stack b = stack({{"kernel", "6.12.57+deb12-amd64"}, {"env.HSA_OVERRIDE_GFX_VERSION", "10.3.0"}});
	const std::vector<StoredRun> runs = {run(1, a), run(2, b, "2026-11-24T11:00:00Z")};

	const auto same = check_stack(runs, b);
	REQUIRE(same.last);
	CHECK(same.last->id == 2);
	CHECK(same.same);
	CHECK(same.changes.empty());
	CHECK(unchanged_line(*same.last) ==
	      "rdnafix validate: stack unchanged since run 2 (2026-11-24T11:00:00Z): not run");
	CHECK(brief_line(same, "3 passed, 0 failed", 3) ==
	      "rdnafix validate: same stack as run 2: 3 passed, 0 failed; recorded as run 3");

	// Back to the stack of run 1: new against the last run (2).
	const auto back = check_stack(runs, a);
	CHECK_FALSE(back.same);
	REQUIRE(back.changes.size() == 1);
	CHECK(back.changes[0].name == "kernel");
	const auto line = brief_line(back, results_text({result("a", Status::pass), result("b", Status::crash)}), 3);
	CHECK(line == "rdnafix validate: new stack (" + back.changes[0].describe() +
			      "): 1 passed, 1 failed; recorded as run 3");
	CHECK_THAT(line, ContainsSubstring("6.12.57+deb12-amd64 → 6.1.0-28-amd64"));
}

TEST_CASE("brief: a run recorded before stacks were is never the same stack")
{
	StoredRun legacy = run(4, stack({{"kernel", "6.1.0-28-amd64"}}));
	legacy.stack_legacy = true;
	const auto c = check_stack({legacy}, stack({{"kernel", "6.1.0-28-amd64"}, {"hip", "6.2.41133"}}));
	CHECK_FALSE(c.same);
	CHECK_THAT(brief_line(c, "not run: x", std::nullopt),
		   ContainsSubstring("new stack (run 4 recorded only the kernel and parameters)"));
	CHECK_THAT(brief_line(c, "not run: x", std::nullopt), ContainsSubstring("; not recorded"));
}

TEST_CASE("brief: at most three changes are named, the rest counted")
{
	const Stack before = stack({{"a", "1"}, {"b", "1"}, {"c", "1"}, {"d", "1"}, {"e", "1"}});
	const Stack after = stack({{"a", "2"}, {"b", "2"}, {"c", "2"}, {"d", "2"}, {"e", "2"}});
	const auto changes = diff_stacks(before, after);
	REQUIRE(changes.size() == 5);
	const auto d = describe_changes(changes);
	CHECK_THAT(d, ContainsSubstring(changes[2].describe()));
	CHECK_THAT(d, !ContainsSubstring(changes[3].describe()));
	CHECK_THAT(d, ContainsSubstring(" and 2 more"));
	CHECK(describe_changes(changes, 5).find("more") == std::string::npos);
}

TEST_CASE("brief: verdict words")
{
	CHECK(results_text({}) == "0 passed, 0 failed");
	CHECK(results_text({result("a", Status::pass), result("b", Status::skip), result("c", Status::hang),
			    result("d", Status::fail)}) == "1 passed, 2 failed, 1 skipped");
	CHECK(not_run_text("probe_failed") == "probing the GPU runtime failed");
	CHECK(not_run_text("runtime_no_device") == "the GPU runtime sees no device");
	// an unknown (stored, hostile) word is shown, made terminal-safe
	CHECK(not_run_text("new_reason") == "new_reason");
	CHECK(not_run_text("x\x1b[2Jy").find('\x1b') == std::string::npos);
}
