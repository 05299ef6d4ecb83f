// validate.user: the name checked against the root's /etc/passwd, the drop-in
// of rdnafix-validate.service (parse, render), the words of config set/unset,
// apply/undo on temporary roots (nothing else touched; refusals write
// nothing), config show, and rdnactl config as a program.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support.hpp"

#include "config/keys.hpp"
#include "config/service_dropin.hpp"
#include "io/child_runner.hpp"

#include <unistd.h>

#include <sstream>

#include <nlohmann/json.hpp>

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix;
using test::TempRoot;

namespace {

constexpr const char *kPasswd = "root:x:0:0:root:/root:/bin/bash\n"
				"daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
				"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
				"alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n"
				"toor:x:0:0::/root:/bin/sh\n"
				"broken:x:abc:1::/:/bin/sh\n";
constexpr const char *kGroup = "root:x:0:\nvideo:x:44:alice\nrender:x:109:\nalice:x:1000:\n";
const std::string kDropin(config::kValidateDropin);

void add_users(const TempRoot &t)
{
	t.write("etc/passwd", kPasswd);
	t.write("etc/group", kGroup);
}

test::Run apply(const TempRoot &t, const std::vector<config::ServiceChange> &services, bool dry_run = false,
		const std::vector<config::ModuleChange> &mods = {})
{
	test::TestPlanners tp;
	auto o = test::options(t.root());
	o.dry_run = dry_run;
	std::ostringstream out, err;
	test::Run r;
	r.rc = config::apply_changes(o, mods, {}, services, out, err, test::planners(t.root(), tp));
	r.out = out.str();
	r.err = err.str();
	return r;
}

struct Out {
	int rc = -1;
	std::string text;
};

Out rdnactl(const std::vector<std::string> &args)
{
	io::ChildSpec spec;
	spec.exe = RDNACTL_BIN;
	spec.args = args;
	spec.timeout_s = 120;
	spec.output_tail_bytes = 1 << 20;
	auto o = io::run_child(spec);
	return Out{o.exited ? o.exit_code : -1, o.output_tail};
}

} // namespace

TEST_CASE("validate.user: a user of the root's passwd, not root, not nobody; errors name the input")
{
	using config::check_validate_user;
	CHECK_FALSE(check_validate_user("alice", kPasswd, "/etc/passwd"));
	CHECK_FALSE(check_validate_user("daemon", kPasswd, "/etc/passwd")); // a system user is the admin's choice
	auto missing = check_validate_user("bob", kPasswd, "/r/etc/passwd");
	REQUIRE(missing);
	CHECK_THAT(*missing, ContainsSubstring("no user 'bob' in /r/etc/passwd"));
	for (const char *root : {"root", "toor"}) {
		auto e = check_validate_user(root, kPasswd, "/etc/passwd");
		REQUIRE(e);
		CHECK_THAT(*e, ContainsSubstring("uid 0"));
		CHECK_THAT(*e, ContainsSubstring(root));
	}
	auto nobody = check_validate_user("nobody", kPasswd, "/etc/passwd");
	REQUIRE(nobody);
	CHECK_THAT(*nobody, ContainsSubstring("validate.user=nobody"));
	auto broken = check_validate_user("broken", kPasswd, "/etc/passwd");
	REQUIRE(broken);
	CHECK_THAT(*broken, ContainsSubstring("no numeric uid"));
	// Anything that could carry another line or setting into the drop-in is refused by its form.
	for (const char *bad : {"", "alice\nUser=root", "al ice", "-alice", "1000", "alice:x", "a/b",
				"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}) {
		auto e = check_validate_user(bad, kPasswd, "/etc/passwd");
		REQUIRE(e);
		CHECK_THAT(*e, ContainsSubstring("invalid value '" + std::string(bad) + "' for validate.user"));
	}
	// A prefix of a listed name is not that name.
	CHECK(check_validate_user("ali", kPasswd, "/etc/passwd"));
}

TEST_CASE("validate.user: the drop-in renders and parses back; foreign lines and comments are found")
{
	auto text = config::render_validate_dropin("alice", {"render", "video"});
	REQUIRE(text);
	CHECK(*text == "# Managed by rdnactl (rdnafix). Edit with 'rdnactl config'.\n"
		       "# 'rdnactl config undo' restores the previous version.\n"
		       "[Service]\nUser=alice\nSupplementaryGroups=render video\n");
	auto d = config::parse_validate_dropin(*text);
	CHECK(d.user == "alice");
	CHECK(d.groups == std::vector<std::string>{"render", "video"});
	CHECK(d.foreign.empty());
	CHECK(d.comments.empty());
	CHECK_FALSE(config::render_validate_dropin(std::nullopt, {"render"}));
	CHECK(*config::render_validate_dropin("alice", {}) == "# Managed by rdnactl (rdnafix). Edit with 'rdnactl "
							      "config'.\n# 'rdnactl config undo' restores the "
							      "previous version.\n[Service]\nUser=alice\n");

	auto hand = config::parse_validate_dropin("# mine\n[Service]\nUser=bob\nEnvironment=X=1\n[Unit]\nUser=x\n");
	CHECK(hand.user == "bob");
	REQUIRE(hand.foreign.size() == 3);
	CHECK(hand.foreign[0].line == 4);
	CHECK(hand.foreign[0].text == "Environment=X=1");
	CHECK(hand.foreign[1].text == "[Unit]");
	CHECK(hand.comments.size() == 1);

	CHECK(config::device_groups(kGroup) == std::vector<std::string>{"render", "video"});
	CHECK(config::device_groups("video:x:44:\nrenderx:x:1:\n") == std::vector<std::string>{"video"});
	CHECK(config::device_groups("").empty());
}

TEST_CASE("validate.user: the words of config set/unset")
{
	machine::Snapshot s;
	auto p = config::parse_set_words({"validate.user=alice", "noretry=1"}, false, s);
	CHECK(p.errors.empty());
	REQUIRE(p.services.size() == 1);
	CHECK(p.services[0].key == "validate.user");
	CHECK(p.services[0].value == "alice");
	CHECK(p.modules.size() == 1);
	auto u = config::parse_unset_words({"validate.user"}, false, s);
	REQUIRE(u.services.size() == 1);
	CHECK_FALSE(u.services[0].value);
	auto twice = config::parse_set_words({"validate.user=a", "validate.user=b"}, false, s);
	REQUIRE(twice.errors.size() == 1);
	CHECK_THAT(twice.errors[0], ContainsSubstring("given twice"));
	auto cl = config::parse_set_words({"validate.user=alice"}, true, s);
	REQUIRE(cl.errors.size() == 1);
	CHECK_THAT(cl.errors[0], ContainsSubstring("validate.user=alice"));
	auto typo = config::parse_set_words({"validate.usr=alice"}, false, s);
	REQUIRE(typo.errors.size() == 1);
	CHECK_THAT(typo.errors[0], ContainsSubstring("validate.user"));
}

TEST_CASE("validate.user: set writes only the drop-in, in a journaled transaction; unset and undo remove it")
{
	TempRoot t;
	add_users(t);
	const auto before = t.tree();
	auto r = apply(t, {{"validate.user", "alice"}});
	INFO(r.out << r.err);
	REQUIRE(r.rc == 0);
	CHECK(t.read(kDropin) == *config::render_validate_dropin("alice", {"render", "video"}));
	CHECK(t.mode(kDropin) == 0644);
	CHECK_FALSE(t.exists("etc/modprobe.d/rdnafix.conf"));
	CHECK_THAT(r.out, ContainsSubstring("systemctl daemon-reload"));
	CHECK(t.exists("var/lib/rdnafix/config/journal/000001/manifest.json"));
	for (const auto &[path, content] : t.tree())
		if (!before.count(path))
			CHECK((path == kDropin || path.rfind("var/lib/rdnafix/config/", 0) == 0));

	auto again = apply(t, {{"validate.user", "alice"}});
	CHECK(again.rc == 0);
	CHECK_FALSE(t.exists("var/lib/rdnafix/config/journal/000002"));

	auto other = apply(t, {{"validate.user", "daemon"}});
	REQUIRE(other.rc == 0);
	CHECK_THAT(t.read(kDropin), ContainsSubstring("User=daemon\n"));
	auto unset = apply(t, {{"validate.user", std::nullopt}});
	REQUIRE(unset.rc == 0);
	CHECK_FALSE(t.exists(kDropin));
	CHECK_THAT(unset.out, ContainsSubstring("no longer starts"));

	auto u1 = test::undo(test::options(t.root()));
	INFO(u1.out << u1.err);
	REQUIRE(u1.rc == 0);
	CHECK_THAT(t.read(kDropin), ContainsSubstring("User=daemon\n"));
	CHECK_THAT(u1.out, ContainsSubstring("systemctl daemon-reload"));
	CHECK_THAT(u1.out, !ContainsSubstring("module options"));
	REQUIRE(test::undo(test::options(t.root())).rc == 0);
	CHECK_THAT(t.read(kDropin), ContainsSubstring("User=alice\n"));
	REQUIRE(test::undo(test::options(t.root())).rc == 0);
	CHECK_FALSE(t.exists(kDropin));
}

TEST_CASE("validate.user: refusals and dry runs write nothing")
{
	TempRoot t;
	add_users(t);
	const auto before = t.tree();
	for (const char *bad : {"bob", "root", "nobody", "x\ny"}) {
		auto r = apply(t, {{"validate.user", bad}});
		INFO(bad << ": " << r.out << r.err);
		CHECK(r.rc == 2);
		CHECK_THAT(r.err, ContainsSubstring("validate.user"));
		CHECK(t.tree() == before);
	}
	// The module part of the same call is not written either.
	auto mixed = apply(t, {{"validate.user", "bob"}}, false, {{"rdnafix", "noretry", "1"}});
	CHECK(mixed.rc == 2);
	CHECK(t.tree() == before);

	auto dry = apply(t, {{"validate.user", "alice"}}, true);
	INFO(dry.out << dry.err);
	CHECK(dry.rc == 0);
	CHECK_THAT(dry.out, ContainsSubstring("+User=alice"));
	CHECK(t.tree() == before);

	t.write(kDropin, "[Service]\nUser=alice\nEnvironment=HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
	const auto hand = t.tree();
	auto foreign = apply(t, {{"validate.user", "daemon"}});
	CHECK(foreign.rc == 2);
	CHECK_THAT(foreign.err, ContainsSubstring(kDropin + ":3: 'Environment=HSA_OVERRIDE_GFX_VERSION=10.3.0'"));
	CHECK(t.tree() == hand);

	TempRoot nopasswd;
	auto none = apply(nopasswd, {{"validate.user", "alice"}});
	CHECK(none.rc == 2);
	CHECK_THAT(none.err, ContainsSubstring("no user 'alice' in " + nopasswd.root() + "/etc/passwd"));
}

TEST_CASE("validate.user: rdnactl config set, show and unset as a program")
{
	TempRoot t;
	add_users(t);
	auto show0 = rdnactl({"config", "show", "--root", t.root()});
	INFO(show0.text);
	CHECK_THAT(show0.text, ContainsSubstring("rdnafix-validate.service does not start without it"));
	auto bad = rdnactl({"config", "set", "--root", t.root(), "validate.user=bob"});
	CHECK(bad.rc == 2);
	CHECK_THAT(bad.text, ContainsSubstring("no user 'bob'"));
	if (::geteuid() != 0)
		return; // a change needs root; the library tests above cover the rest
	auto set = rdnactl({"config", "set", "--root", t.root(), "validate.user=alice"});
	INFO(set.text);
	REQUIRE(set.rc == 0);
	CHECK_THAT(t.read(kDropin), ContainsSubstring("User=alice\n"));
	auto show = rdnactl({"config", "show", "--root", t.root()});
	CHECK_THAT(show.text, ContainsSubstring("rdnafix-validate.service runs as alice"));
	auto js = rdnactl({"config", "show", "--json", "--root", t.root()});
	auto doc = nlohmann::json::parse(js.text);
	CHECK(doc["service"]["user"] == "alice");
	CHECK(doc["service"]["groups"] == nlohmann::json::array({"render", "video"}));
	auto unset = rdnactl({"config", "unset", "--root", t.root(), "validate.user"});
	CHECK(unset.rc == 0);
	CHECK_FALSE(t.exists(kDropin));
}
