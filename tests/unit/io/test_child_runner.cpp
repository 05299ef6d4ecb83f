// io::run_child and io::run_in_fork with real processes: what the child wrote
// on fd 3 and to stdout/stderr, exit status, signals, the watchdog (SIGTERM,
// then SIGKILL after the grace period), exec failure; and the forked function
// that returns, crashes or hangs.
#include <catch2/catch_test_macros.hpp>

#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>

#include <unistd.h>

#include "io/child_runner.hpp"
#include "io/unique_fd.hpp"

using namespace rdnafix::io;

namespace {

ChildOutcome sh(const std::string &script, double timeout = 20, double grace = 1)
{
	return run_child(ChildSpec{"/bin/sh", {"-c", script}, timeout, grace});
}

} // namespace

TEST_CASE("run_child: the result pipe is fd 3, output is kept apart, the exit status is reported", "[io][child]")
{
	const auto o = sh("printf '{\"a\":1}' >&3; echo to-stdout; echo to-stderr >&2; exit 4");
	REQUIRE(o.started);
	REQUIRE(o.exited);
	REQUIRE(o.exit_code == 4);
	REQUIRE_FALSE(o.signaled);
	REQUIRE_FALSE(o.timed_out);
	REQUIRE(o.result == "{\"a\":1}");
	REQUIRE(o.output_tail == "to-stdout\nto-stderr\n");
}

TEST_CASE("run_child: only the last output_tail_bytes of the output are kept", "[io][child]")
{
	ChildSpec spec{"/bin/sh", {"-c", "i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done"}, 20, 1};
	spec.output_tail_bytes = 64;
	const auto o = run_child(spec);
	REQUIRE(o.exited);
	REQUIRE(o.output_tail.size() == 64);
	REQUIRE(o.output_tail.ends_with("line1999\n"));
}

TEST_CASE("run_child: a child killed by a signal is reported as signaled", "[io][child]")
{
	const auto o = sh("kill -SEGV $$");
	REQUIRE(o.started);
	REQUIRE(o.signaled);
	REQUIRE(o.signal == SIGSEGV);
	REQUIRE_FALSE(o.exited);
}

TEST_CASE("run_child: the watchdog sends SIGTERM at the timeout", "[io][child]")
{
	const auto o = sh("exec sleep 30", 1.0, 5.0);
	REQUIRE(o.timed_out);
	REQUIRE_FALSE(o.needed_kill);
	REQUIRE(o.signaled);
	REQUIRE(o.signal == SIGTERM);
	REQUIRE(o.seconds >= 1.0);
	REQUIRE(o.seconds < 4.0);
}

TEST_CASE("run_child: a child ignoring SIGTERM gets SIGKILL after the grace period", "[io][child]")
{
	const auto o = sh("trap '' TERM; while :; do sleep 0.1; done", 1.0, 1.0);
	REQUIRE(o.timed_out);
	REQUIRE(o.needed_kill);
	REQUIRE(o.signal == SIGKILL);
	REQUIRE(o.seconds >= 2.0);
	REQUIRE(o.seconds < 5.0);
}

TEST_CASE("run_child: an executable that cannot be run exits 127 with a message", "[io][child]")
{
	const auto o = run_child(ChildSpec{"/nonexistent/rdnactl-child", {}, 5.0, 1.0});
	REQUIRE(o.started);
	REQUIRE(o.exited);
	REQUIRE(o.exit_code == 127);
	REQUIRE(o.result.empty());
	REQUIRE(o.output_tail.find("exec of the case child failed") != std::string::npos);
}

TEST_CASE("run_in_fork: the function's return value comes back", "[io][fork]")
{
	const auto o = run_in_fork(10, [] { return std::string("value\0with nul", 14); });
	REQUIRE(o.started);
	REQUIRE(o.exited);
	REQUIRE(o.exit_code == 0);
	REQUIRE(o.result == std::string("value\0with nul", 14));
}

TEST_CASE("run_in_fork: a crash in the function ends only the child", "[io][fork]")
{
	// A handler the parent installed must not run in the child (it is reset to the default there).
	const auto old = std::signal(SIGABRT, [](int) { _exit(42); });
	const auto o = run_in_fork(10, []() -> std::string { std::abort(); });
	std::signal(SIGABRT, old);
	REQUIRE(o.signaled);
	REQUIRE(o.signal == SIGABRT);
	REQUIRE(o.result.empty());
}

TEST_CASE("run_in_fork: a function that hangs is killed at the timeout", "[io][fork]")
{
	const auto o = run_in_fork(1, []() -> std::string {
		for (;;)
			std::this_thread::sleep_for(std::chrono::seconds(1));
	});
	REQUIRE(o.timed_out);
	REQUIRE(o.signaled);
	REQUIRE(o.signal == SIGKILL);
	REQUIRE(o.seconds >= 1.0);
	REQUIRE(o.seconds < 4.0);
}

TEST_CASE("write_all writes everything through a pipe", "[io]")
{
	int p[2];
	REQUIRE(::pipe(p) == 0);
	unique_fd rd(p[0]), wr(p[1]);
	const std::string data(10000, 'x');
	REQUIRE(write_all(wr.get(), data));
	wr.reset();
	std::string got;
	char buf[4096];
	for (ssize_t n; (n = ::read(rd.get(), buf, sizeof buf)) > 0;)
		got.append(buf, std::size_t(n));
	REQUIRE(got == data);
	REQUIRE_FALSE(write_all(-1, "x"));
}
