// Isolation: the real rdnactl binary runs hidden selftest cases as internal
// children (`rdnactl __child case <request>`, protocol.hpp) that crash, abort,
// hang, ignore SIGTERM, write garbage or exit silently.  The parent (this test,
// through io::run_child/classify_child, and rdnactl itself in test_cli.cpp)
// must survive and report each one, within the timeout.
#include <catch2/catch_test_macros.hpp>

#include <csignal>

#include "isolation.hpp"
#include "protocol.hpp"

using namespace rdnafix::validate;
using rdnafix::io::ChildOutcome;
using rdnafix::io::ChildSpec;
using rdnafix::io::run_child;

namespace {

// argv of the internal child that runs case `name` with default options.
std::vector<std::string> case_args(const std::string &name)
{
	CaseRequest r;
	r.case_name = name;
	return child_args(r);
}

CaseResult run_case(const std::string &name, double timeout = 20, double grace = 1)
{
	ChildSpec spec;
	spec.exe = RDNACTL_PATH;
	spec.args = case_args(name);
	spec.timeout_s = timeout;
	spec.grace_s = grace;
	return classify_child(name, run_child(spec), timeout);
}

} // namespace

TEST_CASE("a passing child reports its figures through the result pipe", "[isolation]")
{
	const auto r = run_case("selftest.pass");
	INFO(r.reason << r.output_tail);
	REQUIRE(r.status == Status::pass);
	REQUIRE(r.max_abs.has_value());
	REQUIRE(r.gflops.has_value());
	REQUIRE(r.details["dtype"] == "f32");
}

TEST_CASE("a child killed by SIGSEGV is a crash result", "[isolation]")
{
	const auto r = run_case("selftest.segv");
	REQUIRE(r.status == Status::crash);
	REQUIRE(r.reason.find("signal 11 (SIGSEGV)") != std::string::npos);
}

TEST_CASE("an aborting child is a crash result with SIGABRT", "[isolation]")
{
	const auto r = run_case("selftest.abort");
	REQUIRE(r.status == Status::crash);
	REQUIRE(r.reason.find("SIGABRT") != std::string::npos);
}

TEST_CASE("a hanging child is stopped by SIGTERM at the timeout", "[isolation]")
{
	ChildSpec spec{RDNACTL_PATH, case_args("selftest.hang"), 1.0, 5.0};
	const auto o = run_child(spec);
	REQUIRE(o.timed_out);
	REQUIRE_FALSE(o.needed_kill);
	REQUIRE(o.signaled);
	REQUIRE(o.signal == SIGTERM);
	REQUIRE(o.seconds >= 1.0);
	REQUIRE(o.seconds < 4.0);
	const auto r = classify_child("selftest.hang", o, 1.0);
	REQUIRE(r.status == Status::hang);
	REQUIRE(r.reason.find("1 s timeout") != std::string::npos);
}

TEST_CASE("a child that ignores SIGTERM is killed with SIGKILL after the grace period", "[isolation]")
{
	ChildSpec spec{RDNACTL_PATH, case_args("selftest.hang-ignore-term"), 1.0, 1.0};
	const auto o = run_child(spec);
	REQUIRE(o.timed_out);
	REQUIRE(o.needed_kill);
	REQUIRE(o.signal == SIGKILL);
	REQUIRE(o.seconds >= 2.0);
	REQUIRE(o.seconds < 5.0);
	const auto r = classify_child("x", o, 1.0);
	REQUIRE(r.status == Status::hang);
	REQUIRE(r.reason.find("SIGKILL") != std::string::npos);
}

TEST_CASE("garbage on the result pipe is an error result, not a pass", "[isolation]")
{
	const auto r = run_case("selftest.garbage");
	REQUIRE(r.status == Status::error);
	REQUIRE(r.reason.find("unusable result") != std::string::npos);
}

TEST_CASE("a child that exits without a result is an error result naming the exit status", "[isolation]")
{
	const auto r = run_case("selftest.silent-exit");
	REQUIRE(r.status == Status::error);
	REQUIRE(r.reason.find("status 3 without writing a result") != std::string::npos);
}

TEST_CASE("a child that cannot be executed is an error result", "[isolation]")
{
	ChildSpec spec{"/nonexistent/rdnactl-child", {}, 5.0, 1.0};
	const auto r = classify_child("x", run_child(spec), 5.0);
	REQUIRE(r.status == Status::error);
	REQUIRE(r.reason.find("exit 127") != std::string::npos);
	REQUIRE(r.output_tail.find("exec of the case child failed") != std::string::npos);
}

TEST_CASE("classify_child: a reported pass with a non-zero exit is not a pass", "[isolation]")
{
	ChildOutcome o;
	o.started = true;
	o.exited = true;
	o.exit_code = 4;
	o.result = R"({"status":"pass","max_abs":0.5})";
	const auto r = classify_child("c", o, 10);
	REQUIRE(r.status == Status::error);
	REQUIRE(r.max_abs == 0.5);
	o.exit_code = 0;
	REQUIRE(classify_child("c", o, 10).status == Status::pass);
	o.result = R"({"status":"great"})";
	REQUIRE(classify_child("c", o, 10).reason.find("'great' is not one of") != std::string::npos);
}

TEST_CASE("a child that writes an endless result is killed at the cap; rdnactl keeps at most the cap", "[isolation]")
{
	// 32 MiB on the result pipe, then no end: before the cap rdnactl held all of it until the timeout.
	ChildSpec spec{"/bin/sh", {"-c", "head -c 33554432 /dev/zero >&3; sleep 60"}, 20, 1};
	const auto o = run_child(spec);
	REQUIRE(o.result.size() <= rdnafix::io::kResultCapBytes);
	REQUIRE(o.result_over_cap);
	REQUIRE(o.seconds < 10);
	REQUIRE_FALSE(o.timed_out);
	const auto r = classify_child("x", o, 20);
	REQUIRE(r.status == Status::error);
	REQUIRE(r.reason.find("more than 1048576 bytes of result") != std::string::npos);
}

TEST_CASE("a one-shot case child's reply with text that is not UTF-8 is made valid, not a crash", "[isolation]")
{
	const auto r = run_case("selftest.non-utf8");
	INFO(r.reason << r.output_tail);
	REQUIRE(r.status == Status::fail);
	REQUIRE(r.reason == "a reason with \xef\xbf\xbd( invalid bytes \xef\xbf\xbd");
	REQUIRE(r.output_tail.find("output \xef\xbf\xbd\xef\xbf\xbd not UTF-8") != std::string::npos);
}
