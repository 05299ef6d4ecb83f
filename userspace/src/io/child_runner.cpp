#include "io/child_runner.hpp"

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

using Clock = std::chrono::steady_clock;

// The child of run_child() runs in its own process group, so a Ctrl-C on
// rdnactl does not reach it; while a child runs, SIGINT/SIGTERM/SIGHUP to
// rdnactl kill the child's group first, then rdnactl dies of the same signal.
volatile sig_atomic_t g_child_group = 0;

extern "C" void forward_and_die(int sig)
{
	if (g_child_group > 0)
		::kill(-pid_t(g_child_group), SIGKILL);
	::signal(sig, SIG_DFL);
	::raise(sig);
}

class ForwardSignals {
public:
	explicit ForwardSignals(pid_t group)
	{
		g_child_group = group;
		struct sigaction sa {};
		sa.sa_handler = forward_and_die;
		sigemptyset(&sa.sa_mask);
		for (std::size_t i = 0; i < std::size(sigs_); ++i)
			::sigaction(sigs_[i], &sa, &old_[i]);
	}
	~ForwardSignals()
	{
		for (std::size_t i = 0; i < std::size(sigs_); ++i)
			::sigaction(sigs_[i], &old_[i], nullptr);
		g_child_group = 0;
	}
	ForwardSignals(const ForwardSignals &) = delete;
	ForwardSignals &operator=(const ForwardSignals &) = delete;

private:
	static constexpr int sigs_[3] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction old_[3]{};
};

bool make_pipe(unique_fd *r, unique_fd *w)
{
	int p[2];
	if (::pipe2(p, O_CLOEXEC) != 0)
		return false;
	r->reset(p[0]);
	w->reset(p[1]);
	return true;
}

// Drains what is readable now; returns false at EOF.
bool drain(int fd, std::string *into, std::size_t keep_tail)
{
	std::array<char, 65536> buf;
	for (;;) {
		const ssize_t n = ::read(fd, buf.data(), buf.size());
		if (n > 0) {
			into->append(buf.data(), std::size_t(n));
			if (keep_tail && into->size() > 2 * keep_tail)
				into->erase(0, into->size() - keep_tail);
			continue;
		}
		if (n == 0)
			return false;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK;
	}
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

Clock::duration seconds(double s)
{
	return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
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
	unique_fd res_r, res_w, out_r, out_w;
	if (!make_pipe(&res_r, &res_w) || !make_pipe(&out_r, &out_w)) {
		o.start_error = std::string("pipe2: ") + std::strerror(errno);
		return o;
	}
	std::vector<std::string> argv_s;
	argv_s.push_back(spec.exe);
	argv_s.insert(argv_s.end(), spec.args.begin(), spec.args.end());
	std::vector<char *> argv;
	for (auto &a : argv_s)
		argv.push_back(a.data());
	argv.push_back(nullptr);

	const auto t0 = Clock::now();
	const pid_t pid = ::fork();
	if (pid < 0) {
		o.start_error = std::string("fork: ") + std::strerror(errno);
		return o;
	}
	if (pid == 0) {
		// child: only async-signal-safe calls until exec
		::setpgid(0, 0);
		const int r = ::fcntl(res_w.get(), F_DUPFD, 10);
		const int w = ::fcntl(out_w.get(), F_DUPFD, 10);
		if (r < 0 || w < 0 || ::dup2(r, kResultFd) < 0 || ::dup2(w, 1) < 0 || ::dup2(w, 2) < 0)
			::_exit(126);
		::close(r);
		::close(w);
		const int devnull = ::open("/dev/null", O_RDONLY);
		if (devnull >= 0) {
			::dup2(devnull, 0);
			::close(devnull);
		}
		::signal(SIGPIPE, SIG_DFL);
		::execv(spec.exe.c_str(), argv.data());
		const char msg[] = "rdnactl: exec of the case child failed\n";
		[[maybe_unused]] auto ignored = ::write(2, msg, sizeof msg - 1);
		::_exit(127);
	}
	::setpgid(pid, pid); // also from the parent: no race with the first kill
	const ForwardSignals forward(pid);
	o.started = true;
	res_w.reset();
	out_w.reset();
	::fcntl(res_r.get(), F_SETFL, O_NONBLOCK);
	::fcntl(out_r.get(), F_SETFL, O_NONBLOCK);

	const auto deadline = t0 + seconds(spec.timeout_s);
	auto kill_at = Clock::time_point::max();
	bool res_open = true, out_open = true;
	int status = 0;
	std::string output;
	for (;;) {
		std::array<pollfd, 2> pf{
			{{res_open ? res_r.get() : -1, POLLIN, 0}, {out_open ? out_r.get() : -1, POLLIN, 0}}};
		::poll(pf.data(), pf.size(), 50);
		if (res_open)
			res_open = drain(res_r.get(), &o.result, 0);
		if (out_open)
			out_open = drain(out_r.get(), &output, spec.output_tail_bytes);
		if (::waitpid(pid, &status, WNOHANG) == pid)
			break;
		const auto now = Clock::now();
		if (!o.timed_out && now >= deadline) {
			o.timed_out = true;
			::kill(-pid, SIGTERM);
			kill_at = now + seconds(spec.grace_s);
		} else if (o.timed_out && !o.needed_kill && now >= kill_at) {
			o.needed_kill = true;
			::kill(-pid, SIGKILL);
		}
	}
	// Whatever the child wrote before it ended (grandchildren may keep the pipes open: do not wait for EOF).
	if (res_open)
		drain(res_r.get(), &o.result, 0);
	if (out_open)
		drain(out_r.get(), &output, spec.output_tail_bytes);
	if (o.timed_out)
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
		o.start_error = std::string("pipe: ") + std::strerror(errno);
		return o;
	}
	const auto t0 = Clock::now();
	const pid_t pid = ::fork();
	if (pid < 0) {
		o.start_error = std::string("fork: ") + std::strerror(errno);
		return o;
	}
	if (pid == 0) {
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
	const auto deadline = t0 + seconds(timeout_s);
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
