#pragma once
// Helpers for the GPU backend tests: temp dirs and a minimal ELF64 writer
// (so code-object checks and the cache are tested on known bytes).
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace gputest {

struct TempDir {
	std::string path;
	TempDir()
	{
		char tmpl[] = "/tmp/rdnafix-gpu-test-XXXXXX";
		path = mkdtemp(tmpl);
	}
	~TempDir()
	{
		std::error_code ec;
		std::filesystem::remove_all(path, ec);
	}
};

inline void put16(std::vector<std::uint8_t> &b, size_t off, std::uint16_t v)
{
	std::memcpy(&b[off], &v, 2);
}
inline void put32(std::vector<std::uint8_t> &b, size_t off, std::uint32_t v)
{
	std::memcpy(&b[off], &v, 4);
}
inline void put64(std::vector<std::uint8_t> &b, size_t off, std::uint64_t v)
{
	std::memcpy(&b[off], &v, 8);
}

// ELF64 LE with sections: null, .dynstr, .dynsym (one FUNC symbol per name).
inline std::vector<std::uint8_t> make_elf(std::uint16_t machine, const std::vector<std::string> &names)
{
	std::string strtab(1, '\0');
	std::vector<std::uint32_t> offs;
	for (const auto &n : names) {
		offs.push_back(std::uint32_t(strtab.size()));
		strtab += n;
		strtab += '\0';
	}
	size_t str_off = 64, sym_off = str_off + strtab.size();
	sym_off = (sym_off + 7) & ~size_t(7);
	size_t sym_size = 24 * (names.size() + 1);
	size_t sh_off = sym_off + sym_size;
	std::vector<std::uint8_t> b(sh_off + 3 * 64, 0);
	const std::uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
	std::memcpy(b.data(), ident, sizeof ident);
	put16(b, 16, 3);
	put16(b, 18, machine);
	put32(b, 20, 1);
	put64(b, 0x28, sh_off);
	put16(b, 0x34, 64);
	put16(b, 0x3a, 64);
	put16(b, 0x3c, 3);
	std::memcpy(&b[str_off], strtab.data(), strtab.size());
	for (size_t i = 0; i < names.size(); ++i) {
		size_t s = sym_off + 24 * (i + 1);
		put32(b, s, offs[i]);
		b[s + 4] = 0x12; // GLOBAL FUNC
	}
	size_t s1 = sh_off + 64, s2 = sh_off + 128;
	put32(b, s1 + 4, 3); // SHT_STRTAB
	put64(b, s1 + 0x18, str_off);
	put64(b, s1 + 0x20, strtab.size());
	put32(b, s2 + 4, 11); // SHT_DYNSYM
	put64(b, s2 + 0x18, sym_off);
	put64(b, s2 + 0x20, sym_size);
	put32(b, s2 + 0x28, 1);
	put64(b, s2 + 0x38, 24);
	return b;
}

} // namespace gputest
