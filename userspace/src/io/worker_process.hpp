#pragma once
// io::WorkerProcess: a long-lived child that answers requests one at a time
// (validate's case worker; validate/worker.hpp decides what to ask).
//
// The child is started like a run_child() child (io/child_spawn.hpp: own
// process group, dies with rdnactl, fd 3 result pipe, output pipe) and reads
// requests from fd 0, one line each.  After each request it writes its reply
// on fd 3 followed by one NUL byte (kReplyEnd; JSON text never holds one).
// ask() sends one request and waits at most `timeout_s` for the reply: if the
// child ends first, hangs (SIGTERM, `grace_s`, SIGKILL) or writes more than
// kResultCapBytes, the outcome says so exactly as run_child() would for a
// one-shot child, and the worker is gone (alive() is false): start another.
// Output (stdout+stderr) is attributed to the request that was in flight.
#include <optional>
#include <string>
#include <vector>

#include "io/child_runner.hpp"

namespace rdnafix::io {

inline constexpr char kReplyEnd = '\0';

class WorkerProcess {
public:
	WorkerProcess(std::string exe, std::vector<std::string> args, std::size_t output_tail_bytes = 4096);
	~WorkerProcess(); // stop()
	WorkerProcess(const WorkerProcess &) = delete;
	WorkerProcess &operator=(const WorkerProcess &) = delete;

	// Starts the child when none is alive; false (and start_error()) when it cannot.
	bool start();
	bool alive() const { return pid_ > 0; }
	const std::string &start_error() const { return start_error_; }
	int starts() const { return starts_; } // how many children were started so far

	// One request (no newline in it) -> one outcome.  A reply ends the
	// request with exited = true, exit_code = 0 and the reply in `result`.
	ChildOutcome ask(const std::string &request, double timeout_s, double grace_s);

	// Ends the child: closes its request channel, waits up to `grace_s`, then SIGKILL.
	void stop(double grace_s = 2);

private:
	void reap(ChildOutcome *o, int status);

	std::string exe_;
	std::vector<std::string> args_;
	std::size_t tail_bytes_;
	Spawned ch_;
	pid_t pid_ = -1;
	std::optional<ForwardSignals> forward_;
	std::string start_error_;
	int starts_ = 0;
};

} // namespace rdnafix::io
