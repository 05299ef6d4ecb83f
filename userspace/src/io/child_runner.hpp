#pragma once
// io::child_runner: the one place rdnactl starts and watches child processes.
//
// run_child() starts `exe args...` in its own process group with a result
// pipe on fd 3 (kResultFd) and stdout+stderr on a second pipe, waits at most
// `timeout_s`, then sends SIGTERM to the group, waits `grace_s`, then SIGKILL.
// The child dies with rdnactl (PR_SET_PDEATHSIG, io/child_spawn.hpp); of its
// result at most result_cap_bytes are kept, a child that writes more is killed.
// run_in_fork() forks the calling process and runs a function in the child
// (for code that may abort or crash the process, e.g. a run-time compiler);
// what the function returns comes back through a pipe.  Both report what
// happened in one ChildOutcome; deciding what it means is the caller's job
// (validate/isolation.hpp: classify_child).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "io/child_spawn.hpp"

namespace rdnafix::io {

struct ChildSpec {
	std::string exe;               // absolute path (e.g. self_exe())
	std::vector<std::string> args; // argv[1..]
	double timeout_s = 120;
	double grace_s = 5;
	std::size_t output_tail_bytes = 4096;
	std::size_t result_cap_bytes = kResultCapBytes;
};

struct ChildOutcome {
	bool started = false;    // fork/exec worked (exec failure shows as exit 127 + message)
	std::string start_error; // when !started
	bool exited = false;
	int exit_code = 0;
	bool signaled = false;
	int signal = 0;
	bool timed_out = false;       // the watchdog fired
	bool needed_kill = false;     // SIGTERM was not enough (run_child only)
	bool result_over_cap = false; // wrote more than result_cap_bytes: killed, result holds the first bytes
	int interrupted_by = 0;       // under DeferSignals: the signal to rdnactl that stopped the child
	std::string result;           // everything written to the result channel (fd 3 / the fork pipe)
	std::string output_tail;      // last output_tail_bytes of stdout+stderr (run_child only)
	double seconds = 0;
};

// Never throws for a child that misbehaves: a crash, a hang or a failed exec
// is described in the outcome.  While the child runs, SIGINT/SIGTERM/SIGHUP/
// SIGQUIT to this process kill the child's group first, then this process dies
// of the same signal (under DeferSignals it lives on: interrupted_by).
ChildOutcome run_child(const ChildSpec &spec);

// Forks; the child resets the crash signals (SIGSEGV, SIGABRT, SIGBUS, SIGILL,
// SIGFPE, SIGTERM, SIGINT) to their defaults, runs `fn`, writes its return
// value to the pipe and exits 0.  At `timeout_s` the child is killed with
// SIGKILL (timed_out).  The child shares this process group.
ChildOutcome run_in_fork(double timeout_s, const std::function<std::string()> &fn);

// Writes all of `data` (retrying short writes and EINTR); false on an error.
bool write_all(int fd, std::string_view data);

// The path of the running executable (readlink /proc/self/exe).
std::string self_exe();

} // namespace rdnafix::io
