// GPU database lookups and the identity maps (kernel kfd_device.c GC -> KFD
// target; libdrm family/external_rev -> Mesa chip).  Data rows are generated
// from userspace/data/gpu-database.tsv (gpudb_table.cpp).
#include "core/gpudb.hpp"

#include <array>
#include <cctype>

#include "core/gpudb_table.hpp"

namespace rdnafix::gpudb {

namespace {

struct GenName {
	Generation g;
	std::string_view id;
	std::string_view display;
};
constexpr GenName kGenNames[] = {
	{Generation::gcn5, "gcn5", "GCN5"},    {Generation::cdna1, "cdna1", "CDNA1"},
	{Generation::cdna2, "cdna2", "CDNA2"}, {Generation::cdna3, "cdna3", "CDNA3"},
	{Generation::rdna1, "rdna1", "RDNA1"}, {Generation::rdna2, "rdna2", "RDNA2"},
	{Generation::rdna3, "rdna3", "RDNA3"}, {Generation::rdna3_5, "rdna3.5", "RDNA3.5"},
	{Generation::rdna4, "rdna4", "RDNA4"},
};

// Kernel GC IP version -> KFD gfx_target_version (drivers/gpu/drm/amd/amdkfd/
// kfd_device.c, kgd2kfd_probe; docs/rocm-facts.md §5 for GC 10+, the GC 9 cases
// read from the same switch in upstream history).
struct GcMap {
	GcVersion gc;
	std::uint32_t kfd;
};
constexpr GcMap kGcToKfd[] = {
	{{9, 0, 1}, 90000},    // Vega10 gfx900
	{{9, 1, 0}, 90002},    // Raven gfx902
	{{9, 2, 2}, 90002},    // Raven2: same target as Raven
	{{9, 2, 1}, 90004},    // Vega12 gfx904
	{{9, 3, 0}, 90012},    // Renoir gfx90c
	{{9, 4, 0}, 90006},    // Vega20 gfx906
	{{9, 4, 1}, 90008},    // Arcturus gfx908
	{{9, 4, 2}, 90010},    // Aldebaran gfx90a
	{{9, 4, 3}, 90402},    // Aqua Vanjaram gfx942 (production rev; ROCm/rocm-cli#343 shows 90402)
	{{9, 4, 4}, 90402},    // gfx942 class
	{{10, 1, 10}, 100100}, // Navi10 gfx1010
	{{10, 1, 2}, 100101},  // Navi12 gfx1011
	{{10, 1, 1}, 100102},  // Navi14 gfx1012
	{{10, 1, 3}, 100103},  // Cyan Skillfish gfx1013
	{{10, 1, 4}, 100103},  {{10, 3, 0}, 100300}, // Navi21 gfx1030
	{{10, 3, 2}, 100301},                        // Navi22 gfx1031
	{{10, 3, 4}, 100302},                        // Navi23 gfx1032
	{{10, 3, 1}, 100303},                        // Van Gogh gfx1033
	{{10, 3, 5}, 100304},                        // Navi24 gfx1034
	{{10, 3, 3}, 100305},                        // Rembrandt gfx1035
	{{10, 3, 6}, 100306},                        // Raphael gfx1036
	{{10, 3, 7}, 100306},                        // Mendocino: KFD reports gfx1036, not gfx1037
	{{11, 0, 0}, 110000},                        // Navi31 gfx1100
	{{11, 0, 3}, 110001},                        // Navi32: "Compiler version is 11.0.1 while HW version is 11.0.3"
	{{11, 0, 2}, 110002},                        // Navi33 gfx1102
	{{11, 0, 1}, 110003},                        // Phoenix gfx1103
	{{11, 0, 4}, 110003},                        // Phoenix2 gfx1103
	{{11, 5, 0}, 110500},                        // Strix Point gfx1150
	{{11, 5, 1}, 110501},                        // Strix Halo gfx1151
	{{11, 5, 2}, 110502},                        // Krackan gfx1152
	{{11, 5, 3}, 110503},                        // gfx1153
	{{11, 5, 4}, 110504},  {{11, 5, 6}, 110504}, {{11, 7, 0}, 110700},
	{{11, 7, 1}, 110701},  {{12, 0, 0}, 120000}, // Navi44 gfx1200
	{{12, 0, 1}, 120001},                        // Navi48 gfx1201
	{{12, 1, 0}, 120500},                        // 12.1.0 -> 120500 (gfx1250)
};

// libdrm family ids (amdgpu_drm.h) and Mesa's external_rev ranges
// (amdgpu_asic_addr.h, half-open [min, max)); docs/rocm-facts.md §6.
struct FamilyName {
	std::uint32_t id;
	std::string_view name;
};
constexpr FamilyName kFamilies[] = {
	{143, "NV"},        {144, "VGH"},       {145, "GC_11_0_0"}, {146, "YC"},        {148, "GC_11_0_1"},
	{149, "GC_10_3_6"}, {150, "GC_11_5_0"}, {151, "GC_10_3_7"}, {152, "GC_12_0_0"},
};
struct ChipRange {
	std::uint32_t family;
	std::uint32_t min;
	std::uint32_t max; // exclusive
	std::string_view chip;
	GfxTarget gfx;
};
constexpr ChipRange kChipRanges[] = {
	{143, 0x01, 0x0A, "NAVI10", {10, 1, 0}},
	{143, 0x0A, 0x14, "NAVI12", {10, 1, 1}},
	{143, 0x14, 0x28, "NAVI14", {10, 1, 2}},
	{143, 0x84, 0x85, "GFX1013", {10, 1, 3}},
	{143, 0x28, 0x32, "NAVI21", {10, 3, 0}},
	{143, 0x32, 0x3C, "NAVI22", {10, 3, 1}},
	{143, 0x3C, 0x46, "NAVI23", {10, 3, 2}},
	{143, 0x46, 0x50, "NAVI24", {10, 3, 4}},
	{144, 0x01, 0xFF, "VANGOGH", {10, 3, 3}},
	{146, 0x01, 0xFF, "REMBRANDT", {10, 3, 5}},
	{149, 0x01, 0xFF, "RAPHAEL_MENDOCINO", {10, 3, 6}},
	{151, 0x01, 0xFF, "RAPHAEL_MENDOCINO", {10, 3, 6}},
	{145, 0x01, 0x10, "NAVI31", {11, 0, 0}},
	{145, 0x10, 0x20, "NAVI33", {11, 0, 2}},
	{145, 0x20, 0xFF, "NAVI32", {11, 0, 1}},
	{148, 0x01, 0x80, "PHOENIX", {11, 0, 3}},
	{148, 0x80, 0xC0, "PHOENIX2", {11, 0, 3}},
	{148, 0xC0, 0xF0, "HAWK_POINT1", {11, 0, 3}},
	{148, 0xF0, 0xFF, "HAWK_POINT2", {11, 0, 3}},
	{150, 0x01, 0x40, "STRIX1", {11, 5, 0}},
	{150, 0x40, 0x50, "KRACKAN1", {11, 5, 2}},
	{150, 0x50, 0xC0, "GFX1153", {11, 5, 3}},
	{150, 0xC0, 0xFF, "STRIX_HALO", {11, 5, 1}},
	{152, 0x40, 0x50, "GFX1200", {12, 0, 0}},
	{152, 0x50, 0xFF, "GFX1201", {12, 0, 1}},
};

} // namespace

std::string_view to_string(Generation g)
{
	for (const auto &n : kGenNames)
		if (n.g == g)
			return n.id;
	return "unknown";
}

std::string_view display_name(Generation g)
{
	for (const auto &n : kGenNames)
		if (n.g == g)
			return n.display;
	return "unknown";
}

std::optional<Generation> generation_from_string(std::string_view s)
{
	for (const auto &n : kGenNames)
		if (n.id == s)
			return n.g;
	return std::nullopt;
}

bool is_rdna(Generation g)
{
	return g == Generation::rdna1 || g == Generation::rdna2 || g == Generation::rdna3 || g == Generation::rdna3_5 ||
	       g == Generation::rdna4;
}

bool is_cdna(Generation g)
{
	return g == Generation::cdna1 || g == Generation::cdna2 || g == Generation::cdna3;
}

std::span<const Entry> all()
{
	return {detail::kTable, detail::kTableSize};
}

const Entry *lookup(std::uint16_t pci_device, std::uint8_t pci_revision)
{
	const Entry *any = nullptr;
	for (const auto &e : all()) {
		if (e.pci_device != pci_device)
			continue;
		if (e.pci_revision && *e.pci_revision == pci_revision)
			return &e;
		if (!e.pci_revision && any == nullptr)
			any = &e;
	}
	return any;
}

std::vector<const Entry *> lookup_device(std::uint16_t pci_device)
{
	std::vector<const Entry *> out;
	for (const auto &e : all())
		if (e.pci_device == pci_device)
			out.push_back(&e);
	return out;
}

std::optional<GfxTarget> decode_gfx_target_version(std::uint32_t v)
{
	if (v == 0)
		return std::nullopt;
	GfxTarget t{v / 10000U, (v / 100U) % 100U, v % 100U};
	// The name format has one hex digit for minor and stepping.
	if (t.major == 0 || t.minor > 15 || t.stepping > 15)
		return std::nullopt;
	return t;
}

std::uint32_t encode_gfx_target_version(const GfxTarget &t)
{
	return t.kfd_version();
}

std::optional<GfxTarget> parse_gfx_name(std::string_view name)
{
	if (name.size() < 6 || name.size() > 7)
		return std::nullopt; // gfxNxx .. gfxNNxx
	if (name.substr(0, 3) != "gfx")
		return std::nullopt;
	auto hexval = [](char c) -> int {
		if (c >= '0' && c <= '9')
			return c - '0';
		c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
		if (c >= 'a' && c <= 'f')
			return c - 'a' + 10;
		return -1;
	};
	std::string_view major = name.substr(3, name.size() - 5);
	unsigned mj = 0;
	for (char c : major) {
		if (c < '0' || c > '9')
			return std::nullopt;
		mj = mj * 10 + static_cast<unsigned>(c - '0');
	}
	if (major.size() > 1 && major[0] == '0')
		return std::nullopt;
	int mn = hexval(name[name.size() - 2]);
	int st = hexval(name[name.size() - 1]);
	if (mj == 0 || mn < 0 || st < 0)
		return std::nullopt;
	return GfxTarget{mj, static_cast<unsigned>(mn), static_cast<unsigned>(st)};
}

std::optional<GfxTarget> kfd_target_for_gc(const GcVersion &gc)
{
	for (const auto &m : kGcToKfd)
		if (m.gc == gc)
			return decode_gfx_target_version(m.kfd);
	return std::nullopt;
}

std::optional<Generation> generation_for_gc(const GcVersion &gc)
{
	if (gc.major == 9) {
		if (gc.minor <= 3)
			return Generation::gcn5;
		if (gc.minor == 4) {
			switch (gc.revision) {
			case 0:
				return Generation::gcn5; // Vega20
			case 1:
				return Generation::cdna1; // Arcturus / MI100
			case 2:
				return Generation::cdna2; // Aldebaran / MI200
			default:
				return Generation::cdna3; // 9.4.3 / 9.4.4 MI300
			}
		}
		if (gc.minor == 5)
			return Generation::cdna3; // MI350 (gfx950), CDNA3-class ISA
		return std::nullopt;
	}
	if (gc.major == 10) {
		if (gc.minor == 1)
			return Generation::rdna1;
		if (gc.minor == 3)
			return Generation::rdna2;
		return std::nullopt;
	}
	if (gc.major == 11) {
		if (gc.minor == 0)
			return Generation::rdna3;
		if (gc.minor == 5)
			return Generation::rdna3_5;
		return std::nullopt;
	}
	if (gc.major == 12 && gc.minor == 0)
		return Generation::rdna4;
	return std::nullopt;
}

bool is_gmc_v10(const GcVersion &gc)
{
	if (gc.major != 10)
		return false;
	if (gc.minor == 1)
		return gc.revision == 10 || (gc.revision >= 1 && gc.revision <= 4);
	if (gc.minor == 3)
		return gc.revision <= 7;
	return false;
}

std::optional<DrmChip> chip_from_drm(std::uint32_t family_id, std::uint32_t chip_external_rev)
{
	for (const auto &r : kChipRanges) {
		if (r.family == family_id && chip_external_rev >= r.min && chip_external_rev < r.max)
			return DrmChip{r.chip, r.gfx};
	}
	return std::nullopt;
}

std::optional<std::string_view> drm_family_name(std::uint32_t family_id)
{
	for (const auto &f : kFamilies)
		if (f.id == family_id)
			return f.name;
	return std::nullopt;
}

} // namespace rdnafix::gpudb
