// RootFs against real temporary trees: missing, empty, binary, huge and
// unreadable files, symlink loops and escapes, the device-node manifest,
// memoisation.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/rootfs.hpp"

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using rdnafix::io::FileType;
using rdnafix::io::FsErrorKind;
using rdnafix::io::ReadOptions;
using rdnafix::io::RootFs;
namespace fs = std::filesystem;

namespace {

// A temporary directory tree, removed (permissions restored first) on scope exit.
class TempTree {
public:
	TempTree()
	{
		std::string tmpl = (fs::temp_directory_path() / "rdnafix-rootfs-XXXXXX").string();
		REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
		dir_ = tmpl;
		::chmod(dir_.c_str(), 0755); // so that a setuid'd child can enter it
		root_ = dir_ + "/root";
		fs::create_directories(root_);
	}
	~TempTree()
	{
		std::error_code ec;
		for (auto it =
			     fs::recursive_directory_iterator(dir_, fs::directory_options::skip_permission_denied, ec);
		     it != fs::recursive_directory_iterator(); it.increment(ec)) {
			if (!it->is_symlink())
				fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
		}
		fs::remove_all(dir_, ec);
	}
	TempTree(const TempTree &) = delete;
	TempTree &operator=(const TempTree &) = delete;

	[[nodiscard]] const std::string &root() const { return root_; }
	[[nodiscard]] const std::string &outer() const { return dir_; }

	void file(const std::string &rel, const std::string &content, const std::string &base = {}) const
	{
		fs::path p = fs::path(base.empty() ? root_ : base) / rel;
		fs::create_directories(p.parent_path());
		std::ofstream out(p, std::ios::binary);
		out << content;
		REQUIRE(out.good());
	}
	void link(const std::string &rel, const std::string &target) const
	{
		fs::path p = fs::path(root_) / rel;
		fs::create_directories(p.parent_path());
		REQUIRE(::symlink(target.c_str(), p.c_str()) == 0);
	}
	void dir(const std::string &rel) const { fs::create_directories(fs::path(root_) / rel); }

private:
	std::string dir_;
	std::string root_;
};

} // namespace

TEST_CASE("rootfs: plain reads keep the content verbatim; read_value trims", "[rootfs]")
{
	TempTree t;
	t.file("sys/module/amdgpu/parameters/noretry", "-1\n");
	t.file("proc/cmdline", "ro quiet amdgpu.noretry=0\n");
	RootFs r(t.root());
	CHECK_FALSE(r.root_error().has_value());
	CHECK_FALSE(r.is_live());
	CHECK(r.read_text("sys/module/amdgpu/parameters/noretry").value() == "-1\n");
	CHECK(r.read_value("/sys/module/amdgpu/parameters/noretry").value() == "-1"); // leading '/' accepted
	CHECK(r.read_text("proc//./cmdline").value() == "ro quiet amdgpu.noretry=0\n");
	CHECK(r.exists("proc/cmdline"));
	CHECK(r.exists("")); // the root itself
}

TEST_CASE("rootfs: missing files and directories", "[rootfs]")
{
	TempTree t;
	t.file("sys/module/amdgpu/initstate", "live\n");
	RootFs r(t.root());
	auto m = r.read_text("sys/module/amdgpu/parameters/noretry");
	REQUIRE_FALSE(m.ok());
	CHECK(m.error().kind == FsErrorKind::not_found);
	CHECK(m.error().errno_value == ENOENT);
	CHECK(m.error().path == "sys/module/amdgpu/parameters/noretry");
	CHECK_THAT(m.error().reason(), StartsWith("unreadable: "));
	CHECK_THAT(m.error().reason(), ContainsSubstring("ENOENT"));
	CHECK_THAT(m.error().detail, ContainsSubstring("at 'sys/module/amdgpu/parameters'"));
	CHECK_FALSE(r.exists("sys/class/kfd"));
	auto f = r.read_text("sys/module/amdgpu/initstate/x"); // a file in the middle of a path
	REQUIRE_FALSE(f.ok());
	CHECK(f.error().kind == FsErrorKind::not_directory);
}

TEST_CASE("rootfs: empty, binary and huge files", "[rootfs]")
{
	TempTree t;
	t.file("empty", "");
	t.file("blank", " \n\n");
	t.file("binary", std::string("abc\0def", 7));
	t.file("huge", std::string(2 * 1024 * 1024 + 5, 'x'));
	RootFs r(t.root());

	auto e = r.read_text("empty");
	REQUIRE_FALSE(e.ok());
	CHECK(e.error().kind == FsErrorKind::empty);
	CHECK(e.error().reason() == "unreadable: empty file");
	CHECK(r.read_text("empty", ReadOptions{1024, true}).value().empty());
	CHECK(r.read_bytes("empty").value().empty());
	auto b = r.read_value("blank");
	REQUIRE_FALSE(b.ok());
	CHECK(b.error().kind == FsErrorKind::empty);

	auto bin = r.read_text("binary");
	REQUIRE_FALSE(bin.ok());
	CHECK(bin.error().kind == FsErrorKind::binary);
	CHECK_THAT(bin.error().detail, ContainsSubstring("offset 3"));
	CHECK(r.read_bytes("binary").value() == std::string("abc\0def", 7)); // environ-style reads allow NUL

	auto h = r.read_text("huge");
	REQUIRE_FALSE(h.ok());
	CHECK(h.error().kind == FsErrorKind::too_large);
	CHECK_THAT(h.error().reason(), ContainsSubstring("larger than the 1048576-byte limit"));
	auto big = r.read_text("huge", ReadOptions{4 * 1024 * 1024, false});
	REQUIRE(big.ok());
	CHECK(big->size() == 2 * 1024 * 1024 + 5);
	// A file exactly at the limit is fine, one byte more is not.
	t.file("exact", std::string(100, 'y'));
	CHECK(r.read_text("exact", ReadOptions{100, false}).ok());
	t.file("over", std::string(101, 'y'));
	CHECK(r.read_text("over", ReadOptions{100, false}).error().kind == FsErrorKind::too_large);
}

TEST_CASE("rootfs: directories, FIFOs and bad paths", "[rootfs]")
{
	TempTree t;
	t.dir("sys/class/drm/card0");
	t.file("sys/class/drm/version", "drm 1.1.0\n");
	REQUIRE(::mkfifo((t.root() + "/fifo").c_str(), 0644) == 0);
	RootFs r(t.root());
	auto d = r.read_text("sys/class/drm");
	REQUIRE_FALSE(d.ok());
	CHECK(d.error().kind == FsErrorKind::is_directory);
	auto fifo = r.read_text("fifo"); // must not block
	REQUIRE_FALSE(fifo.ok());
	CHECK_THAT(fifo.error().detail, ContainsSubstring("not a regular file (fifo)"));
	auto ls = r.list_dir("sys/class/drm");
	REQUIRE(ls.ok());
	CHECK(*ls == std::vector<std::string>{"card0", "version"});
	CHECK(r.list_dir("sys/class/drm/version").error().kind == FsErrorKind::not_directory);
	CHECK(r.list_dir("nope").error().kind == FsErrorKind::not_found);
	auto nul = r.read_text(std::string_view("a\0b", 3));
	REQUIRE_FALSE(nul.ok());
	CHECK(nul.error().kind == FsErrorKind::bad_path);
}

TEST_CASE("rootfs: unreadable files (chmod 000)", "[rootfs]")
{
	TempTree t;
	t.file("secret", "x\n");
	t.dir("locked/inner");
	t.file("locked/inner/f", "y\n");
	REQUIRE(::chmod((t.root() + "/secret").c_str(), 0) == 0);
	REQUIRE(::chmod((t.root() + "/locked").c_str(), 0) == 0);
	auto check = [&](RootFs &r) -> int {
		auto s = r.read_text("secret");
		if (s.ok() || s.error().kind != FsErrorKind::permission_denied)
			return 1;
		if (s.error().reason().find("EACCES") == std::string::npos)
			return 2;
		auto l = r.read_text("locked/inner/f");
		if (l.ok() || l.error().kind != FsErrorKind::permission_denied)
			return 3;
		return 0;
	};
	if (::geteuid() != 0) {
		RootFs r(t.root());
		CHECK(check(r) == 0);
		return;
	}
	// Root bypasses file permissions, so the check runs in a child that has
	// dropped to the unprivileged user 65534 (nobody).
	pid_t pid = ::fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)
			::_exit(77);
		RootFs r(t.root());
		::_exit(check(r));
	}
	int status = 0;
	REQUIRE(::waitpid(pid, &status, 0) == pid);
	REQUIRE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		// Only when running as root AND unable to drop privileges (no CAP_SETUID).
		SKIP("running as root and setuid(65534) failed: the permission assertion cannot be made");
	}
	CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("rootfs: symlink loops", "[rootfs]")
{
	TempTree t;
	t.link("a", "b");
	t.link("b", "a");
	t.link("self", "self");
	t.link("dirloop/x", "../dirloop/x/y");
	RootFs r(t.root());
	for (const char *p : {"a", "self", "dirloop/x"}) {
		INFO(p);
		auto e = r.read_text(p);
		REQUIRE_FALSE(e.ok());
		CHECK(e.error().kind == FsErrorKind::symlink_loop);
		CHECK_THAT(e.error().reason(), ContainsSubstring("ELOOP"));
	}
	CHECK(r.stat("a").error().kind == FsErrorKind::symlink_loop);
	CHECK(r.list_dir("self").error().kind == FsErrorKind::symlink_loop);
	CHECK(r.read_link("a").value() == "b"); // the link itself is readable
}

TEST_CASE("rootfs: 40 links resolve, 41 are a loop (kernel MAXSYMLINKS)", "[rootfs]")
{
	TempTree t;
	t.file("target", "ok\n");
	// chain40/l0 -> l1 -> ... -> l39 -> ../target : 40 links
	for (int i = 0; i < 40; ++i)
		t.link("chain40/l" + std::to_string(i), i == 39 ? "../target" : "l" + std::to_string(i + 1));
	for (int i = 0; i < 41; ++i)
		t.link("chain41/l" + std::to_string(i), i == 40 ? "../target" : "l" + std::to_string(i + 1));
	RootFs r(t.root());
	CHECK(r.read_text("chain40/l0").value() == "ok\n");
	CHECK(r.read_text("chain41/l0").error().kind == FsErrorKind::symlink_loop);
}

TEST_CASE("rootfs: paths and links never escape the root", "[rootfs]")
{
	TempTree t;
	// A file OUTSIDE the root that an escaping path would reach.
	t.file("escaped", "OUTSIDE\n", t.outer());
	t.file("etc/hostname", "fixture-host\n");
	t.link("etc/abs", "/etc/hostname");                  // absolute -> re-rooted
	t.link("etc/up", "../../../../../../../../escaped"); // climbs above the root
	t.link("etc/up2", "../../escaped");
	t.link("etc/absdir", "/");
	RootFs r(t.root());
	CHECK(r.read_text("etc/abs").value() == "fixture-host\n");
	CHECK(r.canonical("etc/abs").value() == "etc/hostname");
	CHECK(r.read_text("etc/up").error().kind == FsErrorKind::not_found);
	CHECK(r.read_text("etc/up2").error().kind == FsErrorKind::not_found);
	CHECK(r.read_text("../escaped").error().kind == FsErrorKind::not_found);
	CHECK(r.read_text("../../../../etc/hostname").value() == "fixture-host\n"); // '..' stops at the root
	CHECK(r.read_text("etc/absdir/etc/hostname").value() == "fixture-host\n");
	CHECK(r.canonical("etc/absdir").value() == "");
	// Escaping with a link to the outer file after creating it under the root
	// name proves which one is read.
	t.file("escaped", "INSIDE\n");
	RootFs r2(t.root());
	CHECK(r2.read_text("etc/up").value() == "INSIDE\n");
	CHECK(r2.read_text("etc/up2").value() == "INSIDE\n");
	auto hp = r2.host_path("etc/up");
	REQUIRE(hp.ok());
	CHECK(*hp == t.root() + "/escaped");
}

TEST_CASE("rootfs: sysfs-style relative links (driver, class -> devices)", "[rootfs]")
{
	TempTree t;
	const std::string dev = "sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0";
	t.file(dev + "/device", "0x73df\n");
	t.file(dev + "/drm/card0/dev", "226:0\n");
	t.dir("sys/bus/pci/drivers/amdgpu");
	t.link("sys/bus/pci/devices/0000:03:00.0", "../../../devices/pci0000:00/0000:00:01.1/0000:03:00.0");
	t.link(dev + "/driver", "../../../../bus/pci/drivers/amdgpu");
	t.link("sys/class/drm/card0", "../../devices/pci0000:00/0000:00:01.1/0000:03:00.0/drm/card0");
	t.link(dev + "/drm/card0/device", "../../../0000:03:00.0");
	RootFs r(t.root());
	CHECK(r.read_link("sys/bus/pci/devices/0000:03:00.0/driver").value() == "../../../../bus/pci/drivers/amdgpu");
	CHECK(r.canonical("sys/bus/pci/devices/0000:03:00.0/driver").value() == "sys/bus/pci/drivers/amdgpu");
	CHECK(r.read_value("sys/class/drm/card0/device/device").value() == "0x73df");
	CHECK(r.canonical("sys/class/drm/card0").value() == dev + "/drm/card0");
	CHECK(r.canonical("sys/class/drm/card0/device").value() == dev);
	CHECK(r.read_value("sys/class/drm/card0/dev").value() == "226:0");
	auto notlink = r.read_link(dev + "/device");
	REQUIRE_FALSE(notlink.ok());
	CHECK_THAT(notlink.error().detail, ContainsSubstring("not a symbolic link"));
	CHECK(r.read_link("sys/class/drm/card9").error().kind == FsErrorKind::not_found);
}

TEST_CASE("rootfs: stat and the dev/.devnodes manifest", "[rootfs]")
{
	TempTree t;
	t.file("dev/kfd", "");
	t.file("dev/dri/renderD128", "");
	t.file("dev/dri/card0", "");
	t.link("dev/dri/by-path/pci-0000:03:00.0-render", "../renderD128");
	t.file("dev/.devnodes", "# path type major:minor mode owner group\n"
				"/dev/kfd c 235:0 0666 root render\n"
				"dev/dri/renderD128 c 226:128 0660 root render\n"
				"dev/dri/card0 x 226:0 0660 root video\n"
				"dev/broken c 1 0660 root root\n");
	t.file("etc/passwd", "root:x:0:0::/root:/bin/sh\n");
	RootFs r(t.root());
	auto kfd = r.stat("dev/kfd");
	REQUIRE(kfd.ok());
	CHECK(kfd->from_manifest);
	CHECK(kfd->type == FileType::char_device);
	CHECK(kfd->dev_major == 235);
	CHECK(kfd->mode == 0666);
	CHECK(kfd->group == "render");
	CHECK_FALSE(kfd->uid.has_value());
	auto rn = r.stat("dev/dri/by-path/pci-0000:03:00.0-render"); // via a link: canonical path matches
	REQUIRE(rn.ok());
	CHECK(rn->from_manifest);
	CHECK(rn->dev_minor == 128);
	auto card = r.stat("dev/dri/card0"); // its manifest line is malformed: real stat
	REQUIRE(card.ok());
	CHECK_FALSE(card->from_manifest);
	CHECK(card->type == FileType::regular);
	REQUIRE(card->uid.has_value());
	CHECK(*card->uid == ::geteuid());
	CHECK(r.devnode_manifest().entries.size() == 2);
	REQUIRE(r.devnode_manifest().problems.size() == 2);
	CHECK_THAT(r.devnode_manifest().problems[0], ContainsSubstring("line 4: type must be 'c' or 'b'"));
	auto pw = r.stat("etc/passwd");
	REQUIRE(pw.ok());
	CHECK(pw->type == FileType::regular);
	CHECK(pw->size == 26);
	CHECK(r.stat("dev").value().type == FileType::directory);
	CHECK(r.stat("dev/nope").error().kind == FsErrorKind::not_found);
}

TEST_CASE("rootfs: every file is read at most once (memoised)", "[rootfs]")
{
	TempTree t;
	t.file("proc/version", "Linux version 6.12.117+deb12-amd64\n");
	t.dir("sys/class/drm");
	RootFs r(t.root());
	CHECK(r.read_text("proc/version").ok());
	t.file("proc/version", "CHANGED\n"); // a second read would see this
	CHECK(r.read_value("proc/version").value() == "Linux version 6.12.117+deb12-amd64");
	CHECK(r.read_text("/proc/./version").value() == "Linux version 6.12.117+deb12-amd64\n");
	CHECK(r.counters().file_reads == 1);
	CHECK(r.list_dir("sys/class/drm").ok());
	CHECK(r.list_dir("sys/class/drm/").ok());
	CHECK(r.counters().dir_lists == 1);
	CHECK(r.read_text("missing").error().kind == FsErrorKind::not_found);
	CHECK(r.read_text("missing").error().kind == FsErrorKind::not_found);
	CHECK(r.stat("proc/version").ok());
	CHECK(r.stat("proc/version").ok());
	CHECK(r.counters().stats == 1);
}

TEST_CASE("rootfs: a root that does not exist or is a file", "[rootfs]")
{
	TempTree t;
	RootFs r(t.root() + "/does-not-exist");
	REQUIRE(r.root_error().has_value());
	CHECK(r.root_error()->kind == FsErrorKind::not_found);
	CHECK_THAT(r.root_error()->reason(), ContainsSubstring("root directory '"));
	auto e = r.read_text("proc/version");
	REQUIRE_FALSE(e.ok());
	CHECK(e.error().kind == FsErrorKind::not_found);
	CHECK_FALSE(r.exists("proc"));
	CHECK_FALSE(r.list_dir("").ok());
	t.file("plainfile", "x");
	RootFs f(t.root() + "/plainfile");
	REQUIRE(f.root_error().has_value());
	CHECK(f.root_error()->kind == FsErrorKind::not_directory);
}

TEST_CASE("rootfs: the live root uses the same API", "[rootfs]")
{
	RootFs r("/");
	CHECK(r.is_live());
	auto v = r.read_text("proc/version");
	REQUIRE(v.ok());
	CHECK_THAT(*v, StartsWith("Linux version "));
	auto self = r.canonical("proc/self");
	REQUIRE(self.ok());
	CHECK(*self == "proc/" + std::to_string(::getpid()));
	CHECK(r.read_text("proc/self/nope-not-here").error().kind == FsErrorKind::not_found);
	auto environ = r.read_bytes("proc/self/environ");
	CHECK(environ.ok());
	CHECK(r.host_path("proc/version").value() == "/proc/version");
	// Device nodes are never opened by read_text.
	auto null = r.read_text("dev/null");
	REQUIRE_FALSE(null.ok());
	CHECK_THAT(null.error().detail, ContainsSubstring("char_device"));
	auto st = r.stat("dev/null");
	REQUIRE(st.ok());
	CHECK(st->type == FileType::char_device);
	CHECK(st->dev_major == 1);
	CHECK(st->dev_minor == 3);
}

TEST_CASE("rootfs: in-root resolution agrees with the kernel's realpath()", "[rootfs]")
{
	// For links that stay inside the tree, resolving below the root must give
	// exactly what the kernel gives (the --root and live paths agree).
	TempTree t;
	const std::string dev = "sys/devices/pci0000:00/0000:00:03.1/0000:0a:00.0/0000:0b:00.0/0000:0c:00.0";
	t.file(dev + "/vendor", "0x1002\n");
	t.dir(dev + "/drm/card1");
	t.dir(dev + "/drm/renderD128");
	t.dir("sys/bus/pci/drivers/amdgpu");
	t.link("sys/bus/pci/devices/0000:0c:00.0",
	       "../../../devices/pci0000:00/0000:00:03.1/0000:0a:00.0/0000:0b:00.0/0000:0c:00.0");
	t.link(dev + "/driver", "../../../../../../bus/pci/drivers/amdgpu");
	t.link("sys/class/drm/card1",
	       "../../devices/pci0000:00/0000:00:03.1/0000:0a:00.0/0000:0b:00.0/0000:0c:00.0/drm/card1");
	t.link("sys/class/drm/renderD128", "../../" + dev.substr(4) + "/drm/renderD128");
	t.link(dev + "/drm/card1/device", "../../../0000:0c:00.0");
	t.link("sys/dev/char/226:1",
	       "../../devices/pci0000:00/0000:00:03.1/0000:0a:00.0/0000:0b:00.0/0000:0c:00.0/drm/card1");
	t.link("hop1", "sys/class/drm/card1/device/drm/../drm/./renderD128");
	t.link("hop2", "sys/class/drm/card1/device/../0000:0c:00.0/vendor");
	RootFs r(t.root());
	const char *paths[] = {"sys/bus/pci/devices/0000:0c:00.0/driver",
			       "sys/class/drm/card1/device",
			       "sys/class/drm/card1/device/vendor",
			       "sys/class/drm/renderD128/../card1/device/driver",
			       "sys/dev/char/226:1/device/drm",
			       "hop1",
			       "hop2",
			       "sys/class/drm/card1/device/../../.."};
	for (const char *p : paths) {
		INFO(p);
		std::unique_ptr<char, decltype(&::free)> real(::realpath((t.root() + "/" + p).c_str(), nullptr),
							      &::free);
		REQUIRE(real != nullptr);
		auto ours = r.canonical(p);
		REQUIRE(ours.ok());
		const std::string prefix = fs::canonical(t.root()).string();
		std::string expected = std::string(real.get()).substr(prefix.size());
		if (!expected.empty() && expected.front() == '/')
			expected.erase(0, 1);
		CHECK(*ours == expected);
	}
}
