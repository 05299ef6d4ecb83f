#include "io/worker_process.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <thread>

#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace rdnafix::io {

namespace {

using Clock = ChildClock;

// false when the worker's end is gone (it died): the caller then sees its exit status.
bool send_all(int fd, std::string_view data)
{
	while (!data.empty()) {
		const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		data.remove_prefix(std::size_t(n));
	}
	return true;
}

} // namespace

WorkerProcess::WorkerProcess(std::string exe, std::vector<std::string> args, std::size_t output_tail_bytes)
    : exe_(std::move(exe)), args_(std::move(args)), tail_bytes_(output_tail_bytes)
{
}

WorkerProcess::~WorkerProcess()
{
	stop();
}

bool WorkerProcess::start()
{
	if (alive())
		return true;
	ch_ = spawn_child(exe_, args_, true);
	if (ch_.pid < 0) {
		start_error_ = ch_.error;
		return false;
	}
	pid_ = ch_.pid;
	forward_.emplace(pid_);
	++starts_;
	return true;
}

void WorkerProcess::reap(ChildOutcome *o, int status)
{
	::kill(-pid_, SIGKILL); // leftovers of the group
	if (WIFEXITED(status)) {
		o->exited = true;
		o->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		o->signaled = true;
		o->signal = WTERMSIG(status);
	}
	forward_.reset();
	ch_ = Spawned{};
	pid_ = -1;
}

ChildOutcome WorkerProcess::ask(const std::string &request, double timeout_s, double grace_s)
{
	ChildOutcome o;
	if (!start()) {
		o.start_error = start_error_;
		return o;
	}
	o.started = true;
	const auto t0 = Clock::now();
	send_all(ch_.requests.get(), request + "\n"); // a dead worker shows below as its exit status

	GroupDeadline watch(pid_, t0 + child_seconds(timeout_s), grace_s);
	bool res_open = true, out_open = true, replied = false;
	int status = 0;
	std::string output;
	for (;;) {
		std::array<pollfd, 2> pf{
			{{res_open ? ch_.result.get() : -1, POLLIN, 0}, {out_open ? ch_.output.get() : -1, POLLIN, 0}}};
		::poll(pf.data(), pf.size(), 50);
		const std::size_t seen = o.result.size();
		if (res_open) // the cap counts the reply's end marker too
			res_open = drain_capped(ch_.result.get(), &o.result, kResultCapBytes + 1, &o.result_over_cap);
		if (out_open)
			out_open = drain_tail(ch_.output.get(), &output, tail_bytes_);
		if (const auto end = o.result.find(kReplyEnd, seen); end != std::string::npos) {
			o.result.resize(end);
			o.result_over_cap = false;
			replied = true;
			break;
		}
		watch.check_cap(o.result_over_cap);
		if (::waitpid(pid_, &status, WNOHANG) == pid_)
			break;
		watch.check_clock(&o.timed_out, &o.needed_kill);
	}
	// Output written before the reply or the end is in the pipe by now.
	if (out_open)
		drain_tail(ch_.output.get(), &output, tail_bytes_);
	if (replied) {
		o.exited = true;
		o.exit_code = 0;
	} else {
		if (res_open)
			drain_capped(ch_.result.get(), &o.result, kResultCapBytes, &o.result_over_cap);
		reap(&o, status);
	}
	o.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
	if (output.size() > tail_bytes_)
		output.erase(0, output.size() - tail_bytes_);
	o.output_tail = std::move(output);
	return o;
}

void WorkerProcess::stop(double grace_s)
{
	if (!alive())
		return;
	ch_.requests.reset(); // EOF on the worker's fd 0: it exits
	const auto until = Clock::now() + child_seconds(grace_s);
	int status = 0;
	pid_t r = 0;
	while ((r = ::waitpid(pid_, &status, WNOHANG)) == 0 && Clock::now() < until)
		std::this_thread::sleep_for(std::chrono::milliseconds(5));
	if (r == 0) {
		::kill(-pid_, SIGKILL);
		while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
		}
	}
	ChildOutcome ignored;
	reap(&ignored, status);
}

} // namespace rdnafix::io
