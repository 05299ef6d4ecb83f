// The two device sources on this machine: libudev and the plain sysfs walk
// must read the same strings, and the records built from them must agree.
#include "machine/collect.hpp"
#include "machine/interpret.hpp"

#include "io/rootfs.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace rdnafix::machine;

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
