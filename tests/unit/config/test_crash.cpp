// Crash safety of config transactions (docs/config.md section 7): undo
// decides per file from what is on disk (written -> restore, previous ->
// skip, else refuse), finishes an interrupted change or undo, removes the
// directories a change created; journal ids are numbers; a forged journal
// entry is not replayed; a lost lock race writes nothing (exit 2); SIGTERM
// during the generator rolls back (exit 3).  The kill matrix of the real
// binary is tests/config-crash/run.sh.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix;
using test::TempRoot;

namespace {

std::map<std::string, std::string> without_journal(std::map<std::string, std::string> tree)
{
	for (auto it = tree.begin(); it != tree.end();)
		it = it->first.rfind("var/lib/rdnafix", 0) == 0 ? tree.erase(it) : std::next(it);
	return tree;
}

bool journal_empty(const TempRoot &t)
{
	const std::string j = t.root() + "/var/lib/rdnafix/config/journal";
	return !std::filesystem::exists(j) || std::filesystem::is_empty(j);
}

// Writes journal entry `id` by hand: `files` as in manifest.json, with
// prev/<n> and new/<n> taken from `contents` (index -> content).
void forge(const TempRoot &t, const std::string &id, const nlohmann::json &files, const nlohmann::json &commands,
	   const std::map<std::string, std::string> &contents)
{
	const std::string dir = "var/lib/rdnafix/config/journal/" + id + "/";
	nlohmann::json m{{"version", 1},
			 {"time", "2026-01-01T00:00:00Z"},
			 {"invocation", "forged"},
			 {"files", files},
			 {"commands", commands}};
	t.write(dir + "manifest.json", m.dump());
	for (const auto &[rel, content] : contents)
		t.write(dir + rel, content);
}

} // namespace

TEST_CASE("crash: undo restores a change killed half-way through its files and drops the entry")
{
	TempRoot t;
	test::TestPlanners tp;
	const auto p = test::planners(t.root(), tp);
	t.write("boot/initrd.img-test", "");
	const auto state0 = without_journal(t.tree());
	// Two files (the modprobe.d file and the initramfs hook) and a command.
	REQUIRE(test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, p).rc == 0);
	REQUIRE(t.exists("etc/initramfs-tools/hooks/rdnafix"));
	// As if killed after the first file: the hook is still absent (its previous state).
	std::filesystem::remove(t.root() + "/etc/initramfs-tools/hooks/rdnafix");
	std::filesystem::remove(t.root() + "/etc/initramfs-tools/hooks");
	std::filesystem::remove(t.root() + "/etc/initramfs-tools");
	// ... and with the temp file a killed replace() leaves.
	t.write("etc/modprobe.d/.rdnafix.conf.rdnactl-tmp-999-0", "half", 0600);
	auto u = test::undo(test::options(t.root()));
	INFO(u.out << u.err);
	CHECK(u.rc == 0);
	CHECK_THAT(u.out, ContainsSubstring("1 of the 2 file(s) of transaction 000001 already hold their previous"));
	CHECK(without_journal(t.tree()) == state0);
	CHECK_FALSE(t.exists("etc/modprobe.d/.rdnafix.conf.rdnactl-tmp-999-0"));
	CHECK(t.read("boot/initrd.img-test").empty()); // the generator ran again on the restored files
	CHECK(journal_empty(t));
	CHECK_THAT(test::undo(test::options(t.root())).out, ContainsSubstring("nothing to undo"));
}

TEST_CASE("crash: an entry whose files all hold their previous content is finished and dropped")
{
	TempRoot t;
	test::TestPlanners tp;
	const auto p = test::planners(t.root(), tp);
	t.write("etc/modprobe.d/rdnafix.conf", "options rdnafix noretry=0\n");
	t.write("boot/initrd.img-test", "options rdnafix noretry=0\n");
	const auto state0 = without_journal(t.tree());
	REQUIRE(test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, p).rc == 0);
	// As if an undo was killed after restoring every file, before the generator and the drop.
	t.write("etc/modprobe.d/rdnafix.conf", "options rdnafix noretry=0\n");
	std::filesystem::remove_all(t.root() + "/etc/initramfs-tools");
	auto u = test::undo(test::options(t.root()));
	INFO(u.out << u.err);
	CHECK(u.rc == 0);
	CHECK_THAT(u.out, ContainsSubstring("ran: sh -c"));
	CHECK(without_journal(t.tree()) == state0);
	CHECK(t.read("boot/initrd.img-test") == "options rdnafix noretry=0\n");
	CHECK(journal_empty(t));
}

TEST_CASE("crash: a file at neither state is refused by name and nothing is written")
{
	TempRoot t;
	test::TestPlanners tp;
	REQUIRE(test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, test::planners(t.root(), tp))
			.rc == 0);
	std::filesystem::remove_all(t.root() + "/etc/initramfs-tools");         // at previous
	t.write("etc/modprobe.d/rdnafix.conf", "options rdnafix noretry=-1\n"); // neither
	const auto before = t.tree();
	auto u = test::undo(test::options(t.root()));
	CHECK(u.rc == 2);
	CHECK_THAT(u.err, ContainsSubstring("etc/modprobe.d/rdnafix.conf was changed after transaction 000001"));
	CHECK(t.tree() == before);
}

TEST_CASE("crash: a mode-only change is undone by its mode")
{
	TempRoot t;
	test::TestPlanners tp;
	const auto p = test::planners(t.root(), tp);
	REQUIRE(test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, p).rc == 0);
	const std::string text = t.read("etc/modprobe.d/rdnafix.conf");
	// A hand-made copy with mode 0600: the same content, so `set` changes only the mode.
	REQUIRE(test::undo(test::options(t.root())).rc == 0);
	t.write("etc/modprobe.d/rdnafix.conf", text, 0600);
	const auto state0 = without_journal(t.tree());
	auto a = test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, p);
	INFO(a.out << a.err);
	REQUIRE(a.rc == 0);
	REQUIRE(t.mode("etc/modprobe.d/rdnafix.conf") == 0644);
	REQUIRE(test::undo(test::options(t.root())).rc == 0);
	CHECK(without_journal(t.tree()) == state0);
	CHECK(t.mode("etc/modprobe.d/rdnafix.conf") == 0600);
}

TEST_CASE("crash: journal ids are numbers: 1000000 follows 999999 and is undone first")
{
	TempRoot t;
	test::TestPlanners tp;
	const auto p = test::planners(t.root(), tp);
	t.write("boot/initrd.img-test", "");
	const auto state0 = without_journal(t.tree());
	REQUIRE(test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, p).rc == 0);
	const std::string j = t.root() + "/var/lib/rdnafix/config/journal/";
	std::filesystem::rename(j + "000001", j + "999999");
	const auto state1 = without_journal(t.tree());
	auto a = test::apply(test::options(t.root()), {{"rdnafix", "noretry", "0"}}, {}, p);
	INFO(a.out << a.err);
	REQUIRE(a.rc == 0);
	CHECK_THAT(a.out, ContainsSubstring("Saved as transaction 1000000"));
	auto u1 = test::undo(test::options(t.root()));
	CHECK(u1.rc == 0);
	CHECK_THAT(u1.out, ContainsSubstring("undoing transaction 1000000"));
	CHECK(without_journal(t.tree()) == state1);
	auto u2 = test::undo(test::options(t.root()));
	CHECK(u2.rc == 0);
	CHECK_THAT(u2.out, ContainsSubstring("undoing transaction 999999"));
	CHECK(without_journal(t.tree()) == state0);
	CHECK(journal_empty(t));
	CHECK_FALSE(t.exists("etc/initramfs-tools")); // created by the first change, removed by its undo
}

TEST_CASE("crash: a forged journal entry is refused: no write outside the managed files, no foreign command")
{
	TempRoot t;
	t.write("etc/passwd", "root:x:0:0::/root:/bin/sh\n", 0644);
	const std::string marker = t.outer() + "/ran";
	auto o = test::options(t.root());
	o.only_own_commands = true; // as the CLI

	SECTION("etc/passwd with mode 04777")
	{
		forge(t, "000001",
		      nlohmann::json::array({{{"path", "etc/passwd"},
					      {"previous", "prev/0"},
					      {"previous_mode", 04777},
					      {"written", "new/0"},
					      {"mode", 0644}}}),
		      nlohmann::json::array(), {{"prev/0", "evil::0:0::/:/bin/sh\n"}, {"new/0", t.read("etc/passwd")}});
		const auto before = without_journal(t.tree());
		auto u = test::undo(o);
		CHECK(u.rc == 2);
		CHECK_THAT(u.err, ContainsSubstring("file 'etc/passwd' is not one rdnactl config manages"));
		CHECK(without_journal(t.tree()) == before);
		CHECK(t.mode("etc/passwd") == 0644);
	}
	SECTION("sh -c as a command")
	{
		forge(t, "000001",
		      nlohmann::json::array({{{"path", "etc/modprobe.d/rdnafix.conf"},
					      {"previous", "absent"},
					      {"previous_mode", 0644},
					      {"written", "absent"},
					      {"mode", 0644}}}),
		      nlohmann::json::array(
			      {{{"argv", {"sh", "-c", "touch " + marker}}, {"why", "x"}, {"kind", "initramfs"}}}),
		      {});
		auto u = test::undo(o);
		CHECK(u.rc == 2);
		CHECK_THAT(u.err, ContainsSubstring("command 'sh' '-c' 'touch "));
		CHECK_THAT(u.err, ContainsSubstring("is not one rdnactl runs"));
		CHECK_FALSE(std::filesystem::exists(marker));
	}
	SECTION("a managed file's mode is masked: 04755 is restored as 0755")
	{
		t.write("etc/initramfs-tools/hooks/rdnafix", "new\n", 0644);
		forge(t, "000001",
		      nlohmann::json::array({{{"path", "etc/initramfs-tools/hooks/rdnafix"},
					      {"previous", "prev/0"},
					      {"previous_mode", 06777},
					      {"written", "new/0"},
					      {"mode", 0644}}}),
		      nlohmann::json::array({{{"argv", {"update-initramfs", "-u", "-k", "6.1.0-18-amd64"}},
					      {"why", "x"},
					      {"kind", "initramfs"}}}),
		      {{"prev/0", "old\n"}, {"new/0", "new\n"}});
		o.no_initramfs = true; // the generator is not on this host
		auto u = test::undo(o);
		INFO(u.out << u.err);
		CHECK(u.rc == 1);
		CHECK(t.read("etc/initramfs-tools/hooks/rdnafix") == "old\n");
		CHECK(t.mode("etc/initramfs-tools/hooks/rdnafix") == 0755);
	}
	SECTION("a previous modprobe.d file with an install line")
	{
		t.write("etc/modprobe.d/rdnafix.conf", "options rdnafix noretry=1\n");
		forge(t, "000001",
		      nlohmann::json::array({{{"path", "etc/modprobe.d/rdnafix.conf"},
					      {"previous", "prev/0"},
					      {"previous_mode", 0644},
					      {"written", "new/0"},
					      {"mode", 0644}}}),
		      nlohmann::json::array(),
		      {{"prev/0", "install amdgpu /bin/sh -c 'touch " + marker + "'\n"},
		       {"new/0", "options rdnafix noretry=1\n"}});
		const auto before = without_journal(t.tree());
		auto u = test::undo(o);
		CHECK(u.rc == 2);
		CHECK_THAT(u.err, ContainsSubstring("has lines rdnactl never writes"));
		CHECK(without_journal(t.tree()) == before);
	}
}

TEST_CASE("crash: losing the lock race writes nothing and exits 2")
{
	TempRoot t;
	test::TestPlanners tp;
	t.write("var/lib/rdnafix/config/lock", "", 0600);
	const int fd = ::open((t.root() + "/var/lib/rdnafix/config/lock").c_str(), O_RDWR | O_CLOEXEC);
	REQUIRE(fd >= 0);
	REQUIRE(::flock(fd, LOCK_EX) == 0);
	const auto before = t.tree();
	auto a = test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, test::planners(t.root(), tp));
	CHECK(a.rc == 2);
	CHECK_THAT(a.err, ContainsSubstring("locked by another rdnactl"));
	CHECK_THAT(a.err, ContainsSubstring("nothing was written"));
	auto u = test::undo(test::options(t.root()));
	CHECK(u.rc == 2);
	CHECK(t.tree() == before);
	::close(fd);
}

TEST_CASE("crash: SIGTERM while the generator runs stops it, rolls back and exits 3")
{
	TempRoot t;
	t.write("etc/modprobe.d/rdnafix.conf", "options rdnafix noretry=0\n");
	t.write("boot/initrd.img-test", "options rdnafix noretry=0\n");
	const auto state0 = without_journal(t.tree());
	const std::string started = t.outer() + "/started", pidfile = t.outer() + "/sleep.pid";
	test::TestPlanners tp;
	config::Planners p = test::planners(t.root(), tp);
	auto base = p.initramfs;
	const std::string conf = t.root() + "/etc/modprobe.d/rdnafix.conf";
	p.initramfs = [base, conf, pidfile, started](const machine::Snapshot &s, bool want, bool changed) {
		config::Plan plan = base(s, want, changed);
		// Long with the new configuration only: the re-run after the roll-back is quick.
		plan.commands.push_back({{"sh", "-c",
					  "grep -q noretry=1 '" + conf + "' || exit 0; echo $$ > '" + pidfile +
						  "'; touch '" + started + "'; sleep 60"},
					 "a generator that takes long"});
		return plan;
	};
	const auto t0 = std::chrono::steady_clock::now();
	const pid_t pid = ::fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		auto r = test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, p);
		std::ofstream(t.outer() + "/out") << r.out << r.err;
		::_exit(r.rc);
	}
	for (int i = 0; i < 200 && !std::filesystem::exists(started); ++i)
		std::this_thread::sleep_for(std::chrono::milliseconds(50));
	REQUIRE(std::filesystem::exists(started));
	REQUIRE(t.read("etc/modprobe.d/rdnafix.conf") != "options rdnafix noretry=0\n"); // the change is on disk
	::kill(pid, SIGTERM);
	int status = 0;
	REQUIRE(::waitpid(pid, &status, 0) == pid);
	const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	std::stringstream out;
	out << std::ifstream(t.outer() + "/out").rdbuf();
	INFO(out.str());
	REQUIRE(WIFEXITED(status));
	CHECK(WEXITSTATUS(status) == 3);
	CHECK(secs < 30);
	CHECK_THAT(out.str(), ContainsSubstring("rdnactl received SIGTERM while 'sh -c"));
	CHECK_THAT(out.str(), ContainsSubstring("every file was put back"));
	CHECK(without_journal(t.tree()) == state0); // the image regenerated from the restored file
	CHECK(journal_empty(t));
	std::stringstream sp;
	sp << std::ifstream(pidfile).rdbuf();
	// The generator is gone (or a zombie nobody reaped yet).
	std::stringstream st;
	st << std::ifstream("/proc/" + std::to_string(std::stol(sp.str())) + "/stat").rdbuf();
	const std::string stat = st.str();
	CHECK((stat.empty() || stat.substr(stat.rfind(')') + 2, 1) == "Z"));
}

TEST_CASE("crash: a generator's output and a diff keep their line breaks and tabs (no literal \\t, \\n)")
{
	TempRoot t;
	t.write("etc/modprobe.d/rdnafix.conf", "#\tby hand\noptions rdnafix noretry=0\n");
	test::TestPlanners tp;
	auto p = test::planners(t.root(), tp);
	auto base = p.initramfs;
	const std::string said = t.outer() + "/said";
	std::ofstream(said) << "first line\n\tsecond\x1b[2J\n";
	p.initramfs = [base, said](const machine::Snapshot &s, bool want, bool changed) {
		config::Plan plan = base(s, want, changed);
		plan.commands.push_back({{"sh", "-c", "cat '" + said + "' >&2; exit 5"}, "a generator that fails"});
		return plan;
	};
	auto o = test::options(t.root());
	o.dry_run = true;
	auto d = test::apply(o, {{"rdnafix", "noretry", "1"}}, {}, p);
	CHECK_THAT(d.out, ContainsSubstring("-#\tby hand\n"));
	auto r = test::apply(test::options(t.root()), {{"rdnafix", "noretry", "1"}}, {}, p);
	INFO(r.out << r.err);
	CHECK(r.rc == 3);
	CHECK_THAT(r.err, ContainsSubstring("its output:\nfirst line\n\tsecond\\e[2J\n"));
	CHECK(r.err.find("\\n") == std::string::npos);
	CHECK(r.err.find("\\t") == std::string::npos);
}
