// io::RootWriter against real temporary trees: a forked child killed after
// every step of replace()/remove() (the fault-injection hook) leaves the
// target completely old or completely new and no temp file any reader of
// modprobe.d, initramfs-tools hooks or grub.d would take; writes never leave
// the root; modes and owners; locks.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/child_runner.hpp"

using Catch::Matchers::ContainsSubstring;
using rdnafix::io::RootWriter;
namespace io = rdnafix::io;
namespace fs = std::filesystem;

namespace {

class TempDir {
public:
	TempDir()
	{
		std::string tmpl = (fs::temp_directory_path() / "rdnafix-atomic-XXXXXX").string();
		REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
		dir_ = tmpl;
		root_ = dir_ + "/root";
		fs::create_directories(root_ + "/etc/modprobe.d");
	}
	~TempDir()
	{
		std::error_code ec;
		fs::remove_all(dir_, ec);
	}
	TempDir(const TempDir &) = delete;
	TempDir &operator=(const TempDir &) = delete;
	[[nodiscard]] const std::string &root() const { return root_; }
	[[nodiscard]] const std::string &outer() const { return dir_; }
	void write(const std::string &path, const std::string &content) const
	{
		fs::create_directories(fs::path(path).parent_path());
		std::ofstream(path) << content;
	}

private:
	std::string dir_, root_;
};

std::string slurp(const std::string &path)
{
	std::ifstream in(path);
	std::stringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

// Names in `dir` besides `target` that kmod (modprobe.d: "*.conf", no
// dot-files), initramfs-tools (hooks: executable files matched by a shell
// glob, which skips dot-files) or GRUB ("grub.d/*.cfg") might read: every
// name without a leading dot, and (stricter than the tools) dot-files that
// end in .conf/.cfg or are executable.
std::vector<std::string> read_by_tools(const std::string &dir, const std::string &target)
{
	std::vector<std::string> out;
	for (const auto &e : fs::directory_iterator(dir)) {
		const std::string n = e.path().filename().string();
		if (n == target)
			continue;
		struct stat st {};
		::lstat(e.path().c_str(), &st);
		if (n.front() != '.' || n.ends_with(".conf") || n.ends_with(".cfg") || (st.st_mode & 0111) != 0)
			out.push_back(n);
	}
	return out;
}

std::vector<std::string> names_in(const std::string &dir)
{
	std::vector<std::string> out;
	for (const auto &e : fs::directory_iterator(dir))
		out.push_back(e.path().filename().string());
	std::sort(out.begin(), out.end());
	return out;
}

} // namespace

TEST_CASE("atomic_file: a kill after any step of replace leaves the old or the new file, never a mix")
{
	const std::string step =
		GENERATE(std::string(io::kStepTempCreated), std::string(io::kStepWritten), std::string(io::kStepSynced),
			 std::string(io::kStepRenamed), std::string(io::kStepDirSynced));
	const bool had_old = GENERATE(true, false);
	CAPTURE(step, had_old);
	TempDir t;
	const std::string dir = t.root() + "/etc/modprobe.d";
	const std::string path = dir + "/rdnafix.conf";
	const std::string old_text = "# old\noptions rdnafix noretry=0\n";
	const std::string new_text =
		"# new\noptions rdnafix noretry=1 targets=rdna1\n" + std::string(100000, 'x') + "\n";
	if (had_old)
		t.write(path, old_text);

	auto outcome = io::run_in_fork(30, [&]() -> std::string {
		RootWriter w(t.root());
		auto st = w.replace("etc/modprobe.d/rdnafix.conf", new_text, 0644, [&](std::string_view s) {
			if (s == step)
				::_exit(7);
		});
		return st ? st->message : "finished";
	});
	REQUIRE(outcome.exited);
	REQUIRE(outcome.exit_code == 7); // the hook fired at that step: the write stopped there

	const bool renamed = step == io::kStepRenamed || step == io::kStepDirSynced;
	if (renamed) {
		CHECK(slurp(path) == new_text);
	} else if (had_old) {
		CHECK(slurp(path) == old_text);
	} else {
		CHECK_FALSE(fs::exists(path));
	}
	CHECK(read_by_tools(dir, "rdnafix.conf").empty());
	for (const auto &n : names_in(dir))
		if (n != "rdnafix.conf")
			CHECK(n.rfind(io::temp_prefix("rdnafix.conf"), 0) == 0);

	// The next write completes and clears what the killed one left.
	RootWriter w(t.root());
	REQUIRE_FALSE(w.replace("etc/modprobe.d/rdnafix.conf", "final\n", 0644));
	CHECK(slurp(path) == "final\n");
	CHECK(names_in(dir) == std::vector<std::string>{"rdnafix.conf"});
}

TEST_CASE("atomic_file: an executable hook's temp file is never executable before the rename")
{
	TempDir t;
	const std::string dir = t.root() + "/etc/initramfs-tools/hooks";
	for (auto step : {io::kStepTempCreated, io::kStepWritten}) {
		auto outcome = io::run_in_fork(30, [&]() -> std::string {
			RootWriter w(t.root());
			w.replace("etc/initramfs-tools/hooks/rdnafix", "#!/bin/sh\n", 0755, [&](std::string_view s) {
				if (s == step)
					::_exit(7);
			});
			return {};
		});
		REQUIRE(outcome.exit_code == 7);
		CHECK(read_by_tools(dir, "rdnafix").empty());
	}
}

TEST_CASE("atomic_file: a kill after any step of remove leaves the file or nothing")
{
	const std::string step = GENERATE(std::string(io::kStepUnlinked), std::string(io::kStepDirSynced));
	TempDir t;
	const std::string path = t.root() + "/etc/modprobe.d/rdnafix.conf";
	t.write(path, "options rdnafix noretry=1\n");
	auto outcome = io::run_in_fork(30, [&]() -> std::string {
		RootWriter w(t.root());
		w.remove("etc/modprobe.d/rdnafix.conf", [&](std::string_view s) {
			if (s == step)
				::_exit(7);
		});
		return {};
	});
	REQUIRE(outcome.exit_code == 7);
	CHECK_FALSE(fs::exists(path));
	RootWriter w(t.root());
	CHECK_FALSE(w.remove("etc/modprobe.d/rdnafix.conf")); // absent: nothing to do
}

TEST_CASE("atomic_file: modes are set or kept, owners kept, missing directories created")
{
	TempDir t;
	RootWriter w(t.root());
	REQUIRE_FALSE(w.replace("etc/initramfs-tools/hooks/rdnafix", "#!/bin/sh\n", 0755));
	struct stat st {};
	REQUIRE(::stat((t.root() + "/etc/initramfs-tools/hooks/rdnafix").c_str(), &st) == 0);
	CHECK((st.st_mode & 07777) == 0755);

	const std::string p = t.root() + "/etc/modprobe.d/x.conf";
	t.write(p, "a\n");
	::chmod(p.c_str(), 0640);
	if (::geteuid() == 0)
		REQUIRE(::chown(p.c_str(), 65534, 65534) == 0);
	REQUIRE_FALSE(w.replace("etc/modprobe.d/x.conf", "b\n")); // mode nullopt: keep
	REQUIRE(::stat(p.c_str(), &st) == 0);
	CHECK((st.st_mode & 07777) == 0640);
	if (::geteuid() == 0)
		CHECK(st.st_uid == 65534);
	REQUIRE_FALSE(w.replace("etc/modprobe.d/new.conf", "c\n"));
	REQUIRE(::stat((t.root() + "/etc/modprobe.d/new.conf").c_str(), &st) == 0);
	CHECK((st.st_mode & 07777) == 0644);

	io::WriteError e;
	auto r = w.read("etc/modprobe.d/x.conf", &e);
	REQUIRE(r);
	CHECK(r->content == "b\n");
	CHECK(r->mode == 0640);
	CHECK_FALSE(w.read("etc/modprobe.d/absent.conf", &e));
	CHECK_FALSE(w.read("no/such/dir/file", &e));
	CHECK(e.message.empty());
}

TEST_CASE("atomic_file: writes never leave the root")
{
	TempDir t;
	const std::string outside = t.outer() + "/outside";
	fs::create_directories(outside);
	RootWriter w(t.root());

	SECTION("'..' in the path is refused")
	{
		auto st = w.replace("etc/../../outside/x", "x");
		REQUIRE(st);
		CHECK_THAT(st->message, ContainsSubstring("not a plain root-relative path"));
	}
	SECTION("a relative symlink that climbs above the root is refused")
	{
		fs::create_directory_symlink("../../../outside", t.root() + "/etc/dracut.conf.d");
		auto st = w.replace("etc/dracut.conf.d/rdnafix.conf", "x");
		REQUIRE(st);
		CHECK_THAT(st->message, ContainsSubstring("climbs above the root"));
	}
	SECTION("an absolute symlink is re-rooted (the chroot's view)")
	{
		fs::create_directories(t.root() + "/usr/etc/grub.d");
		fs::create_directory_symlink(outside, t.root() + "/etc/default"); // host path of outside
		fs::create_directories(t.root() + outside);
		REQUIRE_FALSE(w.replace("etc/default/rdnafix.cfg", "y\n"));
		CHECK(slurp(t.root() + outside + "/rdnafix.cfg") == "y\n");
	}
	SECTION("the target itself being a symlink is refused, for write and delete")
	{
		t.write(outside + "/victim", "keep\n");
		fs::create_symlink(outside + "/victim", t.root() + "/etc/modprobe.d/rdnafix.conf");
		auto st = w.replace("etc/modprobe.d/rdnafix.conf", "x");
		REQUIRE(st);
		CHECK_THAT(st->message, ContainsSubstring("is a symlink"));
		REQUIRE(w.remove("etc/modprobe.d/rdnafix.conf"));
		CHECK(fs::is_symlink(t.root() + "/etc/modprobe.d/rdnafix.conf"));
	}
	CHECK(names_in(outside).size() <= 1);
	for (const auto &n : names_in(outside))
		CHECK(n == "victim");
	if (fs::exists(outside + "/victim"))
		CHECK(slurp(outside + "/victim") == "keep\n");
}

TEST_CASE("atomic_file: trees, renames, listings and the lock")
{
	TempDir t;
	RootWriter w(t.root());
	REQUIRE_FALSE(w.replace("var/lib/rdnafix/config/journal/.1.new/prev/0", "p\n"));
	REQUIRE_FALSE(w.replace("var/lib/rdnafix/config/journal/.1.new/manifest.json", "{}\n"));
	REQUIRE_FALSE(w.rename_in("var/lib/rdnafix/config/journal", ".1.new", "000001"));
	io::WriteError e;
	auto names = w.list("var/lib/rdnafix/config/journal", &e);
	REQUIRE(names);
	CHECK(*names == std::vector<std::string>{"000001"});
	fs::create_symlink(t.outer(), t.root() + "/var/lib/rdnafix/config/journal/000001/prev/link");
	REQUIRE_FALSE(w.remove_tree("var/lib/rdnafix/config/journal/000001"));
	CHECK(fs::exists(t.outer())); // the link was removed, not followed
	CHECK(w.list("var/lib/rdnafix/config/journal", &e)->empty());
	CHECK_FALSE(w.list("var/lib/none", &e));

	auto lock = w.lock("var/lib/rdnafix/config/lock", &e);
	REQUIRE(lock);
	io::WriteError e2;
	RootWriter w2(t.root());
	auto second = w2.lock("var/lib/rdnafix/config/lock", &e2);
	CHECK_FALSE(second);
	CHECK_THAT(e2.message, ContainsSubstring("locked by another rdnactl"));
	lock.reset();
	CHECK(w2.lock("var/lib/rdnafix/config/lock", &e2));

	RootWriter bad(t.outer() + "/missing");
	REQUIRE(bad.root_error());
	CHECK(bad.replace("etc/x", "x"));
}

// Two or four writers of one target at once (two `status --output` runs, a
// timer and a user): each replace() succeeds, the target is always one
// writer's whole content, and nothing is left behind.  Before each writer had
// a locked temp file of its own, a writer's sweep of "leftovers" deleted
// another's live temp file and that writer's rename failed (ENOENT).
TEST_CASE("atomic_file: concurrent writers of one file all succeed and the file is always whole")
{
	const int writers = GENERATE(2, 4);
	constexpr int kRounds = 200;
	CAPTURE(writers);
	TempDir t;
	const std::string dir = t.root() + "/etc/modprobe.d";
	const std::string path = dir + "/rdnafix.conf";
	auto content = [](int w) { return std::string(64 * 1024, char('a' + w)) + "\n"; };
	std::vector<pid_t> pids;
	for (int w = 0; w < writers; ++w) {
		const pid_t pid = ::fork();
		REQUIRE(pid >= 0);
		if (pid == 0) {
			int failed = 0;
			for (int i = 0; i < kRounds; ++i) {
				RootWriter wr(t.root());
				if (wr.replace("etc/modprobe.d/rdnafix.conf", content(w), 0644))
					++failed;
			}
			::_exit(failed > 250 ? 250 : failed);
		}
		pids.push_back(pid);
	}
	// Read while they write: absent (before the first rename) or one whole content.
	std::vector<int> status(pids.size(), -1);
	int reads = 0, torn = 0;
	for (bool running = true; running; ++reads) {
		running = false;
		for (size_t i = 0; i < pids.size(); ++i) {
			if (status[i] != -1)
				continue;
			int st = 0;
			if (::waitpid(pids[i], &st, WNOHANG) == pids[i])
				status[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 255;
			else
				running = true;
		}
		std::ifstream in(path);
		if (!in)
			continue; // not written yet
		std::stringstream ss;
		ss << in.rdbuf();
		bool whole = false;
		for (int w = 0; w < writers; ++w)
			whole = whole || ss.str() == content(w);
		torn += whole ? 0 : 1;
	}
	CAPTURE(reads);
	for (size_t i = 0; i < pids.size(); ++i) {
		CAPTURE(i);
		CHECK(status[i] == 0); // the number of failed replace() calls of that writer
	}
	CHECK(torn == 0);
	CHECK(names_in(dir) == std::vector<std::string>{"rdnafix.conf"});
}

// The sweep of leftovers removes a dead writer's temp file, never a live
// one's: a temp file held under its lock stays, one nobody holds goes.
TEST_CASE("atomic_file: a live writer's temp file is never removed, a dead one's is")
{
	TempDir t;
	const std::string dir = t.root() + "/etc/modprobe.d";
	const std::string prefix = io::temp_prefix("rdnafix.conf");
	const std::string live = dir + "/" + prefix + "1-live", dead = dir + "/" + prefix + "2-dead";
	t.write(live, "half");
	t.write(dead, "half");
	const int fd = ::open(live.c_str(), O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	REQUIRE(::flock(fd, LOCK_EX) == 0); // as a writer holds its temp file until the rename
	RootWriter w(t.root());
	REQUIRE_FALSE(w.replace("etc/modprobe.d/rdnafix.conf", "x\n", 0644));
	CHECK(fs::exists(live));
	CHECK_FALSE(fs::exists(dead));
	::close(fd);
	REQUIRE_FALSE(w.replace("etc/modprobe.d/rdnafix.conf", "y\n", 0644));
	CHECK(names_in(dir) == std::vector<std::string>{"rdnafix.conf"});
}
