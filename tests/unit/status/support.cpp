#include "support.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char **environ;

namespace rdnafix::test {

namespace fs = std::filesystem;

std::vector<std::string> drop_root_prefix()
{
	if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0)
		return {};
	return {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
}

RunResult run_rdnactl(const std::vector<std::string> &args, const std::vector<std::string> &extra_env,
		      const std::vector<std::string> &prefix)
{
	int out[2], err[2];
	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
		throw std::runtime_error("pipe failed");
	std::vector<std::string> argv_s = prefix;
	argv_s.push_back(RDNACTL_PATH);
	argv_s.insert(argv_s.end(), args.begin(), args.end());
	std::vector<char *> argv;
	for (auto &a : argv_s)
		argv.push_back(a.data());
	argv.push_back(nullptr);
	std::vector<std::string> env_s;
	for (char **e = environ; *e; ++e)
		env_s.emplace_back(*e);
	for (const auto &e : extra_env)
		env_s.push_back(e);
	std::vector<char *> envp;
	for (auto &e : env_s)
		envp.push_back(e.data());
	envp.push_back(nullptr);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		execve(argv[0], argv.data(), envp.data());
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	RunResult r;
	pollfd p[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
	int open_fds = 2;
	char buf[65536];
	while (open_fds > 0) {
		if (poll(p, 2, 30000) <= 0)
			break;
		for (int i = 0; i < 2; ++i) {
			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			ssize_t n = read(p[i].fd, buf, sizeof buf);
			if (n <= 0) {
				close(p[i].fd);
				p[i].fd = -1;
				--open_fds;
			} else {
				(i == 0 ? r.out : r.err).append(buf, size_t(n));
			}
		}
	}
	for (auto &x : p)
		if (x.fd >= 0)
			close(x.fd);
	int st = 0;
	waitpid(pid, &st, 0);
	r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return r;
}

TempDir::TempDir()
{
	std::string tmpl = (fs::temp_directory_path() / "rdnactl-test-XXXXXX").string();
	if (!mkdtemp(tmpl.data()))
		throw std::runtime_error("mkdtemp failed");
	p_ = tmpl;
}

TempDir::~TempDir()
{
	std::error_code ec;
	for (auto it = fs::recursive_directory_iterator(p_, fs::directory_options::skip_permission_denied, ec);
	     !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
		if (!it->is_symlink(ec))
			fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
	fs::remove_all(p_, ec);
}

void TempDir::write(const std::string &rel, const std::string &content) const
{
	fs::path f = p_ / rel;
	fs::create_directories(f.parent_path());
	std::ofstream o(f, std::ios::binary);
	o << content;
}

namespace {
void diff(const nlohmann::json &e, const nlohmann::json &a, const std::string &ptr,
	  const std::vector<std::string> &ignore, std::vector<std::string> &out)
{
	for (const auto &i : ignore)
		if (i == ptr)
			return;
	if (e.type() != a.type() && !(e.is_number() && a.is_number())) {
		out.push_back(ptr + ": expected " + e.dump() + ", got " + a.dump());
		return;
	}
	if (e.is_object()) {
		for (auto it = e.begin(); it != e.end(); ++it) {
			if (!a.contains(it.key()))
				out.push_back(ptr + "/" + it.key() + ": missing");
			else
				diff(it.value(), a.at(it.key()), ptr + "/" + it.key(), ignore, out);
		}
		for (auto it = a.begin(); it != a.end(); ++it)
			if (!e.contains(it.key()))
				out.push_back(ptr + "/" + it.key() + ": unexpected " + it.value().dump());
	} else if (e.is_array()) {
		if (e.size() != a.size())
			out.push_back(ptr + ": expected " + std::to_string(e.size()) + " elements, got " +
				      std::to_string(a.size()));
		for (size_t i = 0; i < std::min(e.size(), a.size()); ++i)
			diff(e[i], a[i], ptr + "/" + std::to_string(i), ignore, out);
	} else if (e != a) {
		out.push_back(ptr + ": expected " + e.dump() + ", got " + a.dump());
	}
}
} // namespace

std::vector<std::string> json_diff(const nlohmann::json &expected, const nlohmann::json &actual,
				   const std::vector<std::string> &ignore)
{
	std::vector<std::string> out;
	diff(expected, actual, "", ignore, out);
	return out;
}

std::string read_file(const fs::path &p)
{
	std::ifstream i(p, std::ios::binary);
	std::stringstream s;
	s << i.rdbuf();
	return s.str();
}

} // namespace rdnafix::test
