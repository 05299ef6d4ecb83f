// The real binary on this machine, and the live (libudev/libdrm) collector
// against the --root=/ directory walk.
#include "machine/collect.hpp"
#include "model.hpp"
#include "render.hpp"
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace rdnafix::status;
using namespace rdnafix::machine;
using Catch::Matchers::ContainsSubstring;
using rdnafix::test::run_rdnactl;

TEST_CASE("rdnactl status on this machine", "[live]")
{
	auto text = run_rdnactl({"status", "--color", "never"});
	INFO(text.out << text.err);
	REQUIRE((text.exit_code == 0 || text.exit_code == 1));
	for (const char *s : {"Devices", "Driver", "rdnafix module", "Access", "Environment", "Findings"})
		CHECK_THAT(text.out, ContainsSubstring(s));
	auto js = run_rdnactl({"status", "--json"});
	auto j = nlohmann::json::parse(js.out);
	CHECK(j["schema_version"] == kSchemaVersion);
	CHECK(j["collector"] == "live");
	// The exit code follows the documented rule.
	bool warn = false;
	for (const auto &f : j["findings"])
		warn = warn || f["severity"] != "info";
	CHECK(js.exit_code == (warn ? 1 : 0));
	CHECK(j["exit_code"] == js.exit_code);
	// Same content in both forms: every finding id of the JSON is in the text.
	for (const auto &f : j["findings"])
		CHECK_THAT(text.out, ContainsSubstring(f["id"].get<std::string>()));
	// NO_COLOR and a pipe: no escape sequences; --color always: escapes.
	CHECK(run_rdnactl({"status"}, {"NO_COLOR=1"}).out.find("\033[") == std::string::npos);
	CHECK(run_rdnactl({"status", "--color", "always"}).out.find("\033[") != std::string::npos);
	auto env = run_rdnactl({"env"});
	CHECK(env.exit_code == 0);
	auto fish = run_rdnactl({"env", "--shell", "fish"}, {"HIP_LAUNCH_BLOCKING=1"});
	CHECK(fish.exit_code == 0);
	CHECK_THAT(fish.out, ContainsSubstring("set -e HIP_LAUNCH_BLOCKING"));
	auto sh = run_rdnactl({"env"}, {"HIP_LAUNCH_BLOCKING=1"});
	CHECK_THAT(sh.out, ContainsSubstring("unset HIP_LAUNCH_BLOCKING"));
	CHECK_THAT(sh.out, ContainsSubstring("# "));
}

TEST_CASE("live collector and --root=/ collector agree", "[live][agreement]")
{
	CollectOptions live;
	CollectOptions root;
	root.live = false; // root "/" read as a tree
	auto a = collect(live);
	auto b = collect(root);
	CHECK(a.collector == CollectorKind::live);
	CHECK(b.collector == CollectorKind::root);
	auto ja = to_json(a, assess(a), evaluate(a));
	auto jb = to_json(b, assess(b), evaluate(b));
	// Device unreadable paths name the source (udev syspath vs root walk).
	for (auto *j : {&ja, &jb})
		for (auto &d : (*j)["devices"])
			for (auto &u : d["unreadable"])
				u.erase("path");
	// The kernel log is read from /dev/kmsg by the live collector only (a --root tree
	// carries a captured file instead), and it grows between two reads.
	ja.erase("kernel_log");
	jb.erase("kernel_log");
	auto d = rdnafix::test::json_diff(jb, ja, {"/collector"});
	for (const auto &x : d)
		UNSCOPED_INFO(x);
	CHECK(d.empty());
}
