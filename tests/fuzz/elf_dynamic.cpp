// Fuzz target: the loader's readers of ELF dynamic sections and of
// /etc/ld.so.cache (core/elf_dynamic.cpp, core/ldcache.cpp).  The input is
// given whole as a file to both; the ELF reader also through a callback that
// returns short reads, as a file cut while it is read would.  Seeds:
// tests/fuzz/corpus/SOURCE.md.
#include "core/elf_dynamic.hpp"
#include "core/ldcache.hpp"
#include "fuzz.hpp"

#include <string>

using namespace rdnafix;
namespace ed = core::elfdyn;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	const std::string bytes(fuzz::text(data, size));
	ed::Limits lim;
	lim.max_version_window = 4096; // keeps each input cheap; the walk is bounded either way
	if (auto info = ed::parse(ed::read_from(bytes), bytes.size(), lim)) {
		fuzz::check(info->needed.size() <= lim.max_names, "DT_NEEDED entries within max_names");
		fuzz::check(info->version_defs.size() <= lim.max_names, "version definitions within max_names");
		for (const auto &s : info->needed)
			fuzz::check(s.find('\0') == std::string::npos, "a DT_NEEDED name without NUL");
	}
	// The same bytes, every read cut to at most 7 bytes: errors, never a read past what was given.
	auto shortread = [&bytes](std::uint64_t off, std::uint64_t len) -> std::optional<std::string> {
		if (off > bytes.size())
			return std::nullopt;
		return bytes.substr(off, std::min<std::uint64_t>({len, 7, bytes.size() - off}));
	};
	(void)ed::parse(shortread, bytes.size(), lim);
	if (auto cache = core::ldcache::parse(bytes)) {
		fuzz::check(cache->size() <= core::ldcache::kMaxEntries, "cache entries within kMaxEntries");
		for (const auto &e : *cache)
			fuzz::check(e.soname.find('\0') == std::string::npos, "a cache name without NUL");
	}
	return 0;
}
