#pragma once
// Reads the device code of one file the way the HIP runtime finds it, without
// loading the file: the ELF section table, the .hip_fatbin section, every
// clang offload bundle in it (plain "__CLANG_OFFLOAD_BUNDLE__" or compressed
// "CCOB" v1-v3, zstd or zlib, inflated only as far as the entry table and the
// code objects' ELF headers need), and each AMDGPU entry's e_flags.  A bare
// bundle file (.hipfb, .co bundles) and a bare AMDGPU code object (.co,
// .hsaco) are read too.  Never throws; a damaged or hostile file yields
// `unreadable` with the reason, with bounded memory (docs/coverage.md).
#include "core/codeobj.hpp"
#include "io/decompress.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rdnafix::io {
class RootFs;
}

namespace rdnafix::coverage {

enum class BundleFormat { plain, ccob };

struct FatbinEntry {
	core::codeobj::EntryId id;
	std::uint64_t offset = 0; // inside the (uncompressed) bundle
	std::uint64_t size = 0;
	// The code object's own header (AMDGPU entries with size > 0 only).
	std::optional<core::codeobj::ElfTarget> elf;
	// "" when the entry id and e_flags agree; else one line saying how they
	// differ ("entry says gfx1030, e_flags say gfx1031 (0x37)") or why the
	// header could not be read.
	std::string disagreement;
};

struct FatbinBundle {
	std::uint64_t file_offset = 0; // where the bundle starts in the file
	BundleFormat format = BundleFormat::plain;
	unsigned ccob_version = 0;     // 1..3 for ccob
	std::string compression;       // "zstd" | "zlib" | "" (plain)
	std::uint64_t stored_size = 0; // bytes in the file
	std::uint64_t uncompressed_size = 0;
	std::vector<FatbinEntry> entries;
	std::string unreadable; // "" or the reason this bundle could not be read
};

enum class FileKind {
	elf_with_fatbin, // an ELF with a .hip_fatbin section
	elf_without,     // an ELF without device code (host-only library)
	bundle,          // a bare offload bundle (plain or CCOB)
	code_object,     // a bare AMDGPU ELF
	not_device_code, // anything else
	unreadable,
	over_budget, // not read: inflating its compressed bundles would pass the decompression budget
};

struct FatbinFile {
	std::string path; // as given (root-relative for RootFs reads)
	std::uint64_t size = 0;
	FileKind kind = FileKind::unreadable;
	std::vector<FatbinBundle> bundles;
	std::optional<core::codeobj::ElfTarget> code_object; // kind == code_object
	std::string unreadable;                              // kind == unreadable / over_budget: the reason
	std::uint64_t bytes_read = 0;                        // what the reader actually read (the speed claim)
};

struct ReadLimits {
	std::uint64_t max_bundles = 100000;
	std::uint64_t max_entries = 4096;            // per bundle
	std::uint64_t max_inflate = 64ull << 20;     // bytes inflated per CCOB bundle
	std::uint64_t max_inflate_file = 2ull << 30; // bytes inflated per file, all its bundles
};

// `rel` is relative to fs.root() (symlinks resolved inside it).  `budget`:
// what the caller's whole scan may still inflate (bytes, seconds), charged
// with this file's inflating; a file whose bundles would need more than the
// budget or max_inflate_file is `over_budget` ("not read: decompression
// budget ..."), never "no device code".
FatbinFile read_fatbin(io::RootFs &fs, std::string_view rel, const ReadLimits &limits = {},
		       io::InflateBudget *budget = nullptr);

// True when a bundle of `f` could not be read (its targets may be incomplete).
bool any_bundle_unreadable(const FatbinFile &f);

} // namespace rdnafix::coverage
