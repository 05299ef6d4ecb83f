// What a validation run records about the machine comes from the same
// Snapshot as `rdnactl status`: on every fixture machine the gfx target and
// the effective noretry of each AMD GPU equal what status reports in the
// reviewed golden expected.json, and the module parameters are the files of
// sys/module/*/parameters.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "machine/collect.hpp"
#include "machine_info.hpp"

namespace fs = std::filesystem;
using namespace rdnafix::validate;

namespace {

rdnafix::machine::Snapshot collect_fixture(const fs::path &dir)
{
	rdnafix::machine::CollectOptions o;
	o.root = (dir / "root").string();
	o.live = false;
	o.all_amdgpu_params = true;
	return rdnafix::machine::collect(o);
}

nlohmann::json read_json(const fs::path &p)
{
	std::ifstream in(p);
	std::stringstream ss;
	ss << in.rdbuf();
	return nlohmann::json::parse(ss.str());
}

} // namespace

TEST_CASE("run machine info: per-device gfx target and effective noretry equal status's goldens", "[machine_info]")
{
	int devices = 0;
	for (const auto &e : fs::directory_iterator(RDNAFIX_FIXTURES)) {
		if (!fs::exists(e.path() / "expected.json"))
			continue;
		INFO(e.path().filename().string());
		const auto info = run_machine_info(collect_fixture(e.path()));
		const auto expected = read_json(e.path() / "expected.json");
		std::vector<nlohmann::json> amd;
		for (const auto &d : expected.at("devices"))
			if (d.value("is_amd", false))
				amd.push_back(d);
		REQUIRE(info.devices.size() == amd.size());
		for (std::size_t i = 0; i < amd.size(); ++i) {
			INFO(info.devices[i].pci_bdf);
			CHECK(info.devices[i].pci_bdf == amd[i].at("pci_bdf").get<std::string>());
			const nlohmann::json got = info.devices[i]; // RunDevice's to_json: null for an unknown value
			CHECK(got.at("gfx_target") == amd[i].at("gfx_target"));
			CHECK(got.at("noretry_effective") == amd[i].at("noretry_effective"));
			++devices;
		}
		CHECK(info.kernel_release == expected.at("driver").at("kernel_release").get<std::string>());
	}
	CHECK(devices >= 6);
}

TEST_CASE("run machine info: every amdgpu/rdnafix parameter file, rdnafix's applied noretry", "[machine_info]")
{
	const fs::path dir = fs::path(RDNAFIX_FIXTURES) / "rdnafix-loaded";
	const auto info = run_machine_info(collect_fixture(dir));
	std::size_t files = 0;
	for (const auto &p : fs::directory_iterator(dir / "root/sys/module/amdgpu/parameters")) {
		INFO(p.path().filename().string());
		CHECK(info.amdgpu_params.contains(p.path().filename().string()));
		++files;
	}
	CHECK(files > 5);
	CHECK(info.amdgpu_params.size() == files);
	CHECK(info.noretry_param == -1);
	CHECK(info.rdnafix_params.at("noretry") == "1");
	REQUIRE(!info.devices.empty());
	CHECK(info.devices[0].rdnafix_noretry_applied == 1);
	// The record round-trips through JSON (history stores it as text).
	const nlohmann::json j = info.devices;
	CHECK(j.get<std::vector<RunDevice>>().size() == info.devices.size());
	CHECK(nlohmann::json(j.get<std::vector<RunDevice>>()) == j);
}

TEST_CASE("run machine info: a root without amdgpu records no parameters and no devices", "[machine_info]")
{
	const auto info = run_machine_info(collect_fixture(fs::path(RDNAFIX_FIXTURES) / "no-amd-gpu"));
	CHECK(info.devices.empty());
	CHECK(info.amdgpu_params.empty());
	CHECK_FALSE(info.noretry_param.has_value());
}
