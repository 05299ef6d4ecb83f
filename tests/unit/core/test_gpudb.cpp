// GPU database: internal consistency of every row, coverage of every GFX10
// PCI id, and the KFD gfx_target_version encoding.
#include <catch2/catch_test_macros.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "core/gpudb.hpp"
#include "core/parse.hpp"
#include "core/rules.hpp"

using rdnafix::core::GcVersion;
using rdnafix::core::GfxTarget;
namespace gpudb = rdnafix::gpudb;

namespace {
std::string slurp(const std::string &path)
{
	std::ifstream in(path);
	REQUIRE(in.good());
	std::stringstream ss;
	ss << in.rdbuf();
	return ss.str();
}
} // namespace

TEST_CASE("gpudb: every row's gfx target is what the kernel map gives for its GC version", "[gpudb]")
{
	REQUIRE(gpudb::all().size() >= 80);
	for (const auto &e : gpudb::all()) {
		INFO("pci device " << std::hex << e.pci_device << " gc " << e.gc.to_string());
		auto t = gpudb::kfd_target_for_gc(e.gc);
		REQUIRE(t.has_value());
		CHECK(*t == e.gfx);
		if (e.gc_alt) {
			auto t2 = gpudb::kfd_target_for_gc(*e.gc_alt);
			REQUIRE(t2.has_value());
			CHECK(*t2 == e.gfx);
		}
	}
}

TEST_CASE("gpudb: every row's generation matches its GC major/minor", "[gpudb]")
{
	for (const auto &e : gpudb::all()) {
		INFO("pci device " << std::hex << e.pci_device << " gc " << e.gc.to_string());
		auto g = gpudb::generation_for_gc(e.gc);
		REQUIRE(g.has_value());
		CHECK(*g == e.generation);
		CHECK(gpudb::is_gmc_v10(e.gc) ==
		      (e.generation == gpudb::Generation::rdna1 || e.generation == gpudb::Generation::rdna2));
		CHECK_FALSE(e.source.empty());
		CHECK_FALSE(e.codename.empty());
	}
}

TEST_CASE("gpudb: no duplicate (device, revision)", "[gpudb]")
{
	std::set<std::pair<unsigned, int>> seen;
	for (const auto &e : gpudb::all()) {
		auto key = std::make_pair(unsigned{e.pci_device}, e.pci_revision ? int{*e.pci_revision} : -1);
		INFO("pci device " << std::hex << e.pci_device);
		CHECK(seen.insert(key).second);
	}
}

TEST_CASE("gpudb: every GFX10 PCI id of the kernel's pciidlist is present with the right chip", "[gpudb]")
{
	// data/kernel-gfx10-pci-ids.txt is a copy of docs/sources/kernel-gfx10-pci-ids.txt (source in its header).
	const std::string text = slurp(RDNAFIX_CORE_TEST_DATA "/kernel-gfx10-pci-ids.txt");
	const std::pair<std::string, GcVersion> chips[] = {
		{"NAVI10", {10, 1, 10}},          {"NAVI12", {10, 1, 2}},
		{"NAVI14", {10, 1, 1}},           {"CYAN_SKILLFISH|AMD_IS_APU", {10, 1, 3}},
		{"SIENNA_CICHLID", {10, 3, 0}},   {"NAVY_FLOUNDER", {10, 3, 2}},
		{"DIMGREY_CAVEFISH", {10, 3, 4}}, {"VANGOGH|AMD_IS_APU", {10, 3, 1}},
		{"BEIGE_GOBY", {10, 3, 5}},       {"YELLOW_CARP|AMD_IS_APU", {10, 3, 3}},
	};
	std::size_t checked = 0;
	std::istringstream in(text);
	std::string line;
	while (std::getline(in, line)) {
		if (line.empty() || line[0] == '#')
			continue;
		auto colon = line.find(": ");
		REQUIRE(colon != std::string::npos);
		std::string chip = line.substr(0, colon);
		std::istringstream ids(line.substr(colon + 2));
		std::string id;
		while (ids >> id) {
			unsigned dev = std::stoul(id, nullptr, 16);
			INFO(chip << " " << id);
			const auto *e = gpudb::lookup(static_cast<std::uint16_t>(dev), 0xC1);
			REQUIRE(e != nullptr);
			CHECK(gpudb::is_gmc_v10(e->gc));
			bool apu = chip.find("AMD_IS_APU") != std::string::npos;
			if (chip != "IP_DISCOVERY")
				CHECK(e->apu == apu);
			else
				CHECK(e->apu); // 164E, 13C0, 1506, 1435 are all APUs
			for (const auto &[name, gc] : chips)
				if (name == chip)
					CHECK(e->gc == gc);
			++checked;
		}
	}
	CHECK(checked == 68); // 64 pciidlist ids (6.1) + 4 IP-discovery ids
}

TEST_CASE("gpudb: the 13 gmc_v10 GC versions all have a row, and only they are gmc_v10", "[gpudb]")
{
	const GcVersion v10[] = {{10, 1, 10}, {10, 1, 1}, {10, 1, 2}, {10, 1, 3}, {10, 1, 4}, {10, 3, 0}, {10, 3, 1},
				 {10, 3, 2},  {10, 3, 3}, {10, 3, 4}, {10, 3, 5}, {10, 3, 6}, {10, 3, 7}};
	for (const auto &gc : v10) {
		INFO(gc.to_string());
		CHECK(gpudb::is_gmc_v10(gc));
		bool found = false;
		for (const auto &e : gpudb::all())
			found = found || e.gc == gc || (e.gc_alt && *e.gc_alt == gc);
		CHECK(found);
	}
	CHECK_FALSE(gpudb::is_gmc_v10({10, 1, 0}));
	CHECK_FALSE(gpudb::is_gmc_v10({10, 1, 5}));
	CHECK_FALSE(gpudb::is_gmc_v10({10, 3, 8}));
	CHECK_FALSE(gpudb::is_gmc_v10({11, 0, 0}));
	CHECK_FALSE(gpudb::is_gmc_v10({9, 4, 2}));
}

TEST_CASE("gpudb: lookups of well-known parts", "[gpudb]")
{
	const auto *navi22 = gpudb::lookup(0x73DF, 0xC0); // RX 6750 XT
	REQUIRE(navi22);
	CHECK(navi22->gfx.name() == "gfx1031");
	CHECK(navi22->generation == gpudb::Generation::rdna2);
	CHECK_FALSE(navi22->apu);
	const auto *mendocino = gpudb::lookup(0x1506, 0xC1);
	REQUIRE(mendocino);
	CHECK(mendocino->gc == GcVersion{10, 3, 7});
	CHECK(mendocino->gfx.name() == "gfx1036"); // not gfx1037
	const auto *halo = gpudb::lookup(0x1586, 0xC1);
	REQUIRE(halo);
	CHECK(halo->gfx.name() == "gfx1151");
	CHECK(gpudb::to_string(halo->generation) == "rdna3.5");
	CHECK(halo->apu);
	const auto *navi10 = gpudb::lookup(0x731F, 0xCA); // RX 5600 XT
	REQUIRE(navi10);
	CHECK(navi10->gfx.name() == "gfx1010");
	CHECK(gpudb::lookup(0x1234, 0x00) == nullptr);
	CHECK(gpudb::lookup_device(0x73DF).size() == 1);
	CHECK(gpudb::lookup_device(0xFFFF).empty());
	// Required coverage beyond GFX10.
	for (unsigned dev : {0x744Cu, 0x747Eu, 0x7480u, 0x15BFu, 0x15C8u, 0x150Eu, 0x1586u, 0x7550u, 0x687Fu, 0x66AFu,
			     0x15D8u, 0x15DDu, 0x1636u, 0x1638u, 0x738Cu, 0x740Fu, 0x740Cu, 0x74A1u}) {
		INFO(std::hex << dev);
		CHECK(gpudb::lookup(static_cast<std::uint16_t>(dev), 0) != nullptr);
	}
}

TEST_CASE("gpudb: KFD gfx_target_version encoding", "[gpudb]")
{
	auto t = gpudb::decode_gfx_target_version(100301);
	REQUIRE(t);
	CHECK(t->name() == "gfx1031");
	CHECK(t->dotted() == "10.3.1");
	auto h = gpudb::decode_gfx_target_version(110501);
	REQUIRE(h);
	CHECK(h->name() == "gfx1151");
	CHECK(gpudb::encode_gfx_target_version(GfxTarget{11, 5, 1}) == 110501);
	CHECK(gpudb::encode_gfx_target_version(*gpudb::parse_gfx_name("gfx1031")) == 100301);
	auto a = gpudb::decode_gfx_target_version(90010);
	REQUIRE(a);
	CHECK(a->name() == "gfx90a");
	CHECK(gpudb::parse_gfx_name("gfx90a") == GfxTarget{9, 0, 10});
	CHECK(gpudb::parse_gfx_name("GFX1031") == std::nullopt); // ROCr names are lower case "gfx"
	CHECK(gpudb::parse_gfx_name("gfx90C") == GfxTarget{9, 0, 12});
	CHECK(gpudb::decode_gfx_target_version(0) == std::nullopt);      // CPU node
	CHECK(gpudb::decode_gfx_target_version(101601) == std::nullopt); // minor 16 cannot be named
	CHECK(gpudb::parse_gfx_name("gfx10-3-generic") == std::nullopt);
	CHECK(gpudb::parse_gfx_name("gfx1") == std::nullopt);
	CHECK(gpudb::parse_gfx_name("1031") == std::nullopt);
	CHECK(gpudb::parse_gfx_name("gfx0031") == std::nullopt);
	// Round trip of every database row.
	for (const auto &e : gpudb::all()) {
		INFO(e.gfx.name());
		auto rt = gpudb::decode_gfx_target_version(gpudb::encode_gfx_target_version(e.gfx));
		REQUIRE(rt);
		CHECK(*rt == e.gfx);
		CHECK(gpudb::parse_gfx_name(e.gfx.name()) == e.gfx);
	}
}

TEST_CASE("gpudb: kernel GC -> KFD target map", "[gpudb]")
{
	CHECK(gpudb::kfd_target_for_gc({10, 3, 7})->kfd_version() == 100306);
	CHECK(gpudb::kfd_target_for_gc({10, 3, 6})->kfd_version() == 100306);
	CHECK(gpudb::kfd_target_for_gc({11, 0, 3})->kfd_version() == 110001);
	CHECK(gpudb::kfd_target_for_gc({11, 0, 1})->kfd_version() == 110003);
	CHECK(gpudb::kfd_target_for_gc({11, 0, 4})->kfd_version() == 110003);
	CHECK(gpudb::kfd_target_for_gc({12, 1, 0})->kfd_version() == 120500);
	CHECK(gpudb::kfd_target_for_gc({10, 1, 10})->name() == "gfx1010");
	CHECK(gpudb::kfd_target_for_gc({10, 1, 2})->name() == "gfx1011");
	CHECK(gpudb::kfd_target_for_gc({10, 1, 1})->name() == "gfx1012");
	CHECK(gpudb::kfd_target_for_gc({10, 3, 2})->name() == "gfx1031");
	CHECK(gpudb::kfd_target_for_gc({10, 3, 4})->name() == "gfx1032");
	CHECK(gpudb::kfd_target_for_gc({10, 3, 1})->name() == "gfx1033");
	CHECK(gpudb::kfd_target_for_gc({11, 5, 1})->name() == "gfx1151");
	CHECK(gpudb::kfd_target_for_gc({10, 2, 0}) == std::nullopt);
	CHECK(gpudb::kfd_target_for_gc({13, 0, 0}) == std::nullopt);
}

TEST_CASE("gpudb: libdrm family + external rev -> chip", "[gpudb]")
{
	auto c = gpudb::chip_from_drm(143, 0x32); // NV family, first Navi22 rev
	REQUIRE(c);
	CHECK(c->chip == "NAVI22");
	CHECK(c->gfx.name() == "gfx1031");
	CHECK(gpudb::chip_from_drm(143, 0x31)->chip == "NAVI21"); // half-open ranges
	CHECK(gpudb::chip_from_drm(143, 0x01)->gfx.name() == "gfx1010");
	CHECK(gpudb::chip_from_drm(150, 0xC1)->gfx.name() == "gfx1151"); // Strix Halo
	CHECK(gpudb::chip_from_drm(150, 0x41)->gfx.name() == "gfx1152"); // Krackan
	CHECK(gpudb::chip_from_drm(151, 0x01)->gfx.name() == "gfx1036"); // Mendocino
	CHECK(gpudb::chip_from_drm(148, 0xC5)->chip == "HAWK_POINT1");
	CHECK(gpudb::chip_from_drm(152, 0x51)->gfx.name() == "gfx1201");
	CHECK(gpudb::chip_from_drm(143, 0x60) == std::nullopt); // gap between NAVI24 and GFX1013
	CHECK(gpudb::chip_from_drm(999, 0x01) == std::nullopt);
	CHECK(gpudb::drm_family_name(150) == "GC_11_5_0");
	CHECK(gpudb::drm_family_name(1) == std::nullopt);
}

TEST_CASE("gpudb: generation names round-trip", "[gpudb]")
{
	for (auto g : {gpudb::Generation::gcn5, gpudb::Generation::cdna1, gpudb::Generation::cdna2,
		       gpudb::Generation::cdna3, gpudb::Generation::rdna1, gpudb::Generation::rdna2,
		       gpudb::Generation::rdna3, gpudb::Generation::rdna3_5, gpudb::Generation::rdna4})
		CHECK(gpudb::generation_from_string(gpudb::to_string(g)) == g);
	CHECK(gpudb::display_name(gpudb::Generation::rdna3_5) == "RDNA3.5");
	CHECK(gpudb::generation_from_string("rdna5") == std::nullopt);
	CHECK(gpudb::is_rdna(gpudb::Generation::rdna1));
	CHECK_FALSE(gpudb::is_rdna(gpudb::Generation::cdna3));
}

TEST_CASE("gpudb: the table compiled in equals the data file", "[gpudb]")
{
	// Re-read gpu-database.tsv at test time and compare row by row with the
	// compiled table, so a stale generated table cannot pass.
	const std::string text = slurp(RDNAFIX_GPUDB_TSV);
	std::istringstream in(text);
	std::string line;
	std::size_t rows = 0;
	bool header = true;
	while (std::getline(in, line)) {
		if (line.empty() || line[0] == '#')
			continue;
		if (header) {
			header = false;
			continue;
		}
		std::vector<std::string> cols;
		std::size_t pos = 0;
		while (true) {
			auto tab = line.find('\t', pos);
			cols.push_back(line.substr(pos, tab == std::string::npos ? std::string::npos : tab - pos));
			if (tab == std::string::npos)
				break;
			pos = tab + 1;
		}
		REQUIRE(cols.size() == 8);
		REQUIRE(rows < gpudb::all().size());
		const auto &e = gpudb::all()[rows];
		INFO(line);
		CHECK(e.pci_device == std::stoul(cols[0], nullptr, 16));
		CHECK(e.gfx.name() == cols[3]);
		CHECK(e.codename == cols[4]);
		CHECK(gpudb::to_string(e.generation) == cols[5]);
		CHECK(e.apu == (cols[6] == "1"));
		CHECK(e.source == cols[7]);
		++rows;
	}
	CHECK(rows == gpudb::all().size());
}

TEST_CASE("gpudb: every row's target is one ROCm knows and has a name round trip", "[gpudb]")
{
	for (const auto &e : gpudb::all()) {
		INFO(e.gfx.name());
		CHECK(rdnafix::rules::is_known_rocm_target(e.gfx));
		// RDNA rows belong to an LLVM generic family; GCN5/CDNA rows do not.
		CHECK((rdnafix::rules::isa_family_of(e.gfx) != nullptr) == gpudb::is_rdna(e.generation));
	}
}
