// rdnactl config as a program: exit codes and messages of show, set, unset
// and undo on temporary roots; as an unprivileged user (setpriv to nobody)
// a change is refused with the reason and a dry run works.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support.hpp"

#include "io/child_runner.hpp"
#include "rdnafix_policy.h"

#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix;
using test::TempRoot;

namespace {

struct Out {
	int rc = -1;
	std::string text; // stdout + stderr
};

Out rdnactl(const std::vector<std::string> &args, bool as_nobody = false, const std::string &exe = RDNACTL_BIN)
{
	io::ChildSpec spec;
	if (as_nobody) {
		spec.exe = "/usr/bin/setpriv";
		spec.args = {"--reuid=65534", "--regid=65534", "--clear-groups", "--", exe};
	} else {
		spec.exe = exe;
	}
	spec.args.insert(spec.args.end(), args.begin(), args.end());
	spec.timeout_s = 120;
	spec.output_tail_bytes = 1 << 20;
	auto o = io::run_child(spec);
	return Out{o.exited ? o.exit_code : -1, o.output_tail};
}

// Where an unprivileged user can run a copy of rdnactl (the checkout may sit
// below a private directory); empty when this host cannot.
class NobodyCopy {
public:
	NobodyCopy()
	{
		namespace fs = std::filesystem;
		if (::geteuid() != 0 || ::access("/usr/bin/setpriv", X_OK) != 0)
			return;
		char tmpl[] = "/tmp/rdnafix-cfgcli-XXXXXX";
		if (!::mkdtemp(tmpl))
			return;
		dir_ = tmpl;
		fs::permissions(dir_, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec |
					      fs::perms::group_read | fs::perms::group_exec);
		fs::copy_file(RDNACTL_BIN, dir_ + "/rdnactl");
		exe_ = dir_ + "/rdnactl";
	}
	~NobodyCopy()
	{
		std::error_code ec;
		if (!dir_.empty())
			std::filesystem::remove_all(dir_, ec);
	}
	[[nodiscard]] const std::string &exe() const { return exe_; }

private:
	std::string dir_, exe_;
};

} // namespace

TEST_CASE("cli: config --help teaches with examples; a missing verb or key is a usage error")
{
	auto h = rdnactl({"config", "--help"});
	CHECK(h.rc == 0);
	CHECK_THAT(h.text, ContainsSubstring("sudo rdnactl config set noretry=1 targets=rdna1,rdna2 mtype_sysmem=nc"));
	auto s = rdnactl({"config", "set", "--help"});
	CHECK(s.rc == 0);
	CHECK_THAT(s.text, ContainsSubstring("ttm-limit=SIZE"));
	CHECK_THAT(s.text, ContainsSubstring("--dry-run"));
	CHECK(rdnactl({"config"}).rc == 2);
	CHECK(rdnactl({"config", "set"}).rc == 2);
}

TEST_CASE("cli: invalid keys and values exit 2 with the message, and nothing is written")
{
	TempRoot t;
	const auto before = t.tree();
	auto bad = rdnactl({"config", "set", "--root", t.root(), "noretry=5", "strict=1"});
	CHECK(bad.rc == 2);
	CHECK_THAT(bad.text, ContainsSubstring(std::string("rdnactl config: error: invalid value '5' for "
							   "rdnafix.noretry: valid values are ") +
					       RDNAFIX_VALID_NORETRY));
	auto unknown = rdnactl({"config", "set", "--root", t.root(), "bogus=1"});
	CHECK(unknown.rc == 2);
	CHECK_THAT(unknown.text, ContainsSubstring("unknown key 'bogus'"));
	auto cl = rdnactl({"config", "unset", "--cmdline", "--root", t.root(), "quiet"});
	CHECK(cl.rc == 2);
	CHECK_THAT(cl.text, ContainsSubstring("--cmdline takes amdgpu.*"));
	auto ttm = rdnactl({"config", "set", "--root", t.root(), "ttm-limit=96G"});
	CHECK(ttm.rc == 2);
	CHECK_THAT(ttm.text, ContainsSubstring("proc/meminfo"));
	CHECK(t.tree() == before);
}

TEST_CASE("cli: config undo with an empty journal says so and exits 0")
{
	TempRoot t;
	auto u = rdnactl({"config", "undo", "--root", t.root()});
	CHECK(u.rc == 0);
	CHECK_THAT(u.text, ContainsSubstring("nothing to undo"));
	auto j = rdnactl({"config", "undo", "--json", "--root", t.root()});
	CHECK(nlohmann::json::parse(j.text)["nothing_to_do"] == true);
}

TEST_CASE("cli: as an unprivileged user a change exits 2 with the reason; a dry run works")
{
	NobodyCopy copy;
	if (copy.exe().empty())
		SKIP("needs root and setpriv to run rdnactl as nobody");
	TempRoot t;
	t.write("etc/modprobe.d/rdnafix.conf", "options rdnafix noretry=0\n");
	const auto before = t.tree();
	auto r = rdnactl({"config", "set", "--root", t.root(), "noretry=1"}, true, copy.exe());
	if (r.text.find("Permission denied") != std::string::npos && r.rc == 127)
		SKIP("nobody cannot execute the copy here");
	CHECK(r.rc == 2);
	CHECK_THAT(r.text, ContainsSubstring("needs root: run it with sudo, or add --dry-run"));
	auto u = rdnactl({"config", "undo", "--root", t.root()}, true, copy.exe());
	CHECK(u.rc == 0); // nothing to undo is not a change
	CHECK(t.tree() == before);

	auto d = rdnactl({"config", "set", "--dry-run", "--root", t.root(), "noretry=1"}, true, copy.exe());
	CHECK(d.rc == 0);
	CHECK_THAT(d.text, ContainsSubstring("+options rdnafix noretry=1"));
	CHECK(t.tree() == before);
}

TEST_CASE("cli: config show lists every managed key with file:line, next boot and live values")
{
	const std::string fx = std::string(RDNAFIX_TOP) + "/tests/fixtures/modprobe-vs-cmdline/root";
	auto s = rdnactl({"config", "show", "--root", fx});
	INFO(s.text);
	CHECK((s.rc == 0 || s.rc == 1));
	CHECK_THAT(s.text, ContainsSubstring("rdnafix.mtype_sysmem"));
	CHECK_THAT(s.text, ContainsSubstring("amdgpu.lockup_timeout"));
	CHECK_THAT(s.text, ContainsSubstring("etc/modprobe.d/amdgpu.conf:"));
	auto j = rdnactl({"config", "show", "--json", "--root", fx});
	auto doc = nlohmann::json::parse(j.text);
	CHECK(doc["settings"].size() == 16);
	bool found = false;
	for (const auto &row : doc["settings"])
		if (row["key"] == "amdgpu.noretry") {
			found = true;
			CHECK(row["next_boot"].is_string());
			CHECK(row["source"].get<std::string>().rfind("/etc/modprobe.d/amdgpu.conf:", 0) == 0);
		}
	CHECK(found);
	auto bad = rdnactl({"config", "show", "--root", "/nonexistent/rdnafix-x"});
	CHECK(bad.rc == 2);
}

TEST_CASE("cli: an invalid value is echoed with its control characters escaped")
{
	TempRoot t;
	t.ram(64);
	auto esc = rdnactl({"config", "set", "--root", t.root(), "ttm-limit=\x1b[2J"});
	CHECK(esc.rc == 2);
	CHECK_THAT(esc.text, ContainsSubstring("invalid value '\\e[2J' for ttm-limit"));
	CHECK(esc.text.find('\x1b') == std::string::npos);
	auto lockup = rdnactl({"config", "set", "--root", t.root(), "amdgpu.lockup_timeout=4294967296"});
	CHECK(lockup.rc == 2);
	CHECK_THAT(lockup.text, ContainsSubstring("wraps to 0 ms"));
	auto ttm = rdnactl({"config", "set", "--root", t.root(), "ttm-limit=4096"});
	CHECK(ttm.rc == 2);
	CHECK_THAT(ttm.text, ContainsSubstring("pages_limit=1 (4096 bytes) is less than the 262144 pages"));
}
