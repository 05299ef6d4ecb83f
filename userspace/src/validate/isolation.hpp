#pragma once
// Running one case in a child process with a watchdog.
//
// run_child() (I/O) starts `exe args...` in its own process group with the
// result pipe on fd 3 and stdout+stderr on a second pipe, waits at most
// `timeout_s`, then sends SIGTERM to the group, waits `grace_s`, then SIGKILL.
// classify_child() (pure) turns what happened into a CaseResult: a signal is a
// crash, the watchdog firing is a hang, a missing or unparsable result is an
// error -- each a result of that case, never the end of rdnactl.
#include <string>
#include <vector>

#include "result.hpp"

namespace rdnafix::validate {

inline constexpr int kResultFd = 3;

struct ChildSpec {
	std::string exe;               // absolute path (e.g. /proc/self/exe resolved)
	std::vector<std::string> args; // argv[1..]
	double timeout_s = 120;
	double grace_s = 5;
	std::size_t output_tail_bytes = 4096;
};

struct ChildOutcome {
	bool started = false;    // fork/exec worked (exec failure shows as exit 127 + message)
	std::string start_error; // when !started
	bool exited = false;
	int exit_code = 0;
	bool signaled = false;
	int signal = 0;
	bool timed_out = false;   // the watchdog fired
	bool needed_kill = false; // SIGTERM was not enough
	std::string result;       // everything written to fd 3
	std::string output_tail;  // last output_tail_bytes of stdout+stderr
	double seconds = 0;
};

ChildOutcome run_child(const ChildSpec &spec);
CaseResult classify_child(const std::string &name, const ChildOutcome &o, double timeout_s);

// The path of the running executable (readlink /proc/self/exe).
std::string self_exe();

} // namespace rdnafix::validate
