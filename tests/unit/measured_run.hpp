#pragma once
// A program run with a wall-clock limit, its output (stdout and stderr into
// one temporary file), and what it cost: wall seconds and peak RSS (wait4's
// ru_maxrss of that child alone).  Header-only, for the tests that pin time
// and memory (status and history against large and hostile history databases).
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace rdnafix::test {

struct MeasuredRun {
	bool timed_out = false; // killed at the limit
	int exit_code = -1;     // -1 when killed by a signal
	std::string out;        // stdout and stderr, in the order written
	double seconds = 0;
	double peak_rss_mib = 0;
};

inline MeasuredRun run_measured(const std::string &exe, const std::vector<std::string> &args, double timeout_s)
{
	char tmpl[] = "/tmp/rdnafix-measured-XXXXXX";
	const int fd = ::mkstemp(tmpl);
	if (fd < 0)
		throw std::runtime_error("mkstemp failed");
	::unlink(tmpl);
	std::vector<std::string> argv_s{exe};
	argv_s.insert(argv_s.end(), args.begin(), args.end());
	std::vector<char *> argv;
	for (auto &a : argv_s)
		argv.push_back(a.data());
	argv.push_back(nullptr);
	const auto t0 = std::chrono::steady_clock::now();
	const pid_t pid = ::fork();
	if (pid == 0) {
		::dup2(fd, 1);
		::dup2(fd, 2);
		::execv(exe.c_str(), argv.data());
		::_exit(127);
	}
	MeasuredRun m;
	int status = 0;
	struct rusage ru {};
	for (;;) {
		const pid_t r = ::wait4(pid, &status, WNOHANG, &ru);
		if (r == pid)
			break;
		if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > timeout_s) {
			::kill(pid, SIGKILL);
			::wait4(pid, &status, 0, &ru);
			m.timed_out = true;
			break;
		}
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	m.peak_rss_mib = double(ru.ru_maxrss) / 1024.0; // KiB on Linux
	m.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	::lseek(fd, 0, SEEK_SET);
	char buf[65536];
	for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
		m.out.append(buf, std::size_t(n));
	::close(fd);
	return m;
}

} // namespace rdnafix::test
