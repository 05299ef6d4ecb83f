// run_command(): posix_spawnp with a pipe, poll() until EOF or the time limit.
#include "io/process_run.hpp"
#include "io/fs_error.hpp"

#include "io/unique_fd.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char **environ;

namespace rdnafix::io {

CommandResult run_command(const std::vector<std::string> &argv, double timeout_s, std::size_t max_output)
{
	CommandResult r;
	if (argv.empty()) {
		r.start_error = "no command";
		return r;
	}
	int p[2];
	if (::pipe2(p, O_CLOEXEC) != 0) {
		r.start_error = std::string("pipe: ") + errno_text(errno);
		return r;
	}
	unique_fd rd(p[0]), wr(p[1]);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, wr.get(), 1);
	posix_spawn_file_actions_adddup2(&fa, wr.get(), 2);
	std::vector<char *> args;
	for (const auto &a : argv)
		args.push_back(const_cast<char *>(a.c_str()));
	args.push_back(nullptr);
	pid_t pid = 0;
	int e = ::posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e != 0) {
		r.start_error = argv[0] + ": " + errno_text(e);
		return r;
	}
	wr.reset();
	r.started = true;
	const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
	char buf[65536];
	for (;;) {
		auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
										  std::chrono::steady_clock::now());
		if (left.count() <= 0) {
			r.timed_out = true;
			::kill(pid, SIGKILL);
			break;
		}
		pollfd pf{rd.get(), POLLIN, 0};
		int n = ::poll(&pf, 1, int(left.count()));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			continue;
		ssize_t got = ::read(rd.get(), buf, sizeof buf);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (r.output.size() < max_output)
			r.output.append(buf, std::min<std::size_t>(std::size_t(got), max_output - r.output.size()));
	}
	int st = 0;
	while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
	}
	if (WIFEXITED(st))
		r.exit_code = WEXITSTATUS(st);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && r.output.empty()) {
		r.started = false;
		r.start_error = argv[0] + ": not found";
	}
	return r;
}

} // namespace rdnafix::io
