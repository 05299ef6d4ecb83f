// rdnafix GPU database: PCI id -> GC IP version -> gfx target -> codename ->
// generation -> APU flag, plus the kernel's / Mesa's identity tables.
//
// The rows live in userspace/data/gpu-database.tsv (format:
// the header comment of that file); CMake turns the file into a C++ table at build time
// (userspace/src/core/gen_gpudb.py) and the build fails on a malformed row.
// No I/O at run time.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/types.hpp"

namespace rdnafix::gpudb {

using core::GcVersion;
using core::GfxTarget;

enum class Generation { gcn5, cdna1, cdna2, cdna3, rdna1, rdna2, rdna3, rdna3_5, rdna4 };

// "gcn5", "cdna1", ..., "rdna3.5", "rdna4" (the spelling of the data file and
// of the JSON output).
std::string_view to_string(Generation g);
// Human name: "GCN5", "CDNA2", "RDNA3.5", ...
std::string_view display_name(Generation g);
std::optional<Generation> generation_from_string(std::string_view s);
// "cdna1|cdna2|cdna3" collapse to "cdna" when a caller wants the family.
bool is_rdna(Generation g);
bool is_cdna(Generation g);

// One row of gpu-database.tsv.
struct Entry {
	std::uint16_t pci_device = 0;
	std::optional<std::uint8_t> pci_revision; // nullopt = any revision ('*')
	GcVersion gc;                             // the GC IP version
	std::optional<GcVersion> gc_alt;          // a second possible GC version for the same id
						  // (Cyan Skillfish 10.1.3 | 10.1.4)
	GfxTarget gfx;                            // as KFD reports it (gfx_target_version)
	std::string_view codename;                // "Navi22", "Strix Halo"
	Generation generation = Generation::rdna2;
	bool apu = false;
	std::string_view source; // where the row comes from
};

// Every row, in file order.
std::span<const Entry> all();

// The row for a PCI device (vendor 0x1002 assumed): an exact revision match
// if there is one, else the row with revision '*'; nullptr when unknown.
const Entry *lookup(std::uint16_t pci_device, std::uint8_t pci_revision);
// Every row with this device id (all revisions).
std::vector<const Entry *> lookup_device(std::uint16_t pci_device);

// ---- KFD gfx_target_version encoding (docs/rocm-facts.md §5) ------------
// 100301 -> {10,3,1}; 110501 -> {11,5,1}; 90010 -> {9,0,10}.  0 (CPU node)
// and values whose minor or stepping cannot be written as one hex digit
// (> 15) -> nullopt.
std::optional<GfxTarget> decode_gfx_target_version(std::uint32_t v);
std::uint32_t encode_gfx_target_version(const GfxTarget &t); // t.kfd_version()
// "gfx1031" -> {10,3,1}; "gfx90a" -> {9,0,10}: "gfx" + decimal major + one hex
// digit minor + one hex digit stepping.  Case-insensitive hex; anything else
// -> nullopt (e.g. "gfx10-3-generic", "1031", "gfx1").
std::optional<GfxTarget> parse_gfx_name(std::string_view name);

// ---- kernel GC IP version -> KFD gfx target (kfd_device.c map) -----------
// e.g. 10.3.2 -> gfx1031, 10.3.7 -> gfx1036 (100306, not gfx1037),
// 11.0.3 -> gfx1101 (110001), 11.0.1/11.0.4 -> gfx1103, 12.1.0 -> 120500.
// nullopt for a GC version the map does not know.
std::optional<GfxTarget> kfd_target_for_gc(const GcVersion &gc);

// The generation implied by a GC version: 9.0.x-9.3.x gcn5, 9.4.1 cdna1,
// 9.4.2 cdna2, 9.4.3/9.4.4/9.5.0 cdna3, 10.1.x rdna1, 10.3.x rdna2, 11.0.x
// rdna3, 11.5.x rdna3.5, 12.x rdna4.  (9.4.0 = Vega20 is gcn5.)
std::optional<Generation> generation_for_gc(const GcVersion &gc);

// True for exactly the 13 GC versions that amdgpu drives with gmc_v10_0
// (docs/amdgpu-facts.md §7): 10.1.10, 10.1.1-10.1.4, 10.3.0-10.3.7.
bool is_gmc_v10(const GcVersion &gc);

// ---- libdrm amdgpu_query_gpu_info family_id + chip_external_rev ----------
// (docs/rocm-facts.md §6: amdgpu_drm.h family ids; Mesa amdgpu_asic_addr.h
// half-open external_rev ranges; Mesa ac_get_llvm_processor_name.)
struct DrmChip {
	std::string_view chip; // Mesa chip name: "NAVI22", "STRIX_HALO", "RAPHAEL_MENDOCINO"
	GfxTarget gfx;         // the LLVM target Mesa derives: gfx1031, gfx1151, gfx1036
};
std::optional<DrmChip> chip_from_drm(std::uint32_t family_id, std::uint32_t chip_external_rev);
// "NV", "VGH", "GC_11_0_0", ... for a family id; nullopt when unknown.
std::optional<std::string_view> drm_family_name(std::uint32_t family_id);

} // namespace rdnafix::gpudb
