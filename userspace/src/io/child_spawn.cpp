#include "io/child_spawn.hpp"
#include "io/errno_text.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace rdnafix::io {

namespace {

// Child groups that a fatal signal to rdnactl must take down first: one-shot
// children (run_child) and the case worker can be alive at the same time.
constexpr int kSlots = 8;
volatile sig_atomic_t g_groups[kSlots] = {};
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
struct sigaction g_old[std::size(kForwarded)];
bool g_installed[std::size(kForwarded)] = {};
int g_live = 0;                          // ForwardSignals/DeferSignals alive (handlers installed while > 0)
int g_defer = 0;                         // DeferSignals alive
volatile sig_atomic_t g_deferred = 0;    // the last deferred signal
volatile sig_atomic_t g_defer_count = 0; // signals deferred so far

extern "C" void kill_groups_and_die(int sig)
{
	for (int i = 0; i < kSlots; ++i)
		if (g_groups[i] > 0)
			::kill(-pid_t(g_groups[i]), SIGKILL);
	if (g_defer > 0) {
		g_deferred = sig;
		g_defer_count = g_defer_count + 1;
		return;
	}
	::signal(sig, SIG_DFL);
	::raise(sig);
}

void install_handlers()
{
	if (g_live++ != 0)
		return;
	struct sigaction sa {};
	sa.sa_handler = kill_groups_and_die;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (std::size_t i = 0; i < std::size(kForwarded); ++i) {
		// A signal ignored when rdnactl started (nohup, a background job) stays ignored.
		g_installed[i] = ::sigaction(kForwarded[i], nullptr, &g_old[i]) == 0 &&
				 g_old[i].sa_handler != SIG_IGN && ::sigaction(kForwarded[i], &sa, nullptr) == 0;
	}
}

void remove_handlers()
{
	if (--g_live == 0)
		for (std::size_t i = 0; i < std::size(kForwarded); ++i)
			if (g_installed[i])
				::sigaction(kForwarded[i], &g_old[i], nullptr);
}

bool make_pipe(unique_fd *r, unique_fd *w)
{
	int p[2];
	if (::pipe2(p, O_CLOEXEC) != 0)
		return false;
	r->reset(p[0]);
	w->reset(p[1]);
	return true;
}

} // namespace

void die_with_parent(pid_t parent)
{
	::prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (::getppid() != parent)
		::_exit(126);
}

ForwardSignals::ForwardSignals(pid_t group)
{
	for (int i = 0; i < kSlots; ++i)
		if (g_groups[i] == 0) {
			g_groups[i] = group;
			slot_ = i;
			break;
		}
	install_handlers();
}

ForwardSignals::~ForwardSignals()
{
	remove_handlers();
	if (slot_ >= 0)
		g_groups[slot_] = 0;
}

DeferSignals::DeferSignals()
{
	if (g_defer++ == 0)
		g_deferred = 0;
	install_handlers();
}

DeferSignals::~DeferSignals()
{
	remove_handlers();
	--g_defer;
}

int deferred_signal()
{
	return g_deferred;
}

unsigned deferred_count()
{
	return unsigned(g_defer_count);
}

Spawned spawn_child(const std::string &exe, const std::vector<std::string> &args, bool want_requests)
{
	Spawned s;
	unique_fd res_w, out_w, req_child;
	if (!make_pipe(&s.result, &res_w) || !make_pipe(&s.output, &out_w)) {
		s.error = std::string("pipe2: ") + errno_text(errno);
		return s;
	}
	if (want_requests) {
		int sv[2];
		if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
			s.error = std::string("socketpair: ") + errno_text(errno);
			return s;
		}
		s.requests.reset(sv[0]);
		req_child.reset(sv[1]);
	}
	std::vector<std::string> argv_s;
	argv_s.push_back(exe);
	argv_s.insert(argv_s.end(), args.begin(), args.end());
	std::vector<char *> argv;
	for (auto &a : argv_s)
		argv.push_back(a.data());
	argv.push_back(nullptr);

	const pid_t parent = ::getpid();
	const pid_t pid = ::fork();
	if (pid < 0) {
		s.error = std::string("fork: ") + errno_text(errno);
		return s;
	}
	if (pid == 0) {
		// child: only async-signal-safe calls until exec
		die_with_parent(parent);
		::setpgid(0, 0);
		const int r = ::fcntl(res_w.get(), F_DUPFD, 10);
		const int w = ::fcntl(out_w.get(), F_DUPFD, 10);
		const int in = req_child ? ::fcntl(req_child.get(), F_DUPFD, 10) : ::open("/dev/null", O_RDONLY);
		if (r < 0 || w < 0 || in < 0 || ::dup2(r, kResultFd) < 0 || ::dup2(w, 1) < 0 || ::dup2(w, 2) < 0 ||
		    ::dup2(in, 0) < 0)
			::_exit(126);
		::close(r);
		::close(w);
		::close(in);
		::signal(SIGPIPE, SIG_DFL);
		::execv(exe.c_str(), argv.data());
		const char msg[] = "rdnactl: exec of the case child failed\n";
		[[maybe_unused]] auto ignored = ::write(2, msg, sizeof msg - 1);
		::_exit(127);
	}
	::setpgid(pid, pid); // also from the parent: no race with the first kill
	s.pid = pid;
	::fcntl(s.result.get(), F_SETFL, O_NONBLOCK);
	::fcntl(s.output.get(), F_SETFL, O_NONBLOCK);
	return s;
}

bool drain_tail(int fd, std::string *into, std::size_t keep_tail)
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

bool drain_capped(int fd, std::string *into, std::size_t cap, bool *over)
{
	std::array<char, 65536> buf;
	for (;;) {
		const ssize_t n = ::read(fd, buf.data(), buf.size());
		if (n > 0) {
			const std::size_t room = into->size() < cap ? cap - into->size() : 0;
			into->append(buf.data(), std::min(room, std::size_t(n)));
			if (std::size_t(n) > room)
				*over = true;
			continue;
		}
		if (n == 0)
			return false;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK;
	}
}

ChildClock::duration child_seconds(double s)
{
	return std::chrono::duration_cast<ChildClock::duration>(std::chrono::duration<double>(s));
}

void GroupDeadline::check_cap(bool result_over_cap)
{
	if (result_over_cap && !cap_killed_) {
		cap_killed_ = true;
		::kill(-group_, SIGKILL);
	}
}

void GroupDeadline::check_clock(bool *timed_out, bool *needed_kill)
{
	const auto now = ChildClock::now();
	if (!*timed_out && now >= deadline_) {
		*timed_out = true;
		::kill(-group_, SIGTERM);
		kill_at_ = now + child_seconds(grace_s_);
	} else if (*timed_out && !*needed_kill && now >= kill_at_) {
		*needed_kill = true;
		::kill(-group_, SIGKILL);
	}
}

} // namespace rdnafix::io
