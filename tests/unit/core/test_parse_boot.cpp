// Shell-assignment files: os-release(5) and /etc/default/grub with drop-ins.
#include <catch2/catch_test_macros.hpp>

#include "core/parse_boot.hpp"

#include <fstream>
#include <sstream>

using namespace rdnafix::core;

namespace {

std::string slurp(const std::string &path)
{
	std::ifstream f(path);
	std::stringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

} // namespace

TEST_CASE("os-release: a real Debian 12 file", "[parse][boot]")
{
	auto r = parse_os_release(slurp(std::string(RDNAFIX_CORE_TEST_DATA) + "/os-release-debian12"));
	CHECK(r.id == "debian");
	CHECK(r.version_id == "12");
	CHECK(r.version_codename == "bookworm");
	CHECK(r.pretty_name == "Debian GNU/Linux 12 (bookworm)");
	CHECK(r.id_like.empty());
}

TEST_CASE("os-release: single quotes, escapes, ID_LIKE and VARIANT_ID", "[parse][boot]")
{
	auto r = parse_os_release("ID=fedora\nVARIANT_ID='silverblue'\nID_LIKE=\"rhel centos\"\n"
				  "PRETTY_NAME=\"Fedora \\\"Linux\\\" 41\"\n");
	CHECK(r.id == "fedora");
	CHECK(r.variant_id == "silverblue");
	CHECK(r.id_like == "rhel centos");
	CHECK(r.pretty_name == "Fedora \"Linux\" 41");
}

TEST_CASE("grub defaults: the variables, lines and expansions", "[parse][boot]")
{
	// Debian's /etc/default/grub layout, with a forum line added.
	auto a = parse_shell_assignments(
		"# If you change this file, run 'update-grub' afterwards\n"
		"GRUB_DEFAULT=0\n"
		"GRUB_TIMEOUT=5\n"
		"GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`\n"
		"GRUB_CMDLINE_LINUX_DEFAULT=\"quiet amdgpu.noretry=0\"\n"
		"GRUB_CMDLINE_LINUX=\"\"\n"
		"#GRUB_GFXMODE=640x480\n"
		"export GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT iommu=pt\" # drop-in\n");
	REQUIRE(a.assignments.size() == 6);
	CHECK(a.problems.empty());
	CHECK(a.assignments[2].name == "GRUB_DISTRIBUTOR");
	CHECK(a.assignments[2].expands);
	CHECK(a.assignments[3].name == "GRUB_CMDLINE_LINUX_DEFAULT");
	CHECK(a.assignments[3].value == "quiet amdgpu.noretry=0");
	CHECK(a.assignments[3].raw == "\"quiet amdgpu.noretry=0\"");
	CHECK(a.assignments[3].line == 5);
	CHECK_FALSE(a.assignments[3].expands);
	CHECK(a.assignments[4].value.empty());
	CHECK(a.assignments[5].line == 8);
	CHECK(a.assignments[5].expands);
	CHECK(a.assignments[5].appends_self);
	CHECK(a.assignments[5].value == "$GRUB_CMDLINE_LINUX_DEFAULT iommu=pt");
}

TEST_CASE("grub defaults: what is not a simple assignment is a problem, not a value", "[parse][boot]")
{
	auto a = parse_shell_assignments("if [ -x /x ]; then\nGRUB_CMDLINE_LINUX=\"a\nfi\nX=a b\n"
					 "Y=${YY} \nGRUB_CMDLINE_LINUX='a \"b\"'\n");
	REQUIRE(a.assignments.size() == 2);
	CHECK(a.assignments[0].name == "Y");
	CHECK(a.assignments[0].expands);
	CHECK_FALSE(a.assignments[0].appends_self); // ${YY} is another variable
	CHECK(a.assignments[1].value == "a \"b\"");
	REQUIRE(a.problems.size() == 4);
	CHECK(a.problems[0] == "line 1: not a NAME=value assignment");
	CHECK(a.problems[1] == "line 2: GRUB_CMDLINE_LINUX: unterminated quote or more than one word");
	CHECK(a.problems[3] == "line 4: X: unterminated quote or more than one word");
}
