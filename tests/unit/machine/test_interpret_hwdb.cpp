// udev hwdb properties (udev/60-rdnafix.hwdb) -> HwdbFacts: the comparison
// with the built-in GPU database and the handling of hostile values.
#include "machine/interpret.hpp"
#include "machine/interpret_hwdb.hpp"
#include "machine/snapshot_json.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace rdnafix::machine;

namespace {
using Props = std::map<std::string, std::string>;
Props navi22_props()
{
	return {{kHwdbGfxTarget, "gfx1031"}, {kHwdbGeneration, "rdna2"}, {kHwdbApu, "0"}};
}
RawValue txt(std::string s)
{
	RawValue v;
	v.text = std::move(s);
	v.path = "p";
	return v;
}
RawPciDevice raw_gpu(const char *device, const char *revision)
{
	RawPciDevice r;
	r.bdf = "0000:03:00.0";
	r.driver = "amdgpu";
	r.attrs = {{"vendor", txt("0x1002")},
		   {"device", txt(device)},
		   {"revision", txt(revision)},
		   {"class", txt("0x030000")}};
	return r;
}
} // namespace

TEST_CASE("hwdb: no ID_RDNAFIX_ property means no hwdb facts")
{
	CHECK_FALSE(interpret_hwdb({}, 0x73df, 0xc1));
	CHECK_FALSE(interpret_hwdb({{"ID_MODEL_FROM_DATABASE", "Navi 22"}}, 0x73df, 0xc1));
}

TEST_CASE("hwdb: values that agree with the built-in database give no difference")
{
	auto h = interpret_hwdb(navi22_props(), 0x73df, 0xc1);
	REQUIRE(h);
	CHECK(h->gfx_target == "gfx1031");
	CHECK(h->generation == "rdna2");
	CHECK(h->apu == "0");
	CHECK(h->differences.empty());
	// An APU of generation rdna3.5 (the spelling with the dot).
	auto s =
		interpret_hwdb({{kHwdbGfxTarget, "gfx1150"}, {kHwdbGeneration, "rdna3.5"}, {kHwdbApu, "1"}}, 0x150e, 0);
	REQUIRE(s);
	CHECK(s->differences.empty());
}

TEST_CASE("hwdb: a stale hwdb is named key by key")
{
	auto p = navi22_props();
	p[kHwdbGfxTarget] = "gfx1036";
	p.erase(kHwdbApu);
	auto h = interpret_hwdb(p, 0x73df, 0xc1);
	REQUIRE(h);
	REQUIRE(h->differences.size() == 2);
	CHECK(h->differences[0].key == "gfx_target");
	CHECK(h->differences[0].hwdb == "gfx1036");
	CHECK(h->differences[0].builtin == "gfx1031");
	CHECK(h->differences[1].key == "apu");
	CHECK(h->differences[1].hwdb.empty());
	CHECK(h->differences[1].builtin == "0");
}

TEST_CASE("hwdb: an entry for a PCI id the built-in database does not list")
{
	auto h = interpret_hwdb(navi22_props(), 0x6798, 0); // Tahiti: not in the database
	REQUIRE(h);
	REQUIRE(h->differences.size() == 1);
	CHECK(h->differences[0].key == "entry");
	auto u = interpret_hwdb(navi22_props(), std::nullopt, std::nullopt); // id unreadable
	REQUIRE(u);
	CHECK(u->differences.size() == 1);
}

TEST_CASE("hwdb: hostile values are capped and valid UTF-8 (the renderers escape them)")
{
	std::string longv(300, 'x');
	auto h = interpret_hwdb({{kHwdbGfxTarget, "gfx1031\x1b[2J\nrm -rf"},
				 {kHwdbGeneration, longv},
				 {kHwdbApu, std::string("1\xff", 2)}},
				0x73df, 0xc1);
	REQUIRE(h);
	CHECK(h->gfx_target == "gfx1031\x1b[2J\nrm -rf");
	CHECK(h->generation == std::string(kHwdbValueCap, 'x') + "...");
	CHECK(h->apu == "1\uFFFD");
	CHECK(h->differences.size() == 3);
	// A cut inside a UTF-8 sequence keeps the string valid.
	std::string utf(kHwdbValueCap - 1, 'a');
	utf += "\xc3\xa9\xc3\xa9"; // é é
	auto u = interpret_hwdb({{kHwdbGfxTarget, utf}}, 0x73df, 0xc1);
	REQUIRE(u);
	CHECK(*u->gfx_target == std::string(kHwdbValueCap - 1, 'a') + "...");
}

TEST_CASE("hwdb: build_device carries the udev properties of an AMD GPU into the snapshot and its JSON")
{
	auto raw = raw_gpu("0x73df", "0xc1");
	auto plain = build_device(raw, {}, nullptr);
	CHECK_FALSE(plain.hwdb);
	nlohmann::ordered_json j = plain;
	CHECK_FALSE(j.contains("hwdb")); // the --root path (no udev) keeps its JSON unchanged

	raw.udev_props = navi22_props();
	raw.udev_props[kHwdbGeneration] = "rdna3";
	auto d = build_device(raw, {}, nullptr);
	REQUIRE(d.hwdb);
	CHECK(d.gfx_target == "gfx1031"); // rdnactl's own answer is unchanged
	nlohmann::ordered_json k = d;
	CHECK(k["hwdb"]["gfx_target"] == "gfx1031");
	CHECK(k["hwdb"]["apu"] == "0");
	REQUIRE(k["hwdb"]["differs_from_builtin"].size() == 1);
	CHECK(k["hwdb"]["differs_from_builtin"][0]["key"] == "generation");
	CHECK(k["hwdb"]["differs_from_builtin"][0]["hwdb"] == "rdna3");
	CHECK(k["hwdb"]["differs_from_builtin"][0]["builtin"] == "rdna2");

	auto nv = raw_gpu("0x2684", "0xa1");
	nv.attrs["vendor"] = txt("0x10de");
	nv.udev_props = navi22_props();
	CHECK_FALSE(build_device(nv, {}, nullptr).hwdb); // only AMD GPUs
}
