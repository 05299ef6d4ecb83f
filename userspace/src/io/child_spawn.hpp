#pragma once
// io::child_spawn: the parts every child of rdnactl shares (io/child_runner.cpp
// for one-shot children, io/worker_process.cpp for the long-lived case worker).
//
// spawn_child() forks and execs `exe args...` in a new process group, with
//   fd 0: /dev/null, or one end of a socket pair (the request channel),
//   fd 1+2: one output pipe, fd 3 (kResultFd): the result pipe,
// and PR_SET_PDEATHSIG(SIGKILL) set right after the fork (checked against a
// parent that already died), so a child never outlives rdnactl.
// ForwardSignals: while one lives, SIGINT/SIGTERM/SIGHUP/SIGQUIT to rdnactl
// first SIGKILL every registered child group, then rdnactl dies of the signal
// (a signal that was ignored when rdnactl started stays ignored).
// DeferSignals: while one lives, those signals still kill the registered
// child groups, but rdnactl itself lives on: the signal is remembered
// (deferred_signal()) for the caller to stop, roll back and exit
// (rdnactl config: a Ctrl-C during update-initramfs must not leave half a
// transaction).
// drain_tail()/drain_capped(): non-blocking reads that keep at most a bounded
// number of bytes (the tail of the output; the head of the result).
// GroupDeadline: the kill schedule of one watched child group.
#include <chrono>
#include <csignal>
#include <cstddef>
#include <string>
#include <vector>

#include <sys/types.h>

#include "io/unique_fd.hpp"

namespace rdnafix::io {

// The descriptor on which a child writes its result.
inline constexpr int kResultFd = 3;
// At most this much of a child's result is kept; a child that writes more is
// killed and its result marked as over the limit (results are a few KiB).
inline constexpr std::size_t kResultCapBytes = std::size_t(1) << 20;

struct Spawned {
	pid_t pid = -1;     // also the process group id; -1 when the start failed
	std::string error;  // why the start failed ("pipe2: ...", "fork: ...")
	unique_fd requests; // the parent's end of the request channel (want_requests only)
	unique_fd result;   // read end of fd 3, non-blocking
	unique_fd output;   // read end of stdout+stderr, non-blocking
};

// Exec failure shows as exit 127 with a message on the output pipe.
Spawned spawn_child(const std::string &exe, const std::vector<std::string> &args, bool want_requests);

// In a child right after fork(): die with the parent (SIGKILL), also when the
// parent died before this call (getppid() is no longer `parent`).  Async-signal-safe.
void die_with_parent(pid_t parent);

class ForwardSignals {
public:
	explicit ForwardSignals(pid_t group);
	~ForwardSignals();
	ForwardSignals(const ForwardSignals &) = delete;
	ForwardSignals &operator=(const ForwardSignals &) = delete;

private:
	int slot_ = -1;
};

class DeferSignals {
public:
	DeferSignals();
	~DeferSignals();
	DeferSignals(const DeferSignals &) = delete;
	DeferSignals &operator=(const DeferSignals &) = delete;
};
// The last signal deferred since the outermost DeferSignals began (0: none).
int deferred_signal();
// How many signals were deferred so far (a child started before a change
// of this count was stopped by it).
unsigned deferred_count();

// Reads what is readable now from a non-blocking fd; false at EOF or on an error.
// drain_tail keeps only about the last `keep_tail` bytes in *into (0: all).
bool drain_tail(int fd, std::string *into, std::size_t keep_tail);
// drain_capped keeps the first `cap` bytes and discards the rest, setting *over.
bool drain_capped(int fd, std::string *into, std::size_t cap, bool *over);

using ChildClock = std::chrono::steady_clock;

// `s` seconds as a ChildClock duration.
ChildClock::duration child_seconds(double s);

// The kill schedule of one watched child group, advanced once per poll round:
// SIGTERM to the group at the deadline, SIGKILL `grace_s` later, and SIGKILL
// at once when its result went over the cap (an endless result gets no grace).
class GroupDeadline {
public:
	GroupDeadline(pid_t group, ChildClock::time_point deadline, double grace_s)
	    : group_(group), deadline_(deadline), grace_s_(grace_s)
	{
	}
	// SIGKILL once when the result went over its cap (checked before reaping).
	void check_cap(bool result_over_cap);
	// The clock (checked after a reap found the child still running): sets
	// *timed_out at the deadline and *needed_kill when the grace ran out too.
	void check_clock(bool *timed_out, bool *needed_kill);

private:
	pid_t group_;
	ChildClock::time_point deadline_;
	ChildClock::time_point kill_at_ = ChildClock::time_point::max();
	double grace_s_;
	bool cap_killed_ = false;
};

} // namespace rdnafix::io
