#include "isolation.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

namespace rdnafix::validate {

namespace {

using Clock = std::chrono::steady_clock;

// The case child runs in its own process group, so a Ctrl-C on rdnactl does not
// reach it; while a child runs, SIGINT/SIGTERM/SIGHUP to rdnactl kill the child's
// group first, then rdnactl dies of the same signal.
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

class Fd {
public:
	Fd() = default;
	explicit Fd(int fd) : fd_(fd) {}
	Fd(Fd &&o) noexcept : fd_(o.release()) {}
	Fd &operator=(Fd &&o) noexcept
	{
		reset(o.release());
		return *this;
	}
	Fd(const Fd &) = delete;
	Fd &operator=(const Fd &) = delete;
	~Fd() { reset(); }
	int get() const { return fd_; }
	int release()
	{
		int f = fd_;
		fd_ = -1;
		return f;
	}
	void reset(int f = -1)
	{
		if (fd_ >= 0)
			::close(fd_);
		fd_ = f;
	}

private:
	int fd_ = -1;
};

bool make_pipe(Fd *r, Fd *w)
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

} // namespace

std::string self_exe()
{
	std::array<char, 4096> buf{};
	const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
	return n > 0 ? std::string(buf.data(), std::size_t(n)) : std::string("/proc/self/exe");
}

ChildOutcome run_child(const ChildSpec &spec)
{
	ChildOutcome o;
	Fd res_r, res_w, out_r, out_w;
	if (!make_pipe(&res_r, &res_w) || !make_pipe(&out_r, &out_w)) {
		o.start_error = fmt::format("pipe2: {}", std::strerror(errno));
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
		o.start_error = fmt::format("fork: {}", std::strerror(errno));
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

	const auto deadline =
		t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.timeout_s));
	auto kill_at = Clock::time_point::max();
	bool res_open = true, out_open = true, reaped = false;
	int status = 0;
	std::string output;
	while (!reaped) {
		std::array<pollfd, 2> pf{
			{{res_open ? res_r.get() : -1, POLLIN, 0}, {out_open ? out_r.get() : -1, POLLIN, 0}}};
		::poll(pf.data(), pf.size(), 50);
		if (res_open)
			res_open = drain(res_r.get(), &o.result, 0);
		if (out_open)
			out_open = drain(out_r.get(), &output, spec.output_tail_bytes);
		const pid_t w = ::waitpid(pid, &status, WNOHANG);
		if (w == pid) {
			reaped = true;
			break;
		}
		const auto now = Clock::now();
		if (!o.timed_out && now >= deadline) {
			o.timed_out = true;
			::kill(-pid, SIGTERM);
			kill_at = now + std::chrono::duration_cast<Clock::duration>(
						std::chrono::duration<double>(spec.grace_s));
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
	if (WIFEXITED(status)) {
		o.exited = true;
		o.exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		o.signaled = true;
		o.signal = WTERMSIG(status);
	}
	return o;
}

CaseResult classify_child(const std::string &name, const ChildOutcome &o, double timeout_s)
{
	CaseResult r;
	r.name = name;
	r.seconds = o.seconds;
	r.output_tail = o.output_tail;
	if (!o.started) {
		r.status = Status::error;
		r.reason = "could not start the case child: " + o.start_error;
		return r;
	}
	// The child's own report, when it is usable, carries the figures.
	std::string parse_error;
	std::optional<CaseResult> reported;
	if (!o.result.empty()) {
		try {
			reported = case_from_json(nlohmann::json::parse(o.result));
		} catch (const std::exception &e) {
			parse_error = e.what();
		}
	}
	if (reported) {
		const auto keep_output = r.output_tail;
		r = std::move(*reported);
		r.name = name;
		r.seconds = o.seconds;
		r.output_tail = keep_output;
	}
	if (o.timed_out) {
		r.status = Status::hang;
		r.reason = fmt::format("no result within the {:g} s timeout; the watchdog sent SIGTERM{}", timeout_s,
				       o.needed_kill ? " and then SIGKILL" : "");
		return r;
	}
	if (o.signaled) {
		r.status = Status::crash;
		r.reason = fmt::format("the case process was killed by signal {} ({})", o.signal,
				       sigabbrev_np(o.signal) ? fmt::format("SIG{}", sigabbrev_np(o.signal))
							      : std::string("unknown"));
		return r;
	}
	if (o.exit_code == 127 && o.result.empty()) {
		r.status = Status::error;
		r.reason = "the case child could not be executed (exit 127)";
		return r;
	}
	if (!reported) {
		r.status = Status::error;
		r.reason = o.result.empty()
				   ? fmt::format("the case process exited with status {} without writing a result",
						 o.exit_code)
				   : fmt::format("the case process exited with status {} and wrote an unusable result "
						 "({}): '{}'",
						 o.exit_code, parse_error, o.result.substr(0, 80));
		return r;
	}
	if (o.exit_code != 0 && r.status == Status::pass) {
		r.status = Status::error;
		r.reason = fmt::format("the case reported pass but its process exited with status {}", o.exit_code);
	}
	return r;
}

} // namespace rdnafix::validate
