// The GRUB drop-in, sourced for real: fixture /etc/default/grub files and
// grub.d drop-ins are sourced in grub-mkconfig's order (/etc/default/grub,
// then /etc/default/grub.d/*.cfg by name; Debian's grub-mkconfig) by /bin/sh,
// dash, bash --posix and busybox sh under `set -e` (as grub-mkconfig runs) and
// `set -eu`, and the two variables are compared with the expected words.
#include "config/grub_dropin.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

using namespace rdnafix;
using config::CmdlineChange;

namespace {

namespace fs = std::filesystem;

struct Layout {
	std::string grub;                             // /etc/default/grub
	std::map<std::string, std::string> grub_d;    // other grub.d/*.cfg files
	std::vector<CmdlineChange> state;             // rdnactl's drop-in
	std::string linux_expected, default_expected; // after sourcing
	bool twice = true;                            // also source everything twice (idempotence of the drop-in)
};

std::vector<std::string> shells()
{
	std::vector<std::string> out;
	for (const char *sh : {"/bin/sh", "/bin/dash", "/bin/bash --posix", "/usr/bin/busybox sh"}) {
		std::string path(sh);
		path = path.substr(0, path.find(' '));
		if (::access(path.c_str(), X_OK) == 0)
			out.emplace_back(sh);
	}
	return out;
}

std::pair<int, std::string> run(const std::string &cmd)
{
	std::string out;
	FILE *f = ::popen(cmd.c_str(), "r");
	REQUIRE(f);
	char buf[512];
	while (std::fgets(buf, sizeof buf, f))
		out += buf;
	return {::pclose(f), out};
}

// Sources the layout `times` times over (the drop-in twice: idempotence) and
// prints the variables; also prints any rdnafix_ name left behind.
std::string source_layout(const Layout &l, const std::string &shell, const std::string &opts, int times = 1)
{
	static int n = 0;
	const fs::path dir =
		fs::temp_directory_path() / ("rdnafix-grub-" + std::to_string(::getpid()) + "-" + std::to_string(++n));
	fs::create_directories(dir / "grub.d");
	std::ofstream(dir / "grub") << l.grub;
	for (const auto &[name, text] : l.grub_d)
		std::ofstream(dir / "grub.d" / name) << text;
	std::ofstream(dir / "grub.d" / "rdnafix.cfg") << config::detail::render_grub_dropin(l.state);
	std::string script = "set " + opts + "\n";
	for (int i = 0; i < times; ++i)
		script += "if test -f ./grub ; then . ./grub ; fi\n"
			  "for x in ./grub.d/*.cfg ; do if [ -e \"${x}\" ]; then . \"${x}\"; fi; done\n";
	script +=
		"printf 'LINUX=[%s]\\nDEFAULT=[%s]\\n' \"${GRUB_CMDLINE_LINUX-}\" \"${GRUB_CMDLINE_LINUX_DEFAULT-}\"\n"
		"set | grep '^rdnafix_' || true\n"
		"if command -v rdnafix_param >/dev/null 2>&1; then echo LEFT-FUNCTION; fi\n";
	std::ofstream(dir / "run.sh") << script;
	auto [rc, out] = run("cd '" + dir.string() + "' && " + shell + " ./run.sh 2>&1");
	fs::remove_all(dir);
	if (rc != 0)
		out += "EXIT " + std::to_string(rc);
	return out;
}

void check_layout(const Layout &l)
{
	const std::string want = "LINUX=[" + l.linux_expected + "]\nDEFAULT=[" + l.default_expected + "]\n";
	auto sh = shells();
	REQUIRE(sh.size() >= 2);
	for (const auto &shell : sh)
		for (const std::string opts : {"-e", "-eu"})
			for (int times : {1, 2}) {
				if (times == 2 && !l.twice)
					continue;
				INFO(shell << " set " << opts << ", sourced " << times << " time(s)");
				CHECK(source_layout(l, shell, opts, times) == want);
			}
}

} // namespace

TEST_CASE("GRUB drop-in: the parameter in GRUB_CMDLINE_LINUX is replaced there", "[grub][shell]")
{
	check_layout({"GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\nGRUB_CMDLINE_LINUX=\"console=ttyS0 amdgpu.noretry=0 "
		      "nomodeset\"\n",
		      {},
		      {{"amdgpu.noretry", "1"}},
		      "console=ttyS0 nomodeset amdgpu.noretry=1",
		      "quiet"});
}

TEST_CASE("GRUB drop-in: the parameter in GRUB_CMDLINE_LINUX_DEFAULT stays there", "[grub][shell]")
{
	// Debian's shipped /etc/default/grub with the forum's line.
	check_layout({"GRUB_DEFAULT=0\nGRUB_TIMEOUT=5\n"
		      "GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`\n"
		      "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet amdgpu.noretry=0 amdgpu.vm_fragment_size=9 splash\"\n"
		      "GRUB_CMDLINE_LINUX=\"\"\n",
		      {},
		      {{"amdgpu.noretry", "1"}, {"amdgpu.vm_fragment_size", std::nullopt}},
		      "",
		      "quiet splash amdgpu.noretry=1"});
}

TEST_CASE("GRUB drop-in: in both variables -> GRUB_CMDLINE_LINUX only; absent -> _DEFAULT", "[grub][shell]")
{
	check_layout({"GRUB_CMDLINE_LINUX=\"amdgpu.noretry=0 ro\"\nGRUB_CMDLINE_LINUX_DEFAULT=\"amdgpu.noretry=0 "
		      "quiet\"\n",
		      {},
		      {{"amdgpu.noretry", "1"}},
		      "ro amdgpu.noretry=1",
		      "quiet"});
	check_layout({"GRUB_CMDLINE_LINUX=\"ro\"\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n",
		      {},
		      {{"ttm.pages_limit", "25165824"}, {"ttm.page_pool_size", "25165824"}},
		      "ro",
		      "quiet ttm.pages_limit=25165824 ttm.page_pool_size=25165824"});
}

TEST_CASE("GRUB drop-in: no variables at all, removals only, set -u safe", "[grub][shell]")
{
	check_layout({"GRUB_TIMEOUT=5\n", {}, {{"amdgpu.noretry", "1"}}, "", "amdgpu.noretry=1"});
	check_layout({"GRUB_TIMEOUT=5\n", {}, {{"amdgpu.noretry", std::nullopt}}, "", ""});
}

TEST_CASE("GRUB drop-in: quoting, tabs, glob characters and dash spellings", "[grub][shell]")
{
	// Single quotes, a quoted value with a comma, tabs and runs of blanks,
	// words with glob characters (never expanded), amdgpu.vm-fragment-size
	// spelled with dashes (the kernel treats - and _ alike), and a word that
	// only starts like a managed one.
	check_layout({"GRUB_CMDLINE_LINUX_DEFAULT='quiet  amdgpu.lockup_timeout=\"1000,2000\"\tamdgpu.noretry=0 "
		      "amdgpu.vm-fragment-size=9 foo=* bar=[ab] amdgpu.noretry_extra=1'\n"
		      "GRUB_CMDLINE_LINUX=\"\"\n",
		      {},
		      {{"amdgpu.noretry", "1"}, {"amdgpu.vm_fragment_size", std::nullopt}},
		      "",
		      "quiet amdgpu.lockup_timeout=\"1000,2000\" foo=* bar=[ab] amdgpu.noretry_extra=1 "
		      "amdgpu.noretry=1"});
}

TEST_CASE("GRUB drop-in: after other drop-ins that append to themselves", "[grub][shell]")
{
	// A cloud-image style drop-in sorted before rdnafix.cfg appends the
	// forum's parameter; one sorted after appends another word.
	check_layout({"GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\nGRUB_CMDLINE_LINUX=\"\"\n",
		      {{"50-cloudimg-settings.cfg",
			"GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT amdgpu.noretry=0 console=ttyS0\"\n"},
		       {"zz-late.cfg", "GRUB_CMDLINE_LINUX=\"${GRUB_CMDLINE_LINUX} nosplash\"\n"}},
		      {{"amdgpu.noretry", "1"}},
		      " nosplash",
		      "quiet console=ttyS0 amdgpu.noretry=1",
		      false}); // the other drop-ins append again on every sourcing
}
