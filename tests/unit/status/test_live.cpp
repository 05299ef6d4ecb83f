// The real binary on this machine, and the live (libudev/libdrm) collector
// against the --root=/ directory walk.
#include "machine/collect.hpp"
#include "findings.hpp"
#include "machine/interpret.hpp"
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
	CollectOptions root{std::string("/"), false, std::nullopt, std::nullopt};
	auto a = collect(live);
	auto b = collect(root);
	CHECK(a.collector == "live");
	CHECK(b.collector == "root");
	auto ja = to_json(a, evaluate(a));
	auto jb = to_json(b, evaluate(b));
	// Device unreadable paths name the source (udev syspath vs root walk).
	for (auto *j : {&ja, &jb})
		for (auto &d : (*j)["devices"])
			for (auto &u : d["unreadable"])
				u.erase("path");
	auto d = rdnafix::test::json_diff(jb, ja, {"/collector"});
	for (const auto &x : d)
		UNSCOPED_INFO(x);
	CHECK(d.empty());
}

TEST_CASE("udev and the sysfs walk read the same strings for every PCI device", "[live][agreement]")
{
	std::string err;
	auto u = raw_devices_from_udev(false, err, "0x");
	if (!u)
		SKIP("libudev unusable here: " << err);
	rdnafix::io::RootFs fs("/");
	auto s = raw_devices_from_sysfs(fs, "0x");
	REQUIRE(u->size() == s.size());
	INFO(s.size() << " PCI devices");
	for (size_t i = 0; i < s.size(); ++i) {
		INFO((*u)[i].bdf);
		CHECK((*u)[i].bdf == s[i].bdf);
		CHECK((*u)[i].driver == s[i].driver);
		CHECK((*u)[i].drm_nodes == s[i].drm_nodes);
		REQUIRE((*u)[i].attrs.size() == s[i].attrs.size());
		for (const auto &[k, v] : s[i].attrs) {
			INFO(k);
			CHECK((*u)[i].attrs.at(k).text == v.text);
		}
		// And the records built from them.
		auto du = build_device((*u)[i], {}, nullptr);
		auto ds = build_device(s[i], {}, nullptr);
		CHECK(du.vendor_id == ds.vendor_id);
		CHECK(du.device_id == ds.device_id);
		CHECK(du.pci_class == ds.pci_class);
		CHECK(du.is_amd == ds.is_amd);
	}
}
