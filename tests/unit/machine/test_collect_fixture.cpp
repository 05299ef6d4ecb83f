// machine::collect on a captured machine (tests/fixtures/rdnafix-loaded): the
// facts as enums, the rdnafix files named by the module's own list.
#include "machine/collect.hpp"
#include "machine/facts.hpp"

#include "rdnafix_policy.h"

#include <catch2/catch_test_macros.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

using namespace rdnafix::machine;

TEST_CASE("collect: a captured machine with rdnafix loaded", "[collect][fixture]")
{
	CollectOptions o;
	o.root = std::string(RDNAFIX_FIXTURES) + "/rdnafix-loaded/root";
	o.live = false;
	o.user = "grace";
	const Snapshot s = collect(o);
	REQUIRE_FALSE(s.nothing_readable);
	CHECK(s.collector == CollectorKind::root);
	CHECK(s.access.subject == AccessSubject::user);
	REQUIRE(s.devices.size() == 2);
	CHECK(s.devices[0].gfx_target == "gfx1010");
	CHECK(s.devices[0].gfx_target_source == GfxTargetSource::kfd);
	CHECK(s.devices[0].generation == rdnafix::gpudb::Generation::rdna1);
	CHECK(s.devices[1].generation == rdnafix::gpudb::Generation::rdna2);
	// rdnafix's applied noretry is a fact of the device (not a verdict).
	CHECK(s.devices[0].rdnafix_noretry_applied == 1);
	CHECK(s.rdnafix.loaded);
	CHECK(s.rdnafix.loaded_evidence == LoadEvidence::proc_modules);
	// Every device file the module creates, and no other, was read.
	unsigned n = 0;
	const char *const *files = rdnafix_sysfs_dev_files(&n);
	const std::set<std::string> want(files, files + n);
	REQUIRE(s.rdnafix.devices.size() == 2);
	for (const auto &d : s.rdnafix.devices) {
		std::set<std::string> got;
		for (const auto &[k, v] : d.values)
			got.insert(k);
		CHECK(got == want);
	}
	// The nodes are facts: mode and group from the manifest, no verdict here.
	REQUIRE_FALSE(s.access.nodes.empty());
	CHECK(s.access.nodes[0].path == "/dev/kfd");
	CHECK(s.access.nodes[0].stat_source == StatSource::manifest);
	CHECK_FALSE(s.access.nodes[0].kernel_allows_rw); // not asked for a --root machine
	const Param *nr = find_param(s, "amdgpu", "noretry");
	REQUIRE(nr != nullptr);
	CHECK(nr->module == "amdgpu");
}

TEST_CASE("collect: /proc/modules of a kernel without module unload support is read, not unreadable",
	  "[collect][fixture]")
{
	// The same captured machine, but its proc/modules as a CONFIG_MODULE_UNLOAD=n
	// kernel prints it: '-' for every count and user list.
	namespace fs = std::filesystem;
	const fs::path tmp = fs::temp_directory_path() / ("rdnafix-nounload-" + std::to_string(::getpid()));
	fs::remove_all(tmp);
	fs::copy(std::string(RDNAFIX_FIXTURES) + "/rdnafix-loaded/root", tmp,
		 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
	std::string text;
	{
		std::ifstream in(tmp / "proc/modules");
		for (std::string line; std::getline(in, line);) {
			std::istringstream w(line);
			std::string name, size, count, users, rest;
			w >> name >> size >> count >> users;
			std::getline(w, rest);
			text += name + " " + size + " - -" + rest + "\n";
		}
	}
	{
		std::ofstream out(tmp / "proc/modules", std::ios::trunc);
		out << text;
	}
	CollectOptions o;
	o.root = tmp.string();
	o.live = false;
	const Snapshot s = collect(o);
	fs::remove_all(tmp);
	REQUIRE(text.find(" - - Live") != std::string::npos);
	for (const auto &u : s.driver.unreadable)
		CHECK(u.path.find("proc/modules") == std::string::npos);
	CHECK(s.driver.amdgpu_loaded);
	CHECK(s.rdnafix.loaded);
	CHECK(s.rdnafix.loaded_evidence == LoadEvidence::proc_modules);
}
