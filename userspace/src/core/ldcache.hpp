#pragma once
// /etc/ld.so.cache, the dynamic loader's soname -> path index that ldconfig
// writes.  Pure: the file's bytes in, entries out.  The format is glibc's
// "glibc-ld.so.cache1.1" (elf/cache.c, sysdeps/generic/dl-cache.h): a
// 48-byte header (magic and version, nlibs, len_strings, flags, extension
// offset), nlibs 24-byte entries {int32 flags; uint32 key, value; uint32
// osversion; uint64 hwcap}, strings addressed from the header's start.  A
// file that begins with the old "ld.so-1.7.0" table carries the new one
// after it (8-byte aligned); only the new one is read.  Hostile input: every
// count and offset is checked (docs/library-load.md).
#include "core/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::core::ldcache {

struct Entry {
	std::int32_t flags = 0; // 0x0303: ELF libc6 on x86-64 (FLAG_ELF_LIBC6 | FLAG_X8664_LIB64)
	std::string soname;     // "libstdc++.so.6"
	std::string path;       // "/lib/x86_64-linux-gnu/libstdc++.so.6"
	std::uint64_t hwcap = 0;
};

inline constexpr std::int32_t kFlagX86_64Libc6 = 0x0303;
inline constexpr std::size_t kMaxEntries = 1u << 16;

// Errors name what is wrong ("not an ld.so.cache", "entry 12's path is
// outside the string table").
core::Result<std::vector<Entry>> parse(std::string_view bytes);

} // namespace rdnafix::core::ldcache
