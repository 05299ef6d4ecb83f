// modprobe.d parsing (kmod rules) and provenance.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "core/parse.hpp"

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix::core;

TEST_CASE("modprobe.d: every directive with provenance", "[parse][modprobe]")
{
	const char *text = "# /etc/modprobe.d/amdgpu.conf\n"                                      // 1
			   "options amdgpu noretry=0 vm_fragment_size=9\n"                        // 2
			   "\n"                                                                   // 3
			   "softdep amdgpu pre: rdnafix post: snd-hda-intel\n"                    // 4
			   "install rdnafix /sbin/modprobe --ignore-install rdnafix && echo ok\n" // 5
			   "remove rdnafix /sbin/modprobe -r --ignore-remove rdnafix\n"           // 6
			   "blacklist radeon\n"                                                   // 7
			   "alias pci:v00001002d*sv*sd*bc03sc*i* amdgpu\n";                       // 8
	auto c = parse_modprobe_conf(text, "/etc/modprobe.d/amdgpu.conf");
	CHECK(c.problems.empty());
	REQUIRE(c.entries.size() == 6);
	const auto &o = c.entries[0];
	CHECK(o.kind == ModprobeKind::options);
	CHECK(o.module == "amdgpu");
	REQUIRE(o.params.size() == 2);
	CHECK(o.params[0].name == "noretry");
	CHECK(o.params[0].value == "0");
	CHECK(o.where.file == "/etc/modprobe.d/amdgpu.conf");
	CHECK(o.where.line == 2);
	const auto &s = c.entries[1];
	CHECK(s.kind == ModprobeKind::softdep);
	CHECK(s.pre == std::vector<std::string>{"rdnafix"});
	CHECK(s.post == std::vector<std::string>{"snd_hda_intel"}); // '-' normalized
	CHECK(s.where.line == 4);
	CHECK(c.entries[2].kind == ModprobeKind::install);
	CHECK(c.entries[2].module == "rdnafix");
	CHECK(c.entries[2].command == "/sbin/modprobe --ignore-install rdnafix && echo ok");
	CHECK(c.entries[3].kind == ModprobeKind::remove);
	CHECK(c.entries[4].kind == ModprobeKind::blacklist);
	CHECK(c.entries[4].module == "radeon");
	CHECK(c.entries[5].kind == ModprobeKind::alias);
	CHECK(c.entries[5].alias == "pci:v00001002d*sv*sd*bc03sc*i*");
	CHECK(c.entries[5].module == "amdgpu");
}

TEST_CASE("modprobe.d: backslash continuations join lines; provenance is the first line", "[parse][modprobe]")
{
	const char *text = "options amdgpu \\\n"
			   "  noretry=1 \\\n"
			   "  gttsize=8192\n"
			   "options amdgpu ppfeaturemask=0xfff7bfff\n";
	auto c = parse_modprobe_conf(text, "x.conf");
	REQUIRE(c.entries.size() == 2);
	REQUIRE(c.entries[0].params.size() == 2);
	CHECK(c.entries[0].params[1].name == "gttsize");
	CHECK(c.entries[0].params[1].value == "8192");
	CHECK(c.entries[0].where.line == 1);
	CHECK(c.entries[1].where.line == 4);
	// A backslash on the very last line is tolerated.
	auto d = parse_modprobe_conf("options amdgpu dc=1 \\", "y.conf");
	REQUIRE(d.entries.size() == 1);
	CHECK(d.entries[0].params.size() == 1);
}

TEST_CASE("modprobe.d: comments only in column 0; mid-line '#' is passed to the module", "[parse][modprobe]")
{
	const char *text = "#options amdgpu noretry=1\n"
			   "  # indented comment-looking line\n"
			   "options amdgpu noretry=0 # noretry=1\n";
	auto c = parse_modprobe_conf(text, "c.conf");
	REQUIRE(c.entries.size() == 1);
	// kmod passes "noretry=0 # noretry=1": the kernel then sees noretry=1 last.
	REQUIRE(c.entries[0].params.size() == 3);
	CHECK(c.entries[0].params[2].name == "noretry");
	CHECK(c.entries[0].params[2].value == "1");
	REQUIRE(c.problems.size() == 2);
	CHECK_THAT(c.problems[0], ContainsSubstring("c.conf line 2: unknown directive '#'"));
	CHECK_THAT(c.problems[1], ContainsSubstring("is not a comment"));
	auto opts = module_options({c}, "amdgpu");
	REQUIRE(opts.size() == 2); // "noretry" and "#"
	CHECK(opts[0].first == "noretry");
	CHECK(opts[0].second.value == "1");
}

TEST_CASE("modprobe.d: quoted values and module-name equivalence", "[parse][modprobe]")
{
	auto c = parse_modprobe_conf("options snd-hda-intel model=\"dell headset\" power_save=0\n", "q.conf");
	REQUIRE(c.entries.size() == 1);
	CHECK(c.entries[0].module == "snd_hda_intel");
	CHECK(c.entries[0].params[0].value == "dell headset");
	CHECK(module_options({c}, "snd-hda-intel").size() == 2);
}

TEST_CASE("modprobe.d: malformed lines become problems, never crashes", "[parse][modprobe]")
{
	const char *text = "options amdgpu\n"
			   "options\n"
			   "install amdgpu\n"
			   "softdep amdgpu\n"
			   "softdep amdgpu junk pre: a\n"
			   "blacklist\n"
			   "alias onlyone\n"
			   "include /etc/other.conf\n"
			   "frobnicate amdgpu\n";
	auto c = parse_modprobe_conf(text, "bad.conf");
	REQUIRE(c.entries.size() == 1); // the second softdep (with a warning about 'junk')
	CHECK(c.entries[0].pre == std::vector<std::string>{"a"});
	CHECK(c.problems.size() == 9);
	CHECK_THAT(c.problems[0], ContainsSubstring("bad.conf line 1: 'options' needs a module"));
	CHECK_THAT(c.problems.back(), ContainsSubstring("unknown directive 'frobnicate'"));
	auto bin = parse_modprobe_conf(std::string("\0\x01\x02options", 10), "bin.conf");
	CHECK(bin.entries.empty());
	CHECK(parse_modprobe_conf("", "e.conf").entries.empty());
}

TEST_CASE("modprobe.d: options across files, last one wins, provenance kept", "[parse][modprobe]")
{
	auto a = parse_modprobe_conf("options amdgpu noretry=0 gttsize=4096\n", "/etc/modprobe.d/10-a.conf");
	auto b = parse_modprobe_conf("blacklist x\noptions amdgpu noretry=1\n", "/etc/modprobe.d/20-b.conf");
	auto opts = module_options({a, b}, "amdgpu");
	REQUIRE(opts.size() == 2);
	CHECK(opts[0].first == "noretry");
	CHECK(opts[0].second.value == "1");
	CHECK(opts[0].second.where.file == "/etc/modprobe.d/20-b.conf");
	CHECK(opts[0].second.where.line == 2);
	CHECK(opts[1].second.where.file == "/etc/modprobe.d/10-a.conf");
	CHECK(module_options({a, b}, "radeon").empty());
}

TEST_CASE("modprobe.d: which files kmod reads, in which order", "[parse][modprobe]")
{
	std::vector<ModprobeDir> dirs = {
		{"etc/modprobe.d", {"zz.conf", "amdgpu.conf", ".hidden.conf", "README", "old.conf.bak"}},
		{"run/modprobe.d", {}},
		{"lib/modprobe.d", {"amdgpu.conf", "aliases.conf", "legacy.alias"}},
	};
	auto files = modprobe_file_order(dirs);
	REQUIRE(files.size() == 4);
	CHECK(files[0].name == "aliases.conf");
	CHECK(files[0].dir == "lib/modprobe.d");
	CHECK(files[1].name == "amdgpu.conf");
	CHECK(files[1].dir == "etc/modprobe.d"); // /etc hides /lib's file of the same name
	CHECK(files[2].name == "legacy.alias");
	CHECK(files[3].name == "zz.conf");
}
