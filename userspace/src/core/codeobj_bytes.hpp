#pragma once
// Byte-level readers of the containers that hold AMDGPU code objects: the
// ELF64 header and section table (to find .hip_fatbin), the clang offload
// bundle header and entry table, and the compressed-bundle ("CCOB") header
// (docs/rocm-facts.md §4; clang/docs/ClangOffloadBundler.rst).  Pure: each
// takes the bytes it was given, checks every count, size and offset against
// them and against the caller's limits, and never reads past the view.
#include "core/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::core::codeobj {

inline constexpr unsigned kEmAmdgpu = 224;         // e_machine EM_AMDGPU
inline constexpr unsigned kElfOsAbiAmdgpuHsa = 64; // ELFOSABI_AMDGPU_HSA
inline constexpr std::string_view kBundleMagic = "__CLANG_OFFLOAD_BUNDLE__";
inline constexpr std::string_view kCcobMagic = "CCOB";

// The little-endian integer at `off` of `d` (caller checks the bounds).
std::uint64_t le64(std::string_view d, std::size_t off);
std::uint32_t le32(std::string_view d, std::size_t off);
std::uint16_t le16(std::string_view d, std::size_t off);

// The fields of an ELF64 little-endian header that rdnactl uses.
struct Elf64Header {
	unsigned osabi = 0;       // EI_OSABI
	unsigned abi_version = 0; // EI_ABIVERSION
	unsigned type = 0;        // e_type
	unsigned machine = 0;     // e_machine
	std::uint32_t flags = 0;  // e_flags
	std::uint64_t shoff = 0;  // e_shoff
	unsigned shentsize = 0;   // e_shentsize
	unsigned shnum = 0;       // e_shnum (0 with shoff != 0: the count is in section 0's sh_size)
	unsigned shstrndx = 0;    // e_shstrndx (0xffff: the index is in section 0's sh_link)
};
inline constexpr std::size_t kElf64HeaderSize = 64;
inline constexpr std::size_t kElf64ShdrSize = 64;
// True when `d` starts with the ELF magic.
bool is_elf(std::string_view d);
// `d`: at least the first 64 bytes.  Errors: too short, no ELF magic, not
// ELFCLASS64, not little-endian.
Result<Elf64Header> parse_elf64_header(std::string_view d);

struct SectionHeader {
	std::uint32_t name = 0; // offset into the section-name string table
	std::uint32_t type = 0;
	std::uint64_t offset = 0;
	std::uint64_t size = 0;
	std::uint32_t link = 0;
};
// `table`: shnum entries of shentsize bytes (shentsize must be 64).  A
// section whose [offset, offset+size) is not inside `file_size` is an error
// unless it is SHT_NOBITS (8).
Result<std::vector<SectionHeader>> parse_section_table(std::string_view table, unsigned shentsize, std::uint64_t count,
						       std::uint64_t file_size);
// The NUL-terminated name at `off` of a string table; error when it runs
// past the table.
Result<std::string_view> section_name(std::string_view strtab, std::uint64_t off);

// A plain (uncompressed) offload bundle's entry table.
struct BundleEntryRaw {
	std::uint64_t offset = 0; // from the bundle's start
	std::uint64_t size = 0;
	std::string id;
};
struct BundleTable {
	std::vector<BundleEntryRaw> entries;
	std::uint64_t table_end = 0; // bytes the header + entry table take
	std::uint64_t end = 0;       // the largest entry end (offset + size), at least table_end
};
struct BundleLimits {
	std::uint64_t max_entries = 4096;
	std::uint64_t max_id_length = 4096;
	// The bundle may not extend past this many bytes from its start (the
	// rest of the section or file).
	std::uint64_t max_size = UINT64_MAX;
};
// The bytes the header and entry table of the plain bundle at the start of
// `d` take, when they are all in `d`; else how many bytes to read to learn
// more (> d.size()).  Errors: no magic, an entry count over the limit, an id
// length over the limit.
Result<std::uint64_t> bundle_table_size(std::string_view d, const BundleLimits &lim);
// Parses the entry table (call with at least bundle_table_size bytes).
// Errors: the above, an entry outside [table_end, max_size), overlapping
// entries with a non-zero size, an id that repeats.
Result<BundleTable> parse_bundle_table(std::string_view d, const BundleLimits &lim);

// The header of a compressed bundle.
struct CcobHeader {
	unsigned version = 0;         // 1, 2, 3
	unsigned method = 0;          // 0 zlib, 1 zstd (llvm::compression::Format)
	std::uint64_t total_size = 0; // v2/v3: header included; v1: 0 (not stored)
	std::uint64_t uncompressed_size = 0;
	std::uint64_t hash = 0;                             // first 8 bytes of the MD5 of the uncompressed data
	std::uint64_t header_size = 0;                      // 20, 24, 32
	[[nodiscard]] std::string_view method_name() const; // "zlib", "zstd", "unknown"
};
inline constexpr std::size_t kCcobMaxHeader = 32;
// `d`: the first bytes of the bundle (32 are enough).  Errors: no magic, too
// short, a version other than 1-3, a method other than 0/1, a v2/v3 total
// size smaller than the header.
Result<CcobHeader> parse_ccob_header(std::string_view d);

} // namespace rdnafix::core::codeobj
