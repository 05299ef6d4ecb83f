// Machine text is hostile (issue 10, item 7): `rdnactl env` must stay valid
// shell that runs nothing it did not mean to, whatever the environment holds,
// and every text renderer (status, coverage, explain, config) escapes terminal
// control characters with core::terminal_safe (validate and history too).
#include "model.hpp"
#include "render.hpp"
#include "snapshot_builders.hpp"
#include "support.hpp"

#include "config/report.hpp"
#include "coverage/render.hpp"
#include "explain/model.hpp"
#include "validate/render.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace rdnafix::status;
using Catch::Matchers::ContainsSubstring;
using rdnafix::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Runs `script` with /bin/sh -c in `dir`; returns the exit status.
int sh(const fs::path &dir, const std::string &script)
{
	const fs::path f = dir / "cmd.sh";
	std::ofstream(f) << script;
	return std::system(("cd '" + dir.string() + "' && /bin/sh " + f.string() + " >/dev/null 2>&1").c_str());
}

// `out` is valid sh and bash, and eval'ing it creates no file named PWNED.
void check_inert(const std::string &out, const TempDir &t)
{
	std::ofstream(t.path() / "out") << out;
	CHECK(sh(t.path(), "bash -n out") == 0);
	CHECK(sh(t.path(), "sh -n out") == 0);
	CHECK(sh(t.path(), "eval \"$(cat out)\"") == 0);
	CHECK(sh(t.path(), "bash -c 'eval \"$(cat out)\"'") == 0);
	CHECK_FALSE(fs::exists(t.path() / "PWNED"));
	CHECK_FALSE(fs::exists(t.path() / "PWNED2"));
}

const std::string kHostile = "a'b\"c\\d\n$(touch PWNED)`touch PWNED2`;touch PWNED\r\x1b[31m\xff\xfe end";

bool has_raw_control(const std::string &s)
{
	for (unsigned char ch : s)
		if ((ch < 0x20 && ch != '\n') || ch == 0x7f)
			return true;
	return false;
}

} // namespace

TEST_CASE("env: hostile values, comments and names stay inert in sh, bash and fish", "[env][text-safety]")
{
	std::vector<Export> ex{
		{"PYTORCH_HIP_ALLOC_CONF", kHostile, false, "comment " + kHostile, "RDNA-ENV-010"},
		{"A$(touch PWNED)", "1", false, "bad name", "RDNA-ENV-015"},
		{"HIP_VISIBLE_DEVICE`touch PWNED`", "", true, "misspelt\n" + kHostile, "RDNA-ENV-015"},
		{"HIP_LAUNCH_BLOCKING", "", true, "slow (HIP_LAUNCH_BLOCKING=" + kHostile + ")", "RDNA-ENV-008"},
	};
	TempDir t;
	const std::string out = render_env(ex, Shell::sh);
	INFO(out);
	check_inert(out, t);
	// The value arrives byte for byte.
	std::ofstream(t.path() / "want") << kHostile;
	CHECK(sh(t.path(), "eval \"$(cat out)\"; printf %s \"$PYTORCH_HIP_ALLOC_CONF\" > got; cmp -s got want") == 0);
	// Outside the one quoted value (which holds a newline), every line is a comment or a command.
	std::string rest = out;
	const std::string q = "export PYTORCH_HIP_ALLOC_CONF='";
	auto at = rest.find(q);
	REQUIRE(at != std::string::npos);
	rest.erase(at, rest.find(" end'\n", at) + 6 - at);
	std::istringstream in(rest);
	for (std::string l; std::getline(in, l);)
		CHECK((l.empty() || l.rfind("# ", 0) == 0 || l == "unset HIP_LAUNCH_BLOCKING"));
	CHECK_THAT(out, ContainsSubstring("not a shell variable name"));
	const std::string fish = render_env(ex, Shell::fish);
	CHECK_THAT(fish, ContainsSubstring("set -gx PYTORCH_HIP_ALLOC_CONF 'a\\'b\"c\\\\d\n"));
	if (std::system("command -v fish >/dev/null 2>&1") == 0) {
		std::ofstream(t.path() / "out.fish") << fish;
		CHECK(sh(t.path(), "fish -n out.fish") == 0);
		CHECK(sh(t.path(),
			 "fish -c 'source out.fish; printf %s \"$PYTORCH_HIP_ALLOC_CONF\"' > got; cmp -s got want") ==
		      0);
		CHECK_FALSE(fs::exists(t.path() / "PWNED"));
	}
}

TEST_CASE("env: the real binary with a hostile process environment", "[env][text-safety]")
{
	const std::string fixture = std::string(RDNAFIX_FIXTURES) + "/rx6750xt-raphael/root";
	auto r = rdnafix::test::run_rdnactl(
		{"env", "--root", fixture, "--user", "alice"},
		{"HIP_LAUNCH_BLOCKING=" + kHostile,
		 "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True,max_split_size_mb:" + kHostile,
		 "HIP_VISIBLE_DEVICE`=0", "CUDA_VISIBLE_DEVICES=" + kHostile});
	CHECK_THAT(r.out, ContainsSubstring("HIP_VISIBLE_DEVICE`")); // RDNA-ENV-015 names it, in a comment
	INFO(r.out << r.err);
	REQUIRE(r.exit_code == 0);
	CHECK_THAT(r.out, ContainsSubstring("unset HIP_LAUNCH_BLOCKING"));
	TempDir t;
	check_inert(r.out, t);
}

TEST_CASE("status text: control characters from the environment are escaped", "[text-safety]")
{
	const std::string fixture = std::string(RDNAFIX_FIXTURES) + "/rx6750xt-raphael/root";
	auto r = rdnafix::test::run_rdnactl({"status", "--color", "never", "--root", fixture, "--user", "alice"},
					    {"HIP_LAUNCH_BLOCKING=1\x1b[2J\x1b]0;title\x07\nFAKE LINE"});
	INFO(r.out);
	CHECK_FALSE(has_raw_control(r.out));
	CHECK_THAT(r.out, ContainsSubstring("HIP_LAUNCH_BLOCKING=1\\e[2J\\e]0;title\\x07\\nFAKE LINE"));
	// With colour the only escapes are rdnactl's own styling.
	auto c = rdnafix::test::run_rdnactl({"status", "--color", "always", "--root", fixture, "--user", "alice"},
					    {"HIP_LAUNCH_BLOCKING=1\x1b[2J"});
	CHECK(c.out.find("\x1b[2J") == std::string::npos);
	CHECK(c.out.find("\x1b[1m") != std::string::npos);
}

TEST_CASE("coverage, explain and config text escape control characters", "[text-safety]")
{
	const std::string evil = "x\x1b[2J\ny\rz\x9b";
	rdnafix::coverage::Report cov;
	cov.notes.push_back("note " + evil);
	std::string c = rdnafix::coverage::render_text(cov, "/root" + evil);
	INFO(c);
	CHECK_FALSE(has_raw_control(c));
	CHECK_THAT(c, ContainsSubstring("/rootx\\e[2J\\ny\\rz"));

	rdnafix::explain::Report ex;
	ex.input = "log" + evil;
	ex.problems.push_back("problem " + evil);
	ex.context.push_back("context " + evil);
	std::string e = rdnafix::explain::render_text(ex);
	INFO(e);
	CHECK_FALSE(has_raw_control(e));
	CHECK_THAT(e, ContainsSubstring("logx\\e[2J\\ny\\rz"));

	rdnafix::config::Report cfg;
	cfg.warnings.push_back("warn " + evil);
	cfg.notes.push_back("note " + evil);
	cfg.errors.push_back("err " + evil);
	std::ostringstream out, err;
	rdnafix::config::render_text(cfg, out, err);
	INFO(out.str() << err.str());
	CHECK_FALSE(has_raw_control(out.str()));
	CHECK_FALSE(has_raw_control(err.str()));
	CHECK_THAT(out.str(), ContainsSubstring("warning: warn x\\e[2J\\ny\\rz"));
}

TEST_CASE("validate and history text escape control characters", "[text-safety]")
{
	using namespace rdnafix::validate;
	CaseResult r;
	r.name = "gemm-f32";
	r.status = Status::crash;
	r.reason = "signal\x1b[2J";
	r.output_tail = "first\x1b[31m line\nsecond\r line\n";
	r.kernel_log_note = "note\x1b]0;t\x07";
	std::string f = render_findings({r});
	INFO(f);
	CHECK_FALSE(has_raw_control(f));
	CHECK_THAT(f, ContainsSubstring("signal\\e[2J"));
	CHECK_THAT(f, ContainsSubstring("first\\e[31m line\nsecond\\r line\n")); // lines kept
	StoredRun run;
	run.id = 1;
	run.info.started_at = "2026-11-24T00:00:00Z";
	run.info.kernel_release = "6.12\x1b[2J";
	run.info.device = "GPU\nfake row";
	std::string h = render_history({run}, {});
	INFO(h);
	CHECK_FALSE(has_raw_control(h));
	CHECK_THAT(h, ContainsSubstring("6.12\\e[2J"));
	CHECK_THAT(h, ContainsSubstring("GPU\\nfake row"));
}
