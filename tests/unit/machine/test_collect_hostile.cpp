// machine::collect on a copy of a real captured machine
// (tests/fixtures/not-in-render-group) with hostile values written into it:
// numbers that would wrap (MemTotal x 1024, KFD memory banks, 17-bit PCI ids,
// revisions > 0xff, GC majors > 0xff, gfx_target_version > 32 bits), an
// etc/group of 190,000 groups, and more device nodes than are read.
#include "machine/collect.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using Catch::Matchers::ContainsSubstring;
using namespace rdnafix::machine;
namespace fs = std::filesystem;

namespace {

const std::string kDev = "sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0";

class Copy {
public:
	Copy()
	{
		std::string t = (fs::temp_directory_path() / "rdnafix-hostile-XXXXXX").string();
		REQUIRE(::mkdtemp(t.data()) != nullptr);
		dir_ = t;
		root_ = dir_ / "root";
		fs::copy(fs::path(RDNAFIX_FIXTURES) / "not-in-render-group/root", root_,
			 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
	}
	~Copy()
	{
		std::error_code ec;
		fs::remove_all(dir_, ec);
	}
	void write(const std::string &rel, const std::string &text) const
	{
		fs::create_directories((root_ / rel).parent_path());
		std::ofstream out(root_ / rel, std::ios::trunc);
		out << text;
		REQUIRE(out.good());
	}
	Snapshot collect(const std::string &user = "bob") const
	{
		CollectOptions o;
		o.root = root_.string();
		o.live = false;
		o.user = user;
		return rdnafix::machine::collect(o);
	}
	const fs::path &root() const { return root_; }

private:
	fs::path dir_, root_;
};

// The reason of the first unreadable item named `item` in `v`, "" if none.
std::string reason(const std::vector<Unreadable> &v, const std::string &item)
{
	for (const auto &u : v)
		if (u.item == item)
			return u.reason;
	return "";
}

} // namespace

TEST_CASE("collect: values that would wrap are 'unreadable: out of range', never truncated", "[collect][range]")
{
	Copy c;
	SECTION("17-bit PCI device id")
	{
		c.write(kDev + "/device", "0x173ff\n"); // would truncate to 0x73ff, a real RX 6600
		auto s = c.collect();
		REQUIRE(s.devices.size() == 1);
		CHECK_FALSE(s.devices[0].device_id);
		CHECK_THAT(reason(s.devices[0].unreadable, "device_id"), ContainsSubstring("out of range"));
		CHECK(s.devices[0].codename.empty()); // no GPU-database row from a truncated id
	}
	SECTION("PCI revision above 0xff")
	{
		c.write(kDev + "/revision", "0x1c7\n");
		auto s = c.collect();
		REQUIRE(s.devices.size() == 1);
		CHECK_FALSE(s.devices[0].revision);
		CHECK_THAT(reason(s.devices[0].unreadable, "revision"), ContainsSubstring("out of range"));
	}
	SECTION("GC major above 0xff")
	{
		c.write(kDev + "/ip_discovery/die/0/GC/0/major", "4294967306\n"); // 2^32 + 10
		auto s = c.collect();
		REQUIRE(s.devices.size() == 1);
		CHECK_THAT(reason(s.devices[0].unreadable, "gc_version"), ContainsSubstring("out of range"));
	}
	SECTION("MemTotal x 1024 past 2^64")
	{
		c.write("proc/meminfo", "MemTotal:       18014398509481985 kB\nMemFree: 1 kB\n");
		auto s = c.collect();
		CHECK_FALSE(s.driver.mem_total_bytes);
		CHECK_THAT(reason(s.driver.unreadable, "mem_total_bytes"), ContainsSubstring("out of range"));
	}
	SECTION("KFD memory banks that add up past 2^64")
	{
		const std::string banks = "sys/class/kfd/kfd/topology/nodes/1/mem_banks/";
		c.write(banks + "0/properties", "heap_type 1\nsize_in_bytes 18446744073709551615\nflags 0\n");
		c.write(banks + "1/properties", "heap_type 1\nsize_in_bytes 8573157376\nflags 0\n");
		fs::remove(c.root() / kDev / "mem_info_vram_total"); // so that the KFD sum would be used
		auto s = c.collect();
		REQUIRE(s.devices.size() == 1);
		CHECK(s.devices[0].vram_total_bytes != std::uint64_t(8573157375)); // the wrapped sum
		CHECK_FALSE(s.devices[0].vram_total_bytes);
		CHECK_THAT(reason(s.driver.unreadable, "kfd_node_1.local_mem_bytes"),
			   ContainsSubstring("out of range"));
	}
	SECTION("KFD gfx_target_version above 32 bits")
	{
		const std::string p = "sys/class/kfd/kfd/topology/nodes/1/properties";
		std::ifstream in(c.root() / p);
		std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
		auto at = text.find("gfx_target_version 100302");
		REQUIRE(at != std::string::npos);
		text.replace(at, 25, "gfx_target_version 4295067598"); // 2^32 + 100302
		c.write(p, text);
		auto s = c.collect();
		REQUIRE(s.devices.size() == 1);
		CHECK_FALSE(s.devices[0].kfd_gfx_target_version);
		CHECK_THAT(reason(s.devices[0].unreadable, "kfd_gfx_target_version"),
			   ContainsSubstring("out of range"));
	}
}

TEST_CASE("collect: an etc/group of 190,000 groups is read in linear time", "[collect][perf]")
{
	Copy c;
	std::string group = "root:x:0:\nrender:x:105:\n";
	group.reserve(190000 * 32);
	for (int i = 0; i < 190000; ++i)
		group += "g" + std::to_string(i) + ":x:" + std::to_string(200000 + i) + ":" +
			 (i % 4 == 0 ? "bob" : "x") + "\n";
	c.write("etc/group", group);
	const auto t0 = std::chrono::steady_clock::now();
	auto s = c.collect();
	const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	INFO("collect took " << secs << " s");
	CHECK(s.access.configured_groups.size() == 47500 + 1); // bob's own group + every 4th
	CHECK(s.access.unreadable.empty());
	CHECK(secs < 2.0);
}

TEST_CASE("collect: more DRM nodes than are read is said, not silently cut", "[collect][cap]")
{
	Copy c;
	for (int i = 0; i < 300; ++i)
		fs::create_directory_symlink("../../devices/virtual/drm/card" + std::to_string(1000 + i),
					     c.root() / "sys/class/drm" / ("card" + std::to_string(1000 + i)));
	auto s = c.collect();
	CHECK_THAT(reason(s.driver.unreadable, "device_count"), ContainsSubstring("out of range: 302 DRM nodes"));
	CHECK_THAT(reason(s.driver.unreadable, "device_count"), ContainsSubstring("first 256"));
}
