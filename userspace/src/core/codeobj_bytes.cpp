// ELF64 header and section table, offload-bundle entry table, CCOB header:
// bounds-checked readers of bytes (docs/rocm-facts.md §4).  Layouts: System V
// ABI gABI "ELF Header" / "Sections"; clang/docs/ClangOffloadBundler.rst
// ("Bundled Code Object Layout", "Compression and Decompression").
#include "core/codeobj_bytes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace rdnafix::core::codeobj {

std::uint64_t le64(std::string_view d, std::size_t off)
{
	std::uint64_t v = 0;
	for (int i = 7; i >= 0; --i)
		v = (v << 8) | static_cast<unsigned char>(d[off + i]);
	return v;
}

std::uint32_t le32(std::string_view d, std::size_t off)
{
	std::uint32_t v = 0;
	for (int i = 3; i >= 0; --i)
		v = (v << 8) | static_cast<unsigned char>(d[off + i]);
	return v;
}

std::uint16_t le16(std::string_view d, std::size_t off)
{
	return static_cast<std::uint16_t>(static_cast<unsigned char>(d[off]) |
					  (static_cast<unsigned>(static_cast<unsigned char>(d[off + 1])) << 8));
}

bool is_elf(std::string_view d)
{
	return d.size() >= 4 && d.substr(0, 4) == "\x7f"
						  "ELF";
}

Result<Elf64Header> parse_elf64_header(std::string_view d)
{
	if (!is_elf(d))
		return Error{"no ELF magic (7f 45 4c 46)"};
	if (d.size() < kElf64HeaderSize)
		return Error{fmt::format("ELF header truncated: {} of {} bytes", d.size(), kElf64HeaderSize)};
	if (d[4] != 2)
		return Error{fmt::format("ELF class {} is not ELFCLASS64 (2)", int(static_cast<unsigned char>(d[4])))};
	if (d[5] != 1)
		return Error{fmt::format("ELF data encoding {} is not little-endian (1)",
					 int(static_cast<unsigned char>(d[5])))};
	Elf64Header h;
	h.osabi = static_cast<unsigned char>(d[7]);
	h.abi_version = static_cast<unsigned char>(d[8]);
	h.type = le16(d, 16);
	h.machine = le16(d, 18);
	h.flags = le32(d, 48);
	h.shoff = le64(d, 40);
	h.shentsize = le16(d, 58);
	h.shnum = le16(d, 60);
	h.shstrndx = le16(d, 62);
	return h;
}

Result<std::vector<SectionHeader>> parse_section_table(std::string_view table, unsigned shentsize, std::uint64_t count,
						       std::uint64_t file_size)
{
	if (shentsize != kElf64ShdrSize)
		return Error{fmt::format("ELF section header size {} is not 64", shentsize)};
	if (count > table.size() / kElf64ShdrSize)
		return Error{fmt::format("ELF section table truncated: {} sections need {} bytes, {} available", count,
					 count * kElf64ShdrSize, table.size())};
	std::vector<SectionHeader> out;
	out.reserve(count);
	for (std::uint64_t i = 0; i < count; ++i) {
		std::string_view s = table.substr(i * kElf64ShdrSize, kElf64ShdrSize);
		SectionHeader h;
		h.name = le32(s, 0);
		h.type = le32(s, 4);
		h.offset = le64(s, 24);
		h.size = le64(s, 32);
		h.link = le32(s, 40);
		constexpr std::uint32_t kNoBits = 8;
		if (h.type != kNoBits && h.type != 0 && (h.offset > file_size || h.size > file_size - h.offset))
			return Error{fmt::format("ELF section {} [0x{:x}, +0x{:x}) lies outside the {}-byte file", i,
						 h.offset, h.size, file_size)};
		out.push_back(h);
	}
	return out;
}

Result<std::string_view> section_name(std::string_view strtab, std::uint64_t off)
{
	if (off >= strtab.size())
		return Error{
			fmt::format("section name offset {} is outside the {}-byte string table", off, strtab.size())};
	std::string_view rest = strtab.substr(off);
	std::size_t nul = rest.find('\0');
	if (nul == std::string_view::npos)
		return Error{fmt::format("section name at offset {} runs past the string table", off)};
	return rest.substr(0, nul);
}

namespace {

constexpr std::uint64_t kBundleFixed = 24 + 8; // magic + entry count
constexpr std::uint64_t kEntryFixed = 3 * 8;   // offset, size, id length

// Walks the entry table; with `out` null only measures.
Result<std::uint64_t> walk_table(std::string_view d, const BundleLimits &lim, BundleTable *out)
{
	if (d.size() < kBundleMagic.size() || d.substr(0, kBundleMagic.size()) != kBundleMagic)
		return Error{"no offload-bundle magic (__CLANG_OFFLOAD_BUNDLE__)"};
	if (d.size() < kBundleFixed)
		return kBundleFixed;
	std::uint64_t n = le64(d, 24);
	if (n == 0)
		return Error{"the bundle has 0 entries"};
	if (n > lim.max_entries)
		return Error{fmt::format("the bundle claims {} entries (limit {})", n, lim.max_entries)};
	std::uint64_t pos = kBundleFixed;
	for (std::uint64_t i = 0; i < n; ++i) {
		if (d.size() - pos < kEntryFixed)
			return pos + kEntryFixed;
		std::uint64_t len = le64(d, pos + 16);
		if (len == 0 || len > lim.max_id_length)
			return Error{fmt::format("entry {} has an id length of {} bytes (valid: 1-{})", i, len,
						 lim.max_id_length)};
		if (d.size() - pos - kEntryFixed < len)
			return pos + kEntryFixed + len;
		if (out) {
			BundleEntryRaw e;
			e.offset = le64(d, pos);
			e.size = le64(d, pos + 8);
			e.id = std::string(d.substr(pos + kEntryFixed, len));
			out->entries.push_back(std::move(e));
		}
		pos += kEntryFixed + len;
	}
	if (pos > lim.max_size)
		return Error{fmt::format("the entry table ({} bytes) runs past the end of its container ({} bytes)",
					 pos, lim.max_size)};
	return pos;
}

} // namespace

Result<std::uint64_t> bundle_table_size(std::string_view d, const BundleLimits &lim)
{
	return walk_table(d, lim, nullptr);
}

Result<BundleTable> parse_bundle_table(std::string_view d, const BundleLimits &lim)
{
	BundleTable t;
	auto size = walk_table(d, lim, &t);
	if (!size)
		return size.error();
	if (*size > d.size())
		return Error{
			fmt::format("the entry table is truncated: {} bytes needed, {} available", *size, d.size())};
	t.table_end = *size;
	t.end = t.table_end;
	std::set<std::string_view> ids;
	std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
	for (const BundleEntryRaw &e : t.entries) {
		if (!ids.insert(e.id).second)
			return Error{fmt::format("entry id '{}' appears twice", e.id.substr(0, 80))};
		if (e.offset > lim.max_size || e.size > lim.max_size - e.offset)
			return Error{fmt::format("entry '{}' [{}, +{}) runs past the end of its container ({} bytes)",
						 e.id.substr(0, 80), e.offset, e.size, lim.max_size)};
		if (e.size == 0)
			continue;
		if (e.offset < t.table_end)
			return Error{
				fmt::format("entry '{}' at offset {} overlaps the bundle header (which ends at {})",
					    e.id.substr(0, 80), e.offset, t.table_end)};
		spans.emplace_back(e.offset, e.offset + e.size);
		t.end = std::max(t.end, e.offset + e.size);
	}
	std::sort(spans.begin(), spans.end());
	for (std::size_t i = 1; i < spans.size(); ++i)
		if (spans[i].first < spans[i - 1].second)
			return Error{fmt::format("entries overlap: [{}, {}) and [{}, {})", spans[i - 1].first,
						 spans[i - 1].second, spans[i].first, spans[i].second)};
	return t;
}

std::string_view CcobHeader::method_name() const
{
	return method == 0 ? "zlib" : method == 1 ? "zstd" : "unknown";
}

Result<CcobHeader> parse_ccob_header(std::string_view d)
{
	if (d.size() < kCcobMagic.size() || d.substr(0, kCcobMagic.size()) != kCcobMagic)
		return Error{"no compressed-bundle magic (CCOB)"};
	if (d.size() < 8)
		return Error{fmt::format("compressed-bundle header truncated: {} bytes", d.size())};
	CcobHeader h;
	h.version = le16(d, 4);
	h.method = le16(d, 6);
	static constexpr std::uint64_t kSize[] = {0, 20, 24, 32};
	if (h.version < 1 || h.version > 3)
		return Error{fmt::format("compressed-bundle version {} is not known (valid: 1, 2, 3)", h.version)};
	h.header_size = kSize[h.version];
	if (d.size() < h.header_size)
		return Error{fmt::format("compressed-bundle v{} header truncated: {} of {} bytes", h.version, d.size(),
					 h.header_size)};
	if (h.method > 1)
		return Error{fmt::format("compression method {} is not known (valid: 0 zlib, 1 zstd)", h.method)};
	if (h.version == 1) {
		h.uncompressed_size = le32(d, 8);
		h.hash = le64(d, 12);
	} else if (h.version == 2) {
		h.total_size = le32(d, 8);
		h.uncompressed_size = le32(d, 12);
		h.hash = le64(d, 16);
	} else {
		h.total_size = le64(d, 8);
		h.uncompressed_size = le64(d, 16);
		h.hash = le64(d, 24);
	}
	if (h.version >= 2 && h.total_size <= h.header_size)
		return Error{fmt::format("compressed-bundle total size {} is not larger than its {}-byte header",
					 h.total_size, h.header_size)};
	if (h.uncompressed_size == 0)
		return Error{"compressed-bundle uncompressed size is 0"};
	return h;
}

} // namespace rdnafix::core::codeobj
