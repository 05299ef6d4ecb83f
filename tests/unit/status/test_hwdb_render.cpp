// status text for the udev hwdb properties (live path): the values, each
// difference from the built-in database, and hostile values kept inert.
#include "model.hpp"
#include "render.hpp"
#include "snapshot_builders.hpp"

#include "machine/interpret_hwdb.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace rdnafix;
using Catch::Matchers::ContainsSubstring;

namespace {
std::string status_text(const machine::Snapshot &s)
{
	const auto a = status::assess(s);
	return status::render_text(s, a, status::evaluate(s, a), status::LastValidation{}, false);
}
machine::Snapshot with_hwdb(std::map<std::string, std::string> props)
{
	auto s = test::base();
	auto d = test::amd("0000:03:00.0", "gfx1031", "rdna2", false);
	d.vendor_id = 0x1002;
	d.device_id = 0x73df;
	d.revision = 0xc1;
	d.hwdb = machine::interpret_hwdb(props, d.device_id, d.revision);
	s.devices.push_back(d);
	return s;
}
} // namespace

TEST_CASE("status text: no hwdb properties, no hwdb lines")
{
	auto s = with_hwdb({});
	auto t = status_text(s);
	CHECK_THAT(t, !ContainsSubstring("udev hwdb"));
	CHECK_THAT(t, !ContainsSubstring("hwdb differs"));
}

TEST_CASE("status text: the hwdb properties and where they differ from rdnactl's database")
{
	auto same = status_text(with_hwdb(
		{{machine::kHwdbGfxTarget, "gfx1031"}, {machine::kHwdbGeneration, "rdna2"}, {machine::kHwdbApu, "0"}}));
	CHECK_THAT(same, ContainsSubstring("    udev hwdb       gfx1031 rdna2 apu 0\n"));
	CHECK_THAT(same, !ContainsSubstring("hwdb differs"));

	auto stale =
		status_text(with_hwdb({{machine::kHwdbGfxTarget, "gfx1036"}, {machine::kHwdbGeneration, "rdna2"}}));
	CHECK_THAT(stale, ContainsSubstring("    udev hwdb       gfx1036 rdna2 apu -\n"));
	CHECK_THAT(stale, ContainsSubstring("    hwdb differs    gfx_target: udev gfx1036, rdnactl gfx1031\n"));
	CHECK_THAT(stale, ContainsSubstring("    hwdb differs    apu: udev absent, rdnactl 0\n"));
	CHECK_THAT(stale, ContainsSubstring("systemd-hwdb update"));
}

TEST_CASE("status text: hostile hwdb values stay inert")
{
	auto t = status_text(with_hwdb({{machine::kHwdbGfxTarget, "gfx1031\x1b]0;pwned\x07\nFAKE LINE"}}));
	CHECK_THAT(t, ContainsSubstring("udev hwdb       gfx1031\\e]0;pwned\\x07\\nFAKE LINE"));
	CHECK(t.find('\x1b') == std::string::npos);
	CHECK(t.find("\nFAKE LINE") == std::string::npos);
}
