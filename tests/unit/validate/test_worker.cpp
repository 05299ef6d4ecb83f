// The case runner (worker.hpp) with the real rdnactl as its worker: cases run
// in order in ONE worker process; a case whose worker crashes, hangs, writes
// garbage, exits silently or writes an endless result fails alone, with its
// own output, and the cases after it run in a fresh worker.
#include <catch2/catch_test_macros.hpp>

#include <csignal>

#include "core/text_safe.hpp"
#include "worker.hpp"

using namespace rdnafix::validate;

namespace {

struct Run {
	std::vector<CaseResult> results;
	int workers = 0;
};

Run run_cases(const std::vector<std::string> &names, double timeout = 30, double grace = 1)
{
	ValidateOptions o;
	o.cases = names;
	o.timeout = timeout;
	o.grace = grace;
	CaseRunner runner(o, RDNACTL_PATH);
	Run r;
	for (const auto *c : select_named(names))
		r.results.push_back(runner.run(*c));
	r.workers = runner.workers_started();
	runner.stop();
	return r;
}

} // namespace

TEST_CASE("worker: cases that end well share one worker process", "[worker]")
{
	const auto r = run_cases({"selftest.pass", "selftest.fail", "selftest.pass"});
	REQUIRE(r.results.size() == 3);
	REQUIRE(r.results[0].status == Status::pass);
	REQUIRE(r.results[1].status == Status::fail);
	REQUIRE(r.results[2].status == Status::pass);
	REQUIRE(r.results[0].max_abs.has_value()); // the figures came through the worker's replies
	REQUIRE(r.results[1].name == "selftest.fail");
	REQUIRE(r.workers == 1);
}

TEST_CASE("worker: a crash in case k fails only case k; k+1.. run in a fresh worker", "[worker]")
{
	const auto r =
		run_cases({"selftest.pass", "selftest.segv", "selftest.pass", "selftest.abort", "selftest.pass"});
	REQUIRE(r.results.size() == 5);
	REQUIRE(r.results[0].status == Status::pass);
	REQUIRE(r.results[1].status == Status::crash);
	REQUIRE(r.results[1].reason.find("signal 11 (SIGSEGV)") != std::string::npos);
	REQUIRE(r.results[2].status == Status::pass);
	REQUIRE(r.results[3].status == Status::crash);
	REQUIRE(r.results[3].reason.find("SIGABRT") != std::string::npos);
	REQUIRE(r.results[4].status == Status::pass);
	REQUIRE(r.workers == 3); // the first, and one after each crash
}

TEST_CASE("worker: a hang hits its own deadline; the next case runs in a fresh worker", "[worker]")
{
	const auto r =
		run_cases({"selftest.hang", "selftest.pass", "selftest.hang-ignore-term", "selftest.pass"}, 1, 1);
	REQUIRE(r.results[0].status == Status::hang);
	REQUIRE(r.results[0].reason.find("1 s timeout") != std::string::npos);
	REQUIRE(r.results[0].reason.find("SIGKILL") == std::string::npos); // SIGTERM was enough
	REQUIRE(r.results[0].seconds >= 1.0);
	REQUIRE(r.results[0].seconds < 4.0);
	REQUIRE(r.results[1].status == Status::pass);
	REQUIRE(r.results[2].status == Status::hang);
	REQUIRE(r.results[2].reason.find("SIGTERM and then SIGKILL") != std::string::npos);
	REQUIRE(r.results[2].seconds >= 2.0);
	REQUIRE(r.results[3].status == Status::pass);
	REQUIRE(r.workers == 3);
}

TEST_CASE("worker: garbage, a silent exit and an endless result are errors of that case alone", "[worker]")
{
	const auto r = run_cases(
		{"selftest.garbage", "selftest.pass", "selftest.silent-exit", "selftest.big-result", "selftest.pass"},
		60);
	REQUIRE(r.results[0].status == Status::error);
	REQUIRE(r.results[0].reason.find("unusable result") != std::string::npos);
	REQUIRE(r.results[1].status == Status::pass);
	REQUIRE(r.results[2].status == Status::error);
	REQUIRE(r.results[2].reason.find("status 3 without writing a result") != std::string::npos);
	REQUIRE(r.results[3].status == Status::error);
	REQUIRE(r.results[3].reason.find("more than 1048576 bytes of result") != std::string::npos);
	REQUIRE(r.results[3].seconds < 10); // killed at the cap, not at the 60 s deadline
	REQUIRE(r.results[4].status == Status::pass);
	REQUIRE(r.workers == 4);
}

TEST_CASE("worker: each case keeps its own output; text that is not UTF-8 is made valid", "[worker]")
{
	const auto r = run_cases({"selftest.non-utf8", "selftest.segv"});
	const auto &bad = r.results[0];
	INFO(bad.reason << " | " << bad.output_tail);
	REQUIRE(bad.status == Status::fail); // before the fix: the child died in the JSON encoder (crash)
	REQUIRE(bad.reason.find("\xef\xbf\xbd") != std::string::npos);
	REQUIRE(bad.output_tail.find("output ") != std::string::npos);
	REQUIRE(rdnafix::core::utf8_valid(bad.output_tail) == bad.output_tail);
	REQUIRE(nlohmann::json(bad).dump().size() > 0);
	REQUIRE(r.results[1].status == Status::crash);
	REQUIRE(r.results[1].output_tail.find("output ") == std::string::npos); // not the previous case's
}

TEST_CASE("worker: a worker that cannot be started fails each case with the reason", "[worker]")
{
	ValidateOptions o;
	o.timeout = 5;
	CaseRunner runner(o, "/nonexistent/rdnactl-worker");
	const auto r = runner.run(*find_case("selftest.pass"));
	REQUIRE(r.status == Status::error);
	REQUIRE(r.reason.find("exit 127") != std::string::npos);
	REQUIRE(r.output_tail.find("exec of the case child failed") != std::string::npos);
}

TEST_CASE("worker: the quick selection asks for quick transfer sweeps, --full and named cases for full ones",
	  "[worker]")
{
	const CaseDef &t = *find_case("transfer.pinned");
	ValidateOptions o;
	REQUIRE(case_request(t, o).quick);
	o.full = true;
	REQUIRE_FALSE(case_request(t, o).quick);
	o.full = false;
	o.cases = {"transfer.pinned"};
	REQUIRE_FALSE(case_request(t, o).quick);
	o.quick = true;
	REQUIRE(case_request(t, o).quick);
	REQUIRE(transfer_sizes(false).back() == (std::size_t(64) << 20));
	REQUIRE(transfer_sizes(true).back() == (std::size_t(1) << 30));
}
