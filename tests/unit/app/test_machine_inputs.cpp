// The real binary on inputs a user gets wrong or a machine makes odd: --user
// as a uid, --output "", an --env file that is a FIFO or holds a NUL, a --root
// without search permission, per-node override names no node can have, a
// device-node manifest that cannot be read, a write that fails with an errno
// and a probe that crashes.  Each answer names the input and why, once.
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using Catch::Matchers::ContainsSubstring;
using rdnafix::test::run_rdnactl;
using rdnafix::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kFx = std::string(RDNAFIX_FIXTURES) + "/rx6750xt-raphael";

std::vector<std::string> fixture(const std::string &root = kFx + "/root")
{
	return {"status", "--root", root, "--env", kFx + "/env", "--no-coverage"};
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string> &more)
{
	a.insert(a.end(), more.begin(), more.end());
	return a;
}

std::size_t count(const std::string &text, const std::string &what)
{
	std::size_t n = 0;
	for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
		++n;
	return n;
}

// A copy of the fixture's root in `t`, to change.
std::string copy_root(const TempDir &t)
{
	const fs::path r = t.path() / "root";
	fs::copy(kFx + "/root", r, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
	return r.string();
}

} // namespace

// N1: etc/group lists members by name; a uid was looked up as if it were one.
TEST_CASE("status --user UID judges the groups of --user NAME (same JSON)", "[app][access]")
{
	const auto by_name = run_rdnactl(with(fixture(), {"--user", "alice", "--json"}));
	const auto by_uid = run_rdnactl(with(fixture(), {"--user", "1000", "--json"}));
	INFO(by_uid.err);
	REQUIRE(by_name.exit_code == by_uid.exit_code);
	const auto a = nlohmann::json::parse(by_name.out), b = nlohmann::json::parse(by_uid.out);
	CHECK(rdnafix::test::json_diff(a, b).empty());
	CHECK(b["access"]["user"] == "alice");
	CHECK(b["access"]["session_groups"] == a["access"]["session_groups"]);
	CHECK(b["access"]["session_groups"].size() > 1); // the member groups, not the primary group alone
	for (const auto &f : b["findings"])
		CHECK(f["id"] != "RDNA-ACC-002");
}

TEST_CASE("status --output \"\" is a usage error, not stdout", "[app][output]")
{
	const auto r = run_rdnactl(with(fixture(), {"--user", "alice", "--output", ""}));
	CHECK(r.exit_code == 2);
	CHECK(r.out.empty());
	CHECK_THAT(r.err, ContainsSubstring("--output"));
	CHECK_THAT(r.err, ContainsSubstring("must not be empty"));
}

TEST_CASE("env and status refuse an --env FIFO or a file with a NUL, naming the file and why", "[app][env]")
{
	TempDir t;
	const std::string fifo = (t.path() / "env.fifo").string();
	REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
	t.write("env.nul", std::string("HSA_OVERRIDE_GFX_VERSION=10.3.0\n\0X=1\n", 37));
	const std::string nul = (t.path() / "env.nul").string();
	for (const char *verb : {"env", "status"}) {
		CAPTURE(verb);
		// A FIFO nobody writes: opened blocking, this would hang until the test's timeout.
		auto r = run_rdnactl({verb, "--root", kFx + "/root", "--user", "alice", "--env", fifo});
		CHECK(r.exit_code == 2);
		CHECK(r.out.empty());
		CHECK_THAT(r.err, ContainsSubstring("--env '" + fifo + "'"));
		CHECK_THAT(r.err, ContainsSubstring("not a regular file"));
		r = run_rdnactl({verb, "--root", kFx + "/root", "--user", "alice", "--env", nul});
		CHECK(r.exit_code == 2);
		CHECK(r.out.empty());
		CHECK_THAT(r.err, ContainsSubstring("--env '" + nul + "'"));
		CHECK_THAT(r.err, ContainsSubstring("NUL byte at offset 32"));
	}
}

TEST_CASE("a --root without search permission: permission denied, said once", "[app][root]")
{
	TempDir t;
	const std::string root = copy_root(t);
	fs::permissions(t.path(), fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec |
					  fs::perms::group_read | fs::perms::group_exec);
	REQUIRE(::chmod(root.c_str(), 0600) == 0);
	std::vector<std::string> prefix;
	if (::geteuid() == 0) {
		prefix = rdnafix::test::drop_root_prefix();
		if (prefix.empty())
			SKIP("root bypasses permissions and setpriv is missing");
	}
	for (const char *format : {"text", "json"}) {
		CAPTURE(format);
		const auto r =
			run_rdnactl({"status", "--root", root, "--user", "alice", "--format", format}, {}, prefix);
		INFO(r.out << r.err);
		CHECK(r.exit_code == 2);
		CHECK(count(r.out + r.err, "permission denied (EACCES)") == (std::string(format) == "json" ? 2u : 1u));
		CHECK_THAT(r.err, ContainsSubstring("rdnactl status: root '" + root + "': permission denied (EACCES)"));
		CHECK(r.err.find("has none of") == std::string::npos);
	}
}

TEST_CASE("per-node override names with an index no node can have are reported with what is valid", "[app][env]")
{
	// The process environment (no --env): a name with '-' cannot come from a shell file.
	const auto r =
		run_rdnactl({"status", "--root", kFx + "/root", "--no-coverage", "--user", "alice", "--json"},
			    {"HSA_OVERRIDE_GFX_VERSION_99999999999=10.3.0", "HSA_OVERRIDE_GFX_VERSION_-1=10.3.0"});
	INFO(r.err);
	const auto j = nlohmann::json::parse(r.out);
	for (const std::string name : {"HSA_OVERRIDE_GFX_VERSION_99999999999", "HSA_OVERRIDE_GFX_VERSION_-1"}) {
		CAPTURE(name);
		bool found = false;
		for (const auto &f : j["findings"])
			if (f["id"] == "RDNA-ENV-015" && f["subject"] == name) {
				found = true;
				CHECK_THAT(f["finding"].get<std::string>(),
					   ContainsSubstring("valid: HSA_OVERRIDE_GFX_VERSION_<N>"));
			}
		CHECK(found);
	}
}

TEST_CASE("an unreadable or malformed dev/.devnodes: access is unknown everywhere, named once", "[app][access]")
{
	TempDir t;
	const std::string root = copy_root(t);
	SECTION("a bad line and /dev/kfd not described: the Access line agrees with the finding")
	{
		std::ofstream(root + "/dev/.devnodes") << "dev/dri/renderD128 c 226:128 0660 root render\nbad line\n";
		const auto text = run_rdnactl(with(fixture(root), {"--user", "root", "--color", "never", "--verbose"}));
		INFO(text.out);
		std::string kfd_line;
		std::istringstream in(text.out);
		for (std::string l; std::getline(in, l);)
			if (l.rfind("  /dev/kfd ", 0) == 0 && kfd_line.empty())
				kfd_line = l; // the node's line; a later one lists it as unreadable
		CHECK_THAT(kfd_line, ContainsSubstring("open unknown"));
		CHECK(kfd_line.find("can open") == std::string::npos);
		CHECK(kfd_line.find("CANNOT") == std::string::npos);
		CHECK_THAT(text.out, ContainsSubstring("dev/.devnodes: unreadable: line 2:"));
		CHECK(text.out.find("unreadable: dev/.devnodes line") == std::string::npos);
		const auto json =
			nlohmann::json::parse(run_rdnactl(with(fixture(root), {"--user", "root", "--json"})).out);
		for (const auto &n : json["access"]["nodes"])
			if (n["path"] == "/dev/kfd")
				CHECK(n["can_open"].is_null());
	}
	SECTION("dev/.devnodes is a directory: the reason once, not 'dev/.devnodes: unreadable:' twice")
	{
		fs::remove(root + "/dev/.devnodes");
		fs::create_directory(root + "/dev/.devnodes");
		const auto r = run_rdnactl(with(fixture(root), {"--user", "alice", "--color", "never"}));
		INFO(r.out);
		CHECK_THAT(r.out, ContainsSubstring("dev/.devnodes: unreadable: is a directory (EISDIR)"));
		CHECK(r.out.find("unreadable: dev/.devnodes: unreadable") == std::string::npos);
	}
}

// The errno of a failed write is spelt as everywhere ("(ENOSPC)", not
// "(errno 28)"), and the path as the user gave it (with its leading '/').
TEST_CASE("status --output: a failed write names the path as given and the errno by name", "[app][output]")
{
	if (std::system("command -v strace >/dev/null 2>&1") != 0)
		SKIP("strace (fault injection) is not installed");
	TempDir t;
	const std::string out = (t.path() / "rdnafix.prom").string();
	const auto r = run_rdnactl(with(fixture(), {"--user", "alice", "--format", "prometheus", "--output", out}), {},
				   {"/usr/bin/strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=fsync", "-e",
				    "inject=fsync:error=ENOSPC"});
	INFO(r.err);
	CHECK(r.exit_code == 2);
	CHECK_THAT(r.err, ContainsSubstring("--output " + out + ": cannot write: no space left on device (ENOSPC)"));
	CHECK(r.err.find("errno 28") == std::string::npos);
	CHECK(r.err.find(" " + out.substr(1)) == std::string::npos); // never the root-relative "tmp/..."
	CHECK_FALSE(fs::exists(out));
	CHECK(fs::is_empty(t.path())); // the temporary file was removed
}

// A probe that crashes is the probe's process, not "the case process".
TEST_CASE("validate: a crashing GPU runtime probe is named as the probe", "[app][validate]")
{
	TempDir t;
	t.write("crash.c",
		"#include <signal.h>\n__attribute__((constructor)) static void boom(void) { raise(SIGSEGV); }\n");
	fs::create_directories(t.path() / "lib");
	const std::string cc = "cc -shared -fPIC -o '" + (t.path() / "lib/libamdhip64.so.7").string() + "' '" +
			       (t.path() / "crash.c").string() + "' 2>/dev/null";
	if (std::system(cc.c_str()) != 0)
		SKIP("no C compiler to build the crashing runtime");
	const auto r = run_rdnactl({"validate", "--no-history"}, {"ROCM_PATH=" + t.path().string()});
	INFO(r.out << r.err);
	if ((r.out + r.err).find("built without the GPU backend") != std::string::npos)
		SKIP("this rdnactl has no GPU backend: nothing is probed");
	CHECK(r.exit_code == 2);
	CHECK_THAT(r.out + r.err, ContainsSubstring("the probe process was killed by signal 11 (SIGSEGV)"));
	CHECK((r.out + r.err).find("case process") == std::string::npos);
}
