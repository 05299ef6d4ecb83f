// The typo suggestions and `help VERB` rewriting of app/usage.cpp, on a small
// CLI11 tree shaped like rdnactl's (a verb with subcommands, verbs with options).
#include <catch2/catch_test_macros.hpp>

#include "usage.hpp"

using rdnafix::app::check_subcommands;
using rdnafix::app::closest;
using rdnafix::app::edit_distance;
using rdnafix::app::help_to_flag;

namespace {

std::vector<std::string> verbs()
{
	return {"status", "env", "validate", "history", "config", "fix", "explain", "coverage", "help"};
}

struct Tree {
	CLI::App app{"t"};
	bool json = false;
	Tree()
	{
		app.require_subcommand(1);
		app.set_version_flag("--version", "1");
		app.add_subcommand("status", "")->add_flag("--json", json, "");
		auto *cfg = app.add_subcommand("config", "");
		cfg->require_subcommand(1);
		cfg->add_subcommand("show", "");
		cfg->add_subcommand("set", "");
	}
};

} // namespace

TEST_CASE("edit_distance counts a swap of neighbours as one edit", "[usage][cli]")
{
	CHECK(edit_distance("stauts", "status") == 1);
	CHECK(edit_distance("status", "status") == 0);
	CHECK(edit_distance("", "env") == 3);
	CHECK(edit_distance("covrage", "coverage") == 1);
	CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("closest names the verb a typo meant, and nothing for a stranger", "[usage][cli]")
{
	CHECK(closest("stauts", verbs()) == "status");
	CHECK(closest("statsu", verbs()) == "status");
	CHECK(closest("valdiate", verbs()) == "validate");
	CHECK(closest("histroy", verbs()) == "history");
	CHECK(closest("cov", verbs()) == "coverage"); // the only verb that starts with it
	CHECK(closest("co", verbs()).empty());        // config or coverage: no guess
	CHECK(closest("xyzzy", verbs()).empty());
	CHECK(closest("ev", verbs()) == "env"); // two letters: only distance 1 counts
	CHECK(closest("zz", verbs()).empty());
	CHECK(closest("--jsn", {"--json", "--root"}) == "--json");
}

TEST_CASE("help VERB... becomes VERB... --help", "[usage][cli]")
{
	using V = std::vector<std::string>;
	CHECK(help_to_flag(V{"help"}) == V{"--help"});
	CHECK(help_to_flag(V{"help", "status"}) == V{"status", "--help"});
	CHECK(help_to_flag(V{"help", "config", "set"}) == V{"config", "set", "--help"});
	CHECK(help_to_flag(V{"status", "help"}) == V{"status", "help"});
	CHECK(help_to_flag(V{}).empty());
}

TEST_CASE("check_subcommands names an unknown or missing subcommand at any level", "[usage][cli]")
{
	Tree t;
	using V = std::vector<std::string>;
	CHECK(check_subcommands(t.app, V{"status", "--json"}).empty());
	CHECK(check_subcommands(t.app, V{"config", "show"}).empty());
	CHECK(check_subcommands(t.app, V{"--help"}).empty());
	CHECK(check_subcommands(t.app, V{"--version"}).empty());
	CHECK(check_subcommands(t.app, V{"stauts"})
		      .rfind("rdnactl: unknown subcommand 'stauts'; did you mean 'status'?\n", 0) == 0);
	CHECK(check_subcommands(t.app, V{"config", "shwo"})
		      .rfind("rdnactl config: unknown subcommand 'shwo'; did you mean 'show'?\n", 0) == 0);
	CHECK(check_subcommands(t.app, V{}).rfind("rdnactl: a subcommand is required: status, config\n", 0) == 0);
	CHECK(check_subcommands(t.app, V{"config"}).rfind("rdnactl config: a subcommand is required: show, set\n", 0) ==
	      0);
	CHECK(check_subcommands(t.app, V{"--verison"})
		      .rfind("rdnactl: unknown option '--verison'; did you mean '--version'?\n", 0) == 0);
}
