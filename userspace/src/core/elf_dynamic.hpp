#pragma once
// The dynamic-linking facts of one ELF file, as the dynamic loader reads them:
// DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH, the versions it needs from each
// library (DT_VERNEED, .gnu.version_r) and the versions it defines
// (DT_VERDEF, .gnu.version_d).  Pure: bytes come from a callback, so the
// caller decides how a file is read (io::FileReader) and a test or fuzz
// target hands in a buffer.  Every file is hostile: offsets, counts and
// string indices are checked against the file and the limits below; a bad
// one is an error naming the field, never a read outside the bytes given.
// Format: the System V gABI "Dynamic Section" and the LSB "Symbol Versioning"
// (docs/library-load.md).
#include "core/result.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rdnafix::core::elfdyn {

// Up to `len` bytes at `offset` (fewer only at the end of the file);
// nullopt when the bytes cannot be read.
using ReadAt = std::function<std::optional<std::string>(std::uint64_t offset, std::uint64_t len)>;

struct Limits {
	std::uint64_t max_program_headers = 256;
	std::uint64_t max_dynamic_entries = 8192;
	std::uint64_t max_strtab = 8ull << 20;         // DT_STRSZ (libamdhip64: ~0.5 MiB)
	std::uint64_t max_version_window = 1ull << 20; // bytes read for DT_VERNEED / DT_VERDEF
	std::size_t max_names = 1024;                  // DT_NEEDED entries, version needs, version definitions
};

// A library this file needs versions from (Elf64_Verneed + its Vernaux).
struct VersionNeed {
	std::string file;                  // "libstdc++.so.6"
	std::vector<std::string> versions; // "GLIBCXX_3.4.30", "CXXABI_1.3.13"
};

struct Info {
	std::uint8_t elf_class = 0; // 1: 32-bit, 2: 64-bit (only 64-bit little-endian is read further)
	std::uint16_t machine = 0;  // e_machine (62: x86-64, 183: AArch64)
	std::uint16_t type = 0;     // e_type (2: executable, 3: shared object)
	bool has_dynamic = false;   // a PT_DYNAMIC segment was there
	std::string soname;
	std::vector<std::string> needed;
	std::string rpath, runpath; // as stored: colon-separated, $ORIGIN unexpanded
	std::vector<VersionNeed> version_needs;
	std::vector<std::string> version_defs; // without the base (VER_FLG_BASE) entry
};

inline constexpr std::uint16_t kMachineX86_64 = 62;

// Errors: not ELF, big-endian, a header, segment or table outside the file or
// past a limit, a string index outside DT_STRSZ.  A 32-bit file is not an
// error: elf_class says so and nothing else is read.
core::Result<Info> parse(const ReadAt &read, std::uint64_t file_size, const Limits &lim = {});

// A ReadAt over bytes held in memory (tests, fuzz targets).
ReadAt read_from(const std::string &bytes);

} // namespace rdnafix::core::elfdyn
