// Tests of kmod/rdnafix_policy.h: the parameter validation, selector
// matching, GFX10 PCI-id table and PTE MTYPE rewrite that the rdnafix
// kernel module runs.  The header is compiled here as C++ and, through
// policy_c.c, as C.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "policy_c.h"
#include "rdnafix_policy.h"

namespace {

constexpr std::uint64_t kSystem = 1ULL << 1;
constexpr std::uint64_t kPrt = 1ULL << 51;
constexpr std::uint64_t kMtypeMask = 7ULL << 48;

std::uint64_t with_mtype(std::uint64_t pte, unsigned mtype)
{
	return (pte & ~kMtypeMask) | (static_cast<std::uint64_t>(mtype) << 48);
}

rdnafix_sel_list parse_list(const std::string &s, bool allow_empty)
{
	rdnafix_sel_list l{};
	unsigned bad = 0;
	REQUIRE(rdnafix_parse_sel_list(s.c_str(), allow_empty, &l, &bad) == 0);
	return l;
}

rdnafix_dev make_dev(std::uint16_t device, const std::string &bdf = "0000:03:00.0", std::uint16_t vendor = 0x1002)
{
	rdnafix_dev d{};
	d.vendor = vendor;
	d.device = device;
	REQUIRE(rdnafix_parse_bdf(bdf.c_str(), static_cast<unsigned>(bdf.size()), &d.bdf) == 0);
	return d;
}

rdnafix_decision decide(const std::string &targets, const std::string &exclude, const rdnafix_dev &d)
{
	rdnafix_sel_list t = parse_list(targets, false);
	rdnafix_sel_list x = parse_list(exclude, true);
	return rdnafix_decide(&t, &x, &d);
}

bool targeted(const std::string &targets, const std::string &exclude, const rdnafix_dev &d)
{
	return decide(targets, exclude, d).verdict == RDNAFIX_TARGETED;
}

// Inputs every validator must refuse (besides its own out-of-range values).
const std::vector<std::string> kGarbage = {
	"",
	" ",
	"\n",
	"\n\n",
	"abc",
	"1 ",
	" 1",
	"1x",
	"+1",
	"-",
	"--1",
	"0x1",
	"1\n\n",
	"1\t",
	"1,1",
	"-0",
	"0 \n",
	"é",
	std::string(300, '1'),
	std::string(4096, 'a'),
};

} // namespace

TEST_CASE("noretry accepts exactly -1, 0, 1", "[params]")
{
	const std::map<std::string, int> valid = {
		{"-1", -1}, {"0", 0}, {"1", 1}, {"-1\n", -1}, {"0\n", 0}, {"1\n", 1},
	};
	for (const auto &[in, want] : valid) {
		int v = 42;
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_noretry(in.c_str(), &v) == 0);
		CHECK(v == want);
	}
	std::vector<std::string> bad = kGarbage;
	bad.insert(bad.end(), {"2", "-2", "01", "00", "-01", "10", "-10", "999", "1000", "-1000"});
	for (const auto &in : bad) {
		int v = 42;
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_noretry(in.c_str(), &v) == -EINVAL);
		CHECK(v == 42); // untouched on error
	}
}

TEST_CASE("vm_fragment_size accepts -1 and 4..9 only", "[params]")
{
	for (int i = -1; i <= 9; i++) {
		if (i >= 0 && i < 4)
			continue;
		int v = 42;
		const std::string in = std::to_string(i);
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_fragment(in.c_str(), &v) == 0);
		CHECK(v == i);
		CHECK(rdnafix_parse_fragment((in + "\n").c_str(), &v) == 0);
	}
	std::vector<std::string> bad = kGarbage;
	bad.insert(bad.end(), {"0", "1", "2", "3", "10", "11", "-2", "-4", "-9", "09", "4 ", "44"});
	for (const auto &in : bad) {
		int v = 42;
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_fragment(in.c_str(), &v) == -EINVAL);
		CHECK(v == 42);
	}
}

TEST_CASE("mtype_sysmem/mtype_vram accept keep|nc|wc|cc|uc with the hardware encoding", "[params]")
{
	const std::map<std::string, int> valid = {
		{"keep", RDNAFIX_MTYPE_KEEP}, {"nc", 0}, {"wc", 1}, {"cc", 2}, {"uc", 3}, {"uc\n", 3},
	};
	for (const auto &[in, want] : valid) {
		int v = 42;
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_mtype(in.c_str(), &v) == 0);
		CHECK(v == want);
	}
	// navi10_enum.h: MTYPE_NC=0, MTYPE_WC=1, MTYPE_CC=2 (TCC_MTYPE), MTYPE_UC=3 (MTYPE)
	CHECK(RDNAFIX_MTYPE_NC == 0);
	CHECK(RDNAFIX_MTYPE_WC == 1);
	CHECK(RDNAFIX_MTYPE_CC == 2);
	CHECK(RDNAFIX_MTYPE_UC == 3);
	std::vector<std::string> bad = kGarbage;
	bad.insert(bad.end(),
		   {"NC", "Keep", "KEEP", "n", "ncx", "rw", "default", "0", "3", "keep ", " uc", "uc\n\n", "ucuc"});
	for (const auto &in : bad) {
		int v = 42;
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_mtype(in.c_str(), &v) == -EINVAL);
		CHECK(v == 42);
	}
	for (int m = RDNAFIX_MTYPE_KEEP; m <= RDNAFIX_MTYPE_UC; m++) {
		int v = 42;
		CHECK(rdnafix_parse_mtype(rdnafix_mtype_name(m), &v) == 0);
		CHECK(v == m); // name and parser round-trip
	}
	CHECK(std::string(rdnafix_mtype_name(7)) == "invalid");
}

TEST_CASE("dry_run/strict accept exactly 0 or 1", "[params]")
{
	bool b = false;
	CHECK(rdnafix_parse_bool01("1", &b) == 0);
	CHECK(b);
	CHECK(rdnafix_parse_bool01("0\n", &b) == 0);
	CHECK_FALSE(b);
	std::vector<std::string> bad = kGarbage;
	bad.insert(bad.end(), {"2", "-1", "y", "n", "Y", "true", "on", "01", "10"});
	for (const auto &in : bad) {
		bool v = true;
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_bool01(in.c_str(), &v) == -EINVAL);
		CHECK(v);
	}
}

TEST_CASE("a missing value (NULL) is refused by every validator", "[params]")
{
	int v = 42;
	bool b = true;
	rdnafix_sel_list l{};
	l.count = 7;
	CHECK(rdnafix_parse_noretry(nullptr, &v) == -EINVAL);
	CHECK(rdnafix_parse_fragment(nullptr, &v) == -EINVAL);
	CHECK(rdnafix_parse_mtype(nullptr, &v) == -EINVAL);
	CHECK(v == 42);
	CHECK(rdnafix_parse_bool01(nullptr, &b) == -EINVAL);
	CHECK(b);
	CHECK(rdnafix_parse_sel_list(nullptr, true, &l, nullptr) == -EINVAL);
	CHECK(rdnafix_parse_sel_list(nullptr, false, &l, nullptr) == -EINVAL);
	CHECK(l.count == 7);
}

TEST_CASE("selector lists: valid syntax", "[selectors]")
{
	struct Case {
		std::string in;
		std::vector<int> kinds;
	};
	const std::vector<Case> cases = {
		{"rdna1", {RDNAFIX_SEL_RDNA1}},
		{"rdna1,rdna2", {RDNAFIX_SEL_RDNA1, RDNAFIX_SEL_RDNA2}},
		{"gfx1031", {RDNAFIX_SEL_GFX}},
		{"gfx90a,gfx1151", {RDNAFIX_SEL_GFX, RDNAFIX_SEL_GFX}},
		{"dgpu,apu", {RDNAFIX_SEL_DGPU, RDNAFIX_SEL_APU}},
		{"0000:03:00.0", {RDNAFIX_SEL_BDF}},
		{"0000:0A:1f.7\n", {RDNAFIX_SEL_BDF}},
		{"rdna2,0001:c1:00.0,apu", {RDNAFIX_SEL_RDNA2, RDNAFIX_SEL_BDF, RDNAFIX_SEL_APU}},
	};
	for (const auto &c : cases) {
		INFO("list '" << c.in << "'");
		rdnafix_sel_list l{};
		unsigned bad = 99;
		REQUIRE(rdnafix_parse_sel_list(c.in.c_str(), false, &l, &bad) == 0);
		REQUIRE(l.count == c.kinds.size());
		for (size_t i = 0; i < c.kinds.size(); i++)
			CHECK(l.sel[i].kind == c.kinds[i]);
	}
	rdnafix_sel_list l{};
	REQUIRE(rdnafix_parse_sel_list("0001:c1:1f.5", false, &l, nullptr) == 0);
	CHECK(l.sel[0].bdf.domain == 1);
	CHECK(l.sel[0].bdf.bus == 0xc1);
	CHECK(l.sel[0].bdf.devfn == (0x1f << 3 | 5));
	CHECK(std::string(l.sel[0].text) == "0001:c1:1f.5");

	// 16 entries are fine, and the empty list is fine for exclude only
	std::string sixteen;
	for (int i = 0; i < 16; i++)
		sixteen += (i ? "," : "") + std::string("rdna1");
	CHECK(rdnafix_parse_sel_list(sixteen.c_str(), false, &l, nullptr) == 0);
	CHECK(l.count == 16);
	CHECK(rdnafix_parse_sel_list("", true, &l, nullptr) == 0);
	CHECK(l.count == 0);
	CHECK(rdnafix_parse_sel_list("\n", true, &l, nullptr) == 0);
	CHECK(l.count == 0);
}

TEST_CASE("selector lists: invalid input is refused and the bad element located", "[selectors]")
{
	struct Case {
		std::string in;
		unsigned bad_off;
	};
	std::string seventeen;
	for (int i = 0; i < 17; i++)
		seventeen += (i ? "," : "") + std::string("rdna1");
	const std::vector<Case> cases = {
		{"", 0},
		{"rdna3", 0},
		{"rdna1,", 6},
		{",rdna1", 0},
		{"rdna1,,rdna2", 6},
		{"rdna1 ,rdna2", 0},
		{"rdna1, rdna2", 6},
		{"RDNA1", 0},
		{"gfx", 0},
		{"gfx1", 0},
		{"gfx10311", 0},
		{"GFX1031", 0},
		{"gfx103g", 0},
		{"rdna2,0000:03:00.8", 6},
		{"0000:03:20.0", 0},
		{"0000:3:00.0", 0},
		{"00000:03:00.0", 0},
		{"0000:03:00:0", 0},
		{"0000-03-00.0", 0},
		{"03:00.0", 0},
		{"apu,dgpu,x", 9},
		{"rdna1\n\n", 0},
		{seventeen, 96},
		{std::string(300, 'a'), 0},
		{"-1", 0},
	};
	for (const auto &c : cases) {
		INFO("list '" << c.in << "'");
		rdnafix_sel_list l{};
		l.count = 77;
		unsigned bad = 99;
		CHECK(rdnafix_parse_sel_list(c.in.c_str(), false, &l, &bad) == -EINVAL);
		CHECK(l.count == 77); // untouched
		CHECK(bad == c.bad_off);
	}
	// targets must not be empty, exclude may
	rdnafix_sel_list l{};
	CHECK(rdnafix_parse_sel_list("", false, &l, nullptr) == -EINVAL);
	CHECK(rdnafix_parse_sel_list(",", true, &l, nullptr) == -EINVAL);
}

TEST_CASE("GFX10 PCI table: ids, targets, generation, APU flag", "[table]")
{
	unsigned n = 0;
	const rdnafix_gpu_id *t = rdnafix_gpu_table(&n);
	REQUIRE(n == 68);
	std::set<std::uint16_t> ids;
	for (unsigned i = 0; i < n; i++) {
		INFO("device " << std::hex << t[i].device);
		CHECK(ids.insert(t[i].device).second); // unique
		CHECK((t[i].gen == RDNAFIX_GEN_RDNA1 || t[i].gen == RDNAFIX_GEN_RDNA2));
		const std::string target = t[i].target;
		CHECK(target.rfind(t[i].gen == RDNAFIX_GEN_RDNA1 ? "gfx101" : "gfx103", 0) == 0);
		CHECK(rdnafix_gpu_lookup(0x1002, t[i].device) == &t[i]);
	}
	struct Known {
		std::uint16_t id;
		const char *target;
		int gen;
		int apu;
	};
	// amdgpu-internals.md section 7
	const Known known[] = {
		{0x731f, "gfx1010", RDNAFIX_GEN_RDNA1, 0}, {0x7362, "gfx1011", RDNAFIX_GEN_RDNA1, 0},
		{0x7340, "gfx1012", RDNAFIX_GEN_RDNA1, 0}, {0x13fe, "gfx1013", RDNAFIX_GEN_RDNA1, 1},
		{0x73bf, "gfx1030", RDNAFIX_GEN_RDNA2, 0}, {0x73df, "gfx1031", RDNAFIX_GEN_RDNA2, 0},
		{0x73ff, "gfx1032", RDNAFIX_GEN_RDNA2, 0}, {0x163f, "gfx1033", RDNAFIX_GEN_RDNA2, 1},
		{0x1435, "gfx1033", RDNAFIX_GEN_RDNA2, 1}, {0x743f, "gfx1034", RDNAFIX_GEN_RDNA2, 0},
		{0x1681, "gfx1035", RDNAFIX_GEN_RDNA2, 1}, {0x164e, "gfx1036", RDNAFIX_GEN_RDNA2, 1},
		{0x13c0, "gfx1036", RDNAFIX_GEN_RDNA2, 1}, {0x1506, "gfx1036", RDNAFIX_GEN_RDNA2, 1},
	};
	for (const auto &k : known) {
		INFO("device " << std::hex << k.id);
		const rdnafix_gpu_id *id = rdnafix_gpu_lookup(0x1002, k.id);
		REQUIRE(id != nullptr);
		CHECK(std::string(id->target) == k.target);
		CHECK(id->gen == k.gen);
		CHECK(id->apu == k.apu);
	}
	// not GMC v10: RDNA3 Navi31, RDNA3.5 Strix Halo, Vega 10, and another vendor's id
	CHECK(rdnafix_gpu_lookup(0x1002, 0x744c) == nullptr);
	CHECK(rdnafix_gpu_lookup(0x1002, 0x1586) == nullptr);
	CHECK(rdnafix_gpu_lookup(0x1002, 0x687f) == nullptr);
	CHECK(rdnafix_gpu_lookup(0x10de, 0x73df) == nullptr);
	CHECK(std::string(rdnafix_gen_name(RDNAFIX_GEN_RDNA1)) == "rdna1");
	CHECK(std::string(rdnafix_gen_name(RDNAFIX_GEN_RDNA2)) == "rdna2");
	CHECK(std::string(rdnafix_gen_name(RDNAFIX_GEN_OTHER)) == "other");
}

TEST_CASE("GFX10 PCI table agrees with userspace/data/gpu-database.tsv", "[table][gpudb]")
{
	std::ifstream in(RDNAFIX_GPUDB_TSV);
	if (!in)
		SKIP("userspace/data/gpu-database.tsv not in this tree");
	// columns by header name (team-interfaces.md section 1)
	std::string line;
	std::map<std::string, size_t> col;
	std::map<std::uint16_t, std::tuple<std::string, int, int>> db;
	while (std::getline(in, line)) {
		if (line.empty() || line[0] == '#')
			continue;
		std::vector<std::string> f;
		std::stringstream ss(line);
		std::string cell;
		while (std::getline(ss, cell, '\t'))
			f.push_back(cell);
		if (col.empty()) {
			for (size_t i = 0; i < f.size(); i++)
				col[f[i]] = i;
			for (const char *need : {"pci_device", "gfx_target", "generation", "apu"})
				REQUIRE(col.count(need) == 1);
			continue;
		}
		const std::string gen = f.at(col["generation"]);
		if (gen != "rdna1" && gen != "rdna2")
			continue;
		const auto dev = static_cast<std::uint16_t>(std::stoul(f.at(col["pci_device"]), nullptr, 16));
		const auto row =
			std::make_tuple(f.at(col["gfx_target"]), gen == "rdna1" ? RDNAFIX_GEN_RDNA1 : RDNAFIX_GEN_RDNA2,
					std::stoi(f.at(col["apu"])));
		// a device id listed twice (per revision) must agree with itself
		auto [it, fresh] = db.emplace(dev, row);
		CHECK((fresh || it->second == row));
	}
	REQUIRE_FALSE(col.empty());
	unsigned n = 0;
	const rdnafix_gpu_id *t = rdnafix_gpu_table(&n);
	std::map<std::uint16_t, std::tuple<std::string, int, int>> ours;
	for (unsigned i = 0; i < n; i++)
		ours.emplace(t[i].device, std::make_tuple(std::string(t[i].target), int(t[i].gen), int(t[i].apu)));
	for (const auto &[dev, row] : db) {
		INFO("device " << std::hex << dev << " in gpu-database.tsv");
		REQUIRE(ours.count(dev) == 1);
		CHECK(ours[dev] == row);
	}
	for (const auto &[dev, row] : ours) {
		INFO("device " << std::hex << dev << " in rdnafix_policy.h");
		CHECK(db.count(dev) == 1);
	}
}

TEST_CASE("selectors match RDNA1/RDNA2/RDNA3, APU/dGPU and PCI addresses", "[selectors]")
{
	const rdnafix_dev rx5700xt = make_dev(0x731f, "0000:03:00.0");  // RDNA1 dGPU gfx1010
	const rdnafix_dev rx6750xt = make_dev(0x73df, "0000:0c:00.0");  // RDNA2 dGPU gfx1031
	const rdnafix_dev rembrandt = make_dev(0x1681, "0000:e5:00.0"); // RDNA2 APU gfx1035
	const rdnafix_dev raphael = make_dev(0x164e, "0000:12:00.0");   // RDNA2 APU gfx1036
	const rdnafix_dev mendocino = make_dev(0x1506, "0000:04:00.0"); // GC 10.3.7, gfx1036
	const rdnafix_dev skillfish = make_dev(0x13fe, "0000:01:00.0"); // RDNA1 APU gfx1013
	const rdnafix_dev rx7900 = make_dev(0x744c, "0000:03:00.0");    // RDNA3: never
	const rdnafix_dev nvidia = make_dev(0x73df, "0000:0c:00.0", 0x10de);

	// default targets
	CHECK(targeted("rdna1,rdna2", "", rx5700xt));
	CHECK(targeted("rdna1,rdna2", "", rx6750xt));
	CHECK(targeted("rdna1,rdna2", "", rembrandt));
	CHECK(targeted("rdna1,rdna2", "", skillfish));
	CHECK_FALSE(targeted("rdna1,rdna2", "", rx7900));
	CHECK_FALSE(targeted("rdna1,rdna2", "", nvidia));

	// generation
	CHECK(targeted("rdna1", "", rx5700xt));
	CHECK(targeted("rdna1", "", skillfish));
	CHECK_FALSE(targeted("rdna1", "", rx6750xt));
	CHECK(targeted("rdna2", "", rx6750xt));
	CHECK_FALSE(targeted("rdna2", "", rx5700xt));

	// gfx target
	CHECK(targeted("gfx1031", "", rx6750xt));
	CHECK_FALSE(targeted("gfx1031", "", rx5700xt));
	CHECK(targeted("gfx1036", "", raphael));
	CHECK(targeted("gfx1036", "", mendocino));
	CHECK_FALSE(targeted("gfx1030", "", rx6750xt));

	// APU / dGPU
	CHECK(targeted("apu", "", rembrandt));
	CHECK(targeted("apu", "", skillfish));
	CHECK_FALSE(targeted("apu", "", rx6750xt));
	CHECK(targeted("dgpu", "", rx6750xt));
	CHECK_FALSE(targeted("dgpu", "", raphael));

	// PCI address
	CHECK(targeted("0000:0c:00.0", "", rx6750xt));
	CHECK(targeted("0000:0C:00.0", "", rx6750xt));
	CHECK_FALSE(targeted("0000:0c:00.1", "", rx6750xt));
	CHECK_FALSE(targeted("0001:0c:00.0", "", rx6750xt));

	// only GMC v10 parts, whatever the selectors say
	CHECK_FALSE(targeted("dgpu,apu,gfx1100,0000:03:00.0", "", rx7900));
	CHECK(decide("dgpu,apu,gfx1100,0000:03:00.0", "", rx7900).verdict == RDNAFIX_NOT_GFX10);

	// exclude wins
	CHECK_FALSE(targeted("rdna2", "0000:0c:00.0", rx6750xt));
	CHECK(targeted("rdna2", "0000:0c:00.0", rembrandt));
	CHECK_FALSE(targeted("rdna1,rdna2", "apu", rembrandt));
	CHECK(targeted("rdna1,rdna2", "apu", rx6750xt));
	CHECK_FALSE(targeted("rdna1,rdna2", "gfx1010", rx5700xt));

	// which selector decided
	auto d = decide("rdna1,gfx1031,dgpu", "", rx6750xt);
	CHECK(d.verdict == RDNAFIX_TARGETED);
	CHECK(d.sel == 1);
	d = decide("rdna2", "gfx1035,apu", rembrandt);
	CHECK(d.verdict == RDNAFIX_EXCLUDED);
	CHECK(d.sel == 0);
	d = decide("rdna1", "", rx6750xt);
	CHECK(d.verdict == RDNAFIX_NOT_SELECTED);
	CHECK(d.sel == -1);
}

TEST_CASE("PTE MTYPE rewrite: bits 50:48 only, class by the SYSTEM bit", "[pte]")
{
	// AMDGPU_PTE_SYSTEM bit 1, AMDGPU_PTE_MTYPE_NV10(a) = a << 48, mask 7 << 48 (amdgpu_vm.h)
	CHECK(RDNAFIX_PTE_SYSTEM == kSystem);
	CHECK(RDNAFIX_PTE_MTYPE_MASK == kMtypeMask);
	CHECK(RDNAFIX_PTE_PRT == kPrt);

	const std::uint64_t other_bits = 0xFFFFFFFFFFFFFFFFULL & ~kMtypeMask & ~kPrt;
	const std::uint64_t base = GENERATE(0x1ULL, 0x61ULL, other_bits & ~kSystem);
	for (int sys_bit = 0; sys_bit < 2; sys_bit++) {
		for (unsigned before = 0; before < 8; before++) {
			for (int pol_sys = RDNAFIX_MTYPE_KEEP; pol_sys <= RDNAFIX_MTYPE_UC; pol_sys++) {
				for (int pol_vram = RDNAFIX_MTYPE_KEEP; pol_vram <= RDNAFIX_MTYPE_UC; pol_vram++) {
					const std::uint64_t pte =
						with_mtype(sys_bit ? (base | kSystem) : (base & ~kSystem), before);
					const int want = sys_bit ? pol_sys : pol_vram;
					INFO("pte " << std::hex << pte << std::dec << " sys " << pol_sys << " vram "
						    << pol_vram);
					std::uint64_t out = 0;
					const int act = rdnafix_pte_apply(pte, pol_sys, pol_vram, false, &out);
					if (want == RDNAFIX_MTYPE_KEEP || static_cast<unsigned>(want) == before) {
						CHECK(act == RDNAFIX_PTE_UNCHANGED);
						CHECK(out == pte);
					} else {
						CHECK(act == RDNAFIX_PTE_REWRITE);
						CHECK(out == with_mtype(pte, static_cast<unsigned>(want)));
						CHECK((out & ~kMtypeMask) == (pte & ~kMtypeMask));
						CHECK(rdnafix_pte_mtype(out) == want);
					}
					// dry run: same decision, nothing changes
					std::uint64_t dry = 0;
					const int dact = rdnafix_pte_apply(pte, pol_sys, pol_vram, true, &dry);
					CHECK(dry == pte);
					CHECK(dact == (act == RDNAFIX_PTE_REWRITE ? RDNAFIX_PTE_WOULD_REWRITE
										  : RDNAFIX_PTE_UNCHANGED));
				}
			}
		}
	}
}

TEST_CASE("PTE rewrite: class selection, PRT and invalid policy values", "[pte]")
{
	std::uint64_t out = 0;
	// system memory (GTT) with NC -> uc for sysmem only
	const std::uint64_t gtt = 0x1ULL | kSystem | 0x60;
	const std::uint64_t vram = 0x1ULL | 0x60;
	CHECK(rdnafix_pte_apply(gtt, RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, false, &out) == RDNAFIX_PTE_REWRITE);
	CHECK(out == (gtt | (3ULL << 48)));
	CHECK(rdnafix_pte_apply(vram, RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, false, &out) == RDNAFIX_PTE_UNCHANGED);
	CHECK(out == vram);
	CHECK(rdnafix_pte_apply(vram, RDNAFIX_MTYPE_KEEP, RDNAFIX_MTYPE_CC, false, &out) == RDNAFIX_PTE_REWRITE);
	CHECK(out == (vram | (2ULL << 48)));
	CHECK(rdnafix_pte_apply(gtt, RDNAFIX_MTYPE_KEEP, RDNAFIX_MTYPE_CC, false, &out) == RDNAFIX_PTE_UNCHANGED);
	// PRT entries are left alone
	CHECK(rdnafix_pte_apply(kPrt | kSystem, RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_UC, false, &out) ==
	      RDNAFIX_PTE_UNCHANGED);
	CHECK(out == (kPrt | kSystem));
	// a policy value outside NC..UC never writes the field
	CHECK(rdnafix_pte_apply(gtt, 4, 7, false, &out) == RDNAFIX_PTE_UNCHANGED);
	CHECK(out == gtt);
	CHECK(rdnafix_pte_apply(gtt, -5, -5, false, &out) == RDNAFIX_PTE_UNCHANGED);
}

TEST_CASE("PTE counters as the module keeps them, including dry run", "[pte]")
{
	// A mix like a real mapping run: GTT NC, GTT UC (coherent), VRAM NC, VRAM UC, PRT.
	const std::vector<std::uint64_t> ptes = {
		0x61ULL | kSystem,      0x61ULL | kSystem | (3ULL << 48), 0x61ULL,
		0x61ULL | (3ULL << 48), 0x61ULL | kSystem | kPrt,         0x61ULL | kSystem,
	};
	struct Counters {
		unsigned calls = 0, rewrites = 0, would = 0;
	};
	auto run = [&](int sys, int vr, bool dry, std::vector<std::uint64_t> *outs) {
		Counters c;
		for (auto p : ptes) {
			std::uint64_t o = 0;
			c.calls++;
			switch (rdnafix_pte_apply(p, sys, vr, dry, &o)) {
			case RDNAFIX_PTE_REWRITE:
				c.rewrites++;
				c.would++;
				break;
			case RDNAFIX_PTE_WOULD_REWRITE:
				c.would++;
				break;
			default:
				break;
			}
			outs->push_back(o);
		}
		return c;
	};
	std::vector<std::uint64_t> o1, o2;
	Counters live = run(RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, false, &o1);
	CHECK(live.calls == 6);
	CHECK(live.rewrites == 2); // the two GTT NC entries
	CHECK(live.would == 2);
	Counters dry = run(RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, true, &o2);
	CHECK(dry.rewrites == 0);
	CHECK(dry.would == 2);
	CHECK(o2 == ptes); // dry run changes nothing
	std::vector<std::uint64_t> o3;
	Counters both = run(RDNAFIX_MTYPE_NC, RDNAFIX_MTYPE_WC, false, &o3);
	CHECK(both.rewrites == 3); // GTT UC -> NC, VRAM NC -> WC, VRAM UC -> WC
}

TEST_CASE("the header compiled as C agrees with C++", "[c]")
{
	const std::vector<std::string> inputs = {
		"-1",
		"0",
		"1",
		"2",
		"4",
		"9",
		"10",
		"",
		"keep",
		"nc",
		"wc",
		"cc",
		"uc",
		"UC",
		"1\n",
		"01",
		"-0",
		"rdna1",
		"rdna1,rdna2",
		"0000:03:00.0",
		"gfx1031",
		"apu,",
		std::string(300, 'x'),
	};
	for (const auto &s : inputs) {
		INFO("input '" << s << "'");
		int a = 42, b = 42;
		CHECK(c_parse_noretry(s.c_str(), &a) == rdnafix_parse_noretry(s.c_str(), &b));
		CHECK(a == b);
		a = b = 42;
		CHECK(c_parse_fragment(s.c_str(), &a) == rdnafix_parse_fragment(s.c_str(), &b));
		CHECK(a == b);
		a = b = 42;
		CHECK(c_parse_mtype(s.c_str(), &a) == rdnafix_parse_mtype(s.c_str(), &b));
		CHECK(a == b);
		unsigned cnt = 0, bad_c = 0, bad_cpp = 0;
		rdnafix_sel_list l{};
		CHECK(c_parse_sel_list(s.c_str(), 0, &cnt, &bad_c) ==
		      rdnafix_parse_sel_list(s.c_str(), false, &l, &bad_cpp));
		CHECK(bad_c == bad_cpp);
	}
	std::uint64_t oc = 0, ocpp = 0;
	CHECK(c_pte_apply(0x63, RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, 0, &oc) ==
	      rdnafix_pte_apply(0x63, RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, false, &ocpp));
	CHECK(oc == ocpp);
	CHECK(oc == (0x63ULL | (3ULL << 48)));
	CHECK(c_targeted("rdna2", "", 0x1002, 0x73df, "0000:0c:00.0") == 1);
	CHECK(c_targeted("rdna2", "0000:0c:00.0", 0x1002, 0x73df, "0000:0c:00.0") == 0);
	CHECK(c_targeted("rdna9", "", 0x1002, 0x73df, "0000:0c:00.0") == -1);
	unsigned n = 0;
	rdnafix_gpu_table(&n);
	CHECK(c_table_size() == n);
}

TEST_CASE("kmod/VERSION is the single x.y.z version", "[version]")
{
	std::ifstream in(RDNAFIX_KMOD_VERSION_FILE);
	REQUIRE(in);
	std::string v, rest;
	std::getline(in, v);
	CHECK_FALSE(std::getline(in, rest)); // one line only
	int dots = 0;
	for (char c : v) {
		if (c == '.')
			dots++;
		else
			CHECK((c >= '0' && c <= '9'));
	}
	CHECK(dots == 2);
}
