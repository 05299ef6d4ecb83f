// RootFs under a moving tree: another thread swaps a directory of the root for
// a symlink that points outside it (absolute and "../") while RootFs reads
// through that directory.  A canary file outside the root must never be read,
// with the kernel's openat2(RESOLVE_IN_ROOT) and with the O_PATH walk that
// replaces it on older kernels.
#include <catch2/catch_test_macros.hpp>

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "io/rootfs.hpp"

using rdnafix::io::RootFs;
namespace fs = std::filesystem;

namespace {

struct RaceTree {
	std::string dir, root;
	RaceTree()
	{
		std::string tmpl = (fs::temp_directory_path() / "rdnafix-race-XXXXXX").string();
		REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
		dir = tmpl;
		root = dir + "/root";
		fs::create_directories(root + "/a");
		fs::create_directories(dir + "/outside");
		write(root + "/a/secret", "inside\n");
		write(dir + "/outside/secret", "CANARY\n");
		write(dir + "/outside/canary-only", "CANARY\n");
	}
	~RaceTree()
	{
		std::error_code ec;
		fs::remove_all(dir, ec);
	}
	static void write(const std::string &p, const std::string &text)
	{
		std::ofstream out(p);
		out << text;
		REQUIRE(out.good());
	}
};

struct Tally {
	long inside = 0, other = 0, escaped = 0;
};

// Reads a/secret, lists a/ and stats a/secret with fresh RootFs objects (no
// memo) while a second thread exchanges "a" with the symlink `link` for
// `seconds`.
Tally race(const RaceTree &t, const std::string &link_target, double seconds)
{
	const std::string a = t.root + "/a";
	const std::string l = t.root + "/l";
	fs::remove(l);
	REQUIRE(::symlink(link_target.c_str(), l.c_str()) == 0);
	// Two exchanges put everything back; a file system without
	// RENAME_EXCHANGE cannot run this test.
	for (int i = 0; i < 2; ++i)
		if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, l.c_str(), RENAME_EXCHANGE) != 0)
			SKIP("renameat2(RENAME_EXCHANGE) is not supported here: " << std::strerror(errno));
	std::atomic<bool> stop{false};
	std::atomic<long> swaps{0};
	std::thread swapper([&] {
		while (!stop.load()) {
			if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, l.c_str(), RENAME_EXCHANGE) == 0)
				++swaps;
		}
	});
	Tally n;
	const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
	while (std::chrono::steady_clock::now() < end) {
		RootFs r(t.root);
		auto s = r.read_text("a/secret");
		if (s && *s == "CANARY\n")
			++n.escaped;
		else if (s && *s == "inside\n")
			++n.inside;
		else
			++n.other;
		auto d = r.list_dir("a");
		if (d)
			for (const auto &name : *d)
				if (name == "canary-only")
					++n.escaped;
		if (auto st = r.stat("a/canary-only"); st.ok())
			++n.escaped;
	}
	stop = true;
	swapper.join();
	// Put "a" back where it was.
	if (fs::is_symlink(a))
		REQUIRE(::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, l.c_str(), RENAME_EXCHANGE) == 0);
	INFO("swaps " << swaps.load());
	CHECK(swaps.load() > 100);
	return n;
}

} // namespace

TEST_CASE("rootfs: a directory swapped for a symlink while reading never leads outside the root", "[rootfs][race]")
{
	RaceTree t;
	const double secs = 0.6;
	for (bool kernel : {true, false}) {
#ifndef RDNAFIX_ROOTFS_BEFORE_OPENAT2
		rdnafix::io::set_openat2_enabled_for_tests(kernel);
#endif
		for (const std::string &target : {t.dir + "/outside", std::string("../outside")}) {
			Tally n = race(t, target, secs);
			INFO((kernel ? "openat2" : "O_PATH walk")
			     << ", link -> " << target << ": inside " << n.inside << ", other " << n.other
			     << ", escaped " << n.escaped);
			CHECK(n.escaped == 0);
			CHECK(n.inside > 0); // the reads did run between the swaps
			CHECK(n.other > 0);  // and did see the symlink
		}
	}
#ifndef RDNAFIX_ROOTFS_BEFORE_OPENAT2
	rdnafix::io::set_openat2_enabled_for_tests(true);
#endif
}

TEST_CASE("rootfs: links out of the root stay inside, with openat2 and with the O_PATH walk", "[rootfs]")
{
	RaceTree t;
	RaceTree::write(t.root + "/outside-named", "inside-copy\n");
	REQUIRE(::symlink((t.dir + "/outside").c_str(), (t.root + "/abs").c_str()) == 0);
	REQUIRE(::symlink("../../../outside", (t.root + "/a/up").c_str()) == 0);
	REQUIRE(::symlink("/../outside-named", (t.root + "/a/absup").c_str()) == 0);
	for (bool kernel : {true, false}) {
#ifndef RDNAFIX_ROOTFS_BEFORE_OPENAT2
		rdnafix::io::set_openat2_enabled_for_tests(kernel);
#endif
		INFO((kernel ? "openat2" : "O_PATH walk"));
		RootFs r(t.root);
		CHECK_FALSE(r.read_text("abs/secret").ok());
		CHECK_FALSE(r.read_text("a/up/secret").ok());
		CHECK_FALSE(r.list_dir("abs").ok());
		CHECK_FALSE(r.stat("a/up/canary-only").ok());
		CHECK(r.read_text("a/absup").value() == "inside-copy\n");
		CHECK(r.read_text("a/../../../a/secret").value() == "inside\n");
		CHECK(r.read_link("a/up").value() == "../../../outside");
	}
#ifndef RDNAFIX_ROOTFS_BEFORE_OPENAT2
	rdnafix::io::set_openat2_enabled_for_tests(true);
	RootFs r(t.root);
	REQUIRE(r.read_text("a/secret").ok());
	if (!rdnafix::io::openat2_in_use())
		WARN("openat2 is not usable here (kernel before 5.6 or a seccomp filter): both runs used the walk");
#endif
}
