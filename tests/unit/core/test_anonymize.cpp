// core::Anonymizer (rdnactl report) and core::is_environ_block (--env
// /proc/PID/environ): pure, values in, text out.
#include "core/anonymize.hpp"
#include "core/parse.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace rdnafix::core;

TEST_CASE("one pseudonym per value, everywhere, as whole words", "[anonymize]")
{
	Anonymizer a;
	a.add_user("alice", "/srv/people/alice");
	a.add_user("bob", "/home/bob");
	a.add_user("alice"); // again: keeps user1
	a.add_host("alices-rig");
	a.add_serial("5f3c21a9d4e8b7c6");
	std::map<PersonalKind, std::size_t> hits;
	const std::string in = "alice:x:1000:1000::/srv/people/alice:/bin/bash\n"
			       "bob is in render; malice and alice_x stay; alices-rig kernel: amdgpu\n"
			       "PATH=/srv/people/alice/venv/bin:/home/bob/.local/bin uid 5f3c21a9d4e8b7c6\n";
	CHECK(a.apply(in, &hits) == "user1:x:1000:1000::/home/user1:/bin/bash\n"
				    "user2 is in render; malice and alice_x stay; host1 kernel: amdgpu\n"
				    "PATH=/home/user1/venv/bin:/home/user2/.local/bin uid serial1\n");
	CHECK(hits[PersonalKind::user] == 2);
	CHECK(hits[PersonalKind::home] == 3);
	CHECK(hits[PersonalKind::host] == 1);
	CHECK(hits[PersonalKind::serial] == 1);
	CHECK(a.pseudonyms(PersonalKind::user) == std::vector<std::string>{"user1", "user2"});
	CHECK(a.count(PersonalKind::home) == 2);
}

TEST_CASE("root, one-letter names, localhost and short serials are never replaced", "[anonymize]")
{
	Anonymizer a;
	a.add_user("root", "/root");
	a.add_user("a", "/home/a");
	a.add_host("localhost");
	a.add_serial("00");
	CHECK(a.apply("root a localhost 00 /root /home/a") == "root a localhost 00 /root /home/a");
	CHECK(a.count(PersonalKind::user) == 0);
}

TEST_CASE("an environ block is NUL-separated NAME=VALUE entries", "[anonymize][env]")
{
	using namespace std::string_literals;
	CHECK(is_environ_block("FOO=1\0HSA_OVERRIDE_GFX_VERSION=gfx1031\0"s));
	CHECK(is_environ_block("A=\0\0_B9=x y\0"s));
	CHECK_FALSE(is_environ_block("FOO=1\nBAR=2\n"s)); // text: no NUL
	CHECK_FALSE(is_environ_block("\x7f"
				     "ELF\0\0\0"s));               // binary
	CHECK_FALSE(is_environ_block("FOO=1\0not an entry\0"s));   // an entry without '='
	CHECK(is_environ_block("BASH_FUNC_f%%=() {  echo\n}\0"s)); // an exported bash function
	CHECK_FALSE(is_environ_block("FOO=1\0BAR=2"s));            // the last entry without its NUL
	CHECK_FALSE(is_environ_block("FOO=1\n\0X=1\n"s));          // a text file with a NUL in it
	const Environment e = parse_environ("FOO=1\0HSA_OVERRIDE_GFX_VERSION=gfx1031\0"s);
	REQUIRE(e.vars.size() == 2);
	CHECK(e.vars[1].value == "gfx1031");
}
