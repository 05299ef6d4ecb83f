#include "io/child_runner.hpp"
#include "io/errno_text.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/unique_fd.hpp"

namespace rdnafix::io {

namespace {

using Clock = ChildClock;

bool make_pipe(unique_fd *r, unique_fd *w)
{
	int p[2];
	if (::pipe2(p, O_CLOEXEC) != 0)
		return false;
	r->reset(p[0]);
	w->reset(p[1]);
	return true;
}

std::string tail(std::string s, std::size_t n)
{
	if (s.size() > n)
		s.erase(0, s.size() - n);
	return s;
}

void set_status(ChildOutcome *o, int status)
{
	if (WIFEXITED(status)) {
		o->exited = true;
		o->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		o->signaled = true;
		o->signal = WTERMSIG(status);
	}
}

} // namespace

bool write_all(int fd, std::string_view data)
{
	while (!data.empty()) {
		const ssize_t n = ::write(fd, data.data(), data.size());
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		data.remove_prefix(std::size_t(n));
	}
	return true;
}

std::string self_exe()
{
	std::array<char, 4096> buf{};
	const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
	return n > 0 ? std::string(buf.data(), std::size_t(n)) : std::string("/proc/self/exe");
}

ChildOutcome run_child(const ChildSpec &spec)
{
	ChildOutcome o;
	const auto t0 = Clock::now();
	Spawned ch = spawn_child(spec.exe, spec.args, false);
	if (ch.pid < 0) {
		o.start_error = ch.error;
		return o;
	}
	const pid_t pid = ch.pid;
	const unsigned signals_before = deferred_count();
	const ForwardSignals forward(pid);
	o.started = true;

	GroupDeadline watch(pid, t0 + child_seconds(spec.timeout_s), spec.grace_s);
	bool res_open = true, out_open = true;
	int status = 0;
	std::string output;
	for (;;) {
		std::array<pollfd, 2> pf{
			{{res_open ? ch.result.get() : -1, POLLIN, 0}, {out_open ? ch.output.get() : -1, POLLIN, 0}}};
		::poll(pf.data(), pf.size(), 50);
		if (res_open)
			res_open = drain_capped(ch.result.get(), &o.result, spec.result_cap_bytes, &o.result_over_cap);
		if (out_open)
			out_open = drain_tail(ch.output.get(), &output, spec.output_tail_bytes);
		watch.check_cap(o.result_over_cap);
		if (deferred_count() != signals_before && !o.interrupted_by) {
			o.interrupted_by = deferred_signal(); // the handler killed the group; also one it missed
			::kill(-pid, SIGKILL);
		}
		if (::waitpid(pid, &status, WNOHANG) == pid)
			break;
		watch.check_clock(&o.timed_out, &o.needed_kill);
	}
	// Whatever the child wrote before it ended (grandchildren may keep the pipes open: do not wait for EOF).
	if (res_open)
		drain_capped(ch.result.get(), &o.result, spec.result_cap_bytes, &o.result_over_cap);
	if (out_open)
		drain_tail(ch.output.get(), &output, spec.output_tail_bytes);
	if (o.timed_out || o.result_over_cap)
		::kill(-pid, SIGKILL); // leftovers of the group
	o.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
	o.output_tail = tail(std::move(output), spec.output_tail_bytes);
	set_status(&o, status);
	return o;
}

ChildOutcome run_in_fork(double timeout_s, const std::function<std::string()> &fn)
{
	ChildOutcome o;
	unique_fd rd, wr;
	if (!make_pipe(&rd, &wr)) {
		o.start_error = std::string("pipe: ") + errno_text(errno);
		return o;
	}
	const auto t0 = Clock::now();
	const pid_t parent = ::getpid();
	const pid_t pid = ::fork();
	if (pid < 0) {
		o.start_error = std::string("fork: ") + errno_text(errno);
		return o;
	}
	if (pid == 0) {
		die_with_parent(parent);
		rd.reset();
		// The function's crash must end this child plainly: drop any handlers
		// the parent installed (test frameworks, crash reporters).
		for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGTERM, SIGINT})
			::signal(sig, SIG_DFL);
		write_all(wr.get(), fn());
		::_exit(0);
	}
	o.started = true;
	wr.reset();
	const auto deadline = t0 + child_seconds(timeout_s);
	for (;;) {
		const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
		if (left.count() <= 0) {
			o.timed_out = true;
			break;
		}
		pollfd pfd{rd.get(), POLLIN, 0};
		const int r = ::poll(&pfd, 1, int(std::min<long long>(left.count(), 1000)));
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			continue;
		std::array<char, 65536> buf;
		const ssize_t n = ::read(rd.get(), buf.data(), buf.size());
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		o.result.append(buf.data(), std::size_t(n));
	}
	rd.reset();
	if (o.timed_out)
		::kill(pid, SIGKILL);
	int status = 0;
	while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
	o.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
	set_status(&o, status);
	return o;
}

} // namespace rdnafix::io
