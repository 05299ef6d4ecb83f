// ELF dynamic section, version needs and definitions (elf_dynamic.hpp).
// Layouts (ELF-64, little-endian): Elf64_Ehdr 64 bytes, Elf64_Phdr 56,
// Elf64_Dyn 16, Elf64_Verneed 16, Elf64_Vernaux 16, Elf64_Verdef 20,
// Elf64_Verdaux 8.
#include "core/elf_dynamic.hpp"

#include <fmt/format.h>

#include <cstring>

namespace rdnafix::core::elfdyn {

namespace {

constexpr std::int64_t DT_NULL = 0, DT_NEEDED = 1, DT_STRTAB = 5, DT_STRSZ = 10, DT_SONAME = 14, DT_RPATH = 15,
		       DT_RUNPATH = 29, DT_VERDEF = 0x6ffffffc, DT_VERDEFNUM = 0x6ffffffd, DT_VERNEED = 0x6ffffffe,
		       DT_VERNEEDNUM = 0x6fffffff;
constexpr std::uint32_t PT_LOAD = 1, PT_DYNAMIC = 2;
constexpr std::uint16_t VER_FLG_BASE = 1;

template <class T> T get(const std::string &b, std::uint64_t at)
{
	T v{};
	std::memcpy(&v, b.data() + at, sizeof v); // little-endian host (x86-64, AArch64): checked by EI_DATA
	return v;
}

struct Load {
	std::uint64_t vaddr, offset, filesz;
};

Error err(std::string_view what)
{
	return Error{fmt::format("ELF dynamic section: {}", what)};
}

// The file offset of a virtual address (inside a PT_LOAD's file bytes).
std::optional<std::uint64_t> offset_of(const std::vector<Load> &loads, std::uint64_t vaddr)
{
	for (const auto &l : loads)
		if (vaddr >= l.vaddr && vaddr - l.vaddr < l.filesz)
			return l.offset + (vaddr - l.vaddr);
	return std::nullopt;
}

std::optional<std::string> read_exact(const ReadAt &read, std::uint64_t off, std::uint64_t len)
{
	auto b = read(off, len);
	if (!b || b->size() != len)
		return std::nullopt;
	return b;
}

struct Strings {
	std::string tab;
	// nullopt: index outside the table or no NUL before its end.
	std::optional<std::string> at(std::uint64_t i) const
	{
		if (i >= tab.size())
			return std::nullopt;
		const auto end = tab.find('\0', i);
		if (end == std::string::npos)
			return std::nullopt;
		return tab.substr(i, end - i);
	}
};

// A window of the file at the table's offset: the chains of version entries
// are walked inside it (their next offsets are relative).
core::Result<std::string> window(const ReadAt &read, std::uint64_t off, std::uint64_t size, const Limits &lim,
				 std::string_view what)
{
	if (off >= size)
		return err(fmt::format("{} at file offset {} is outside the file ({} bytes)", what, off, size));
	auto b = read(off, std::min(lim.max_version_window, size - off));
	if (!b)
		return err(fmt::format("{} at file offset {} cannot be read", what, off));
	return *b;
}

} // namespace

core::Result<Info> parse(const ReadAt &read, std::uint64_t size, const Limits &lim)
{
	Info info;
	auto head = read_exact(read, 0, std::min<std::uint64_t>(64, size));
	if (!head || head->size() < 16 ||
	    std::memcmp(head->data(),
			"\x7f"
			"ELF",
			4) != 0)
		return err("not an ELF file (no \\x7fELF magic)");
	info.elf_class = static_cast<std::uint8_t>((*head)[4]);
	if ((*head)[5] != 1)
		return err(fmt::format("EI_DATA {} is not little-endian (1)", static_cast<int>((*head)[5])));
	if (info.elf_class != 2) {
		if (info.elf_class != 1)
			return err(fmt::format("EI_CLASS {} is neither 32-bit (1) nor 64-bit (2)", info.elf_class));
		if (head->size() >= 20)
			info.machine = get<std::uint16_t>(*head, 18);
		return info; // a 32-bit file: the loader of a 64-bit process skips it
	}
	if (head->size() < 64)
		return err("the ELF header is cut short");
	info.type = get<std::uint16_t>(*head, 16);
	info.machine = get<std::uint16_t>(*head, 18);
	const auto phoff = get<std::uint64_t>(*head, 32);
	const auto phentsize = get<std::uint16_t>(*head, 54);
	const auto phnum = get<std::uint16_t>(*head, 56);
	if (phnum == 0)
		return info;
	if (phentsize != 56)
		return err(fmt::format("e_phentsize {} is not 56", phentsize));
	if (phnum > lim.max_program_headers)
		return err(fmt::format("e_phnum {} is past the limit of {}", phnum, lim.max_program_headers));
	if (phoff > size || std::uint64_t(phnum) * 56 > size - phoff)
		return err(fmt::format("the program headers (offset {}, {} entries) are outside the file ({} bytes)",
				       phoff, phnum, size));
	auto ph = read_exact(read, phoff, std::uint64_t(phnum) * 56);
	if (!ph)
		return err("the program headers cannot be read");
	std::vector<Load> loads;
	std::optional<std::pair<std::uint64_t, std::uint64_t>> dyn;
	for (std::uint64_t i = 0; i < phnum; ++i) {
		const std::uint64_t at = i * 56;
		const auto type = get<std::uint32_t>(*ph, at);
		const auto off = get<std::uint64_t>(*ph, at + 8), vaddr = get<std::uint64_t>(*ph, at + 16),
			   filesz = get<std::uint64_t>(*ph, at + 32);
		if (type == PT_LOAD)
			loads.push_back({vaddr, off, filesz});
		else if (type == PT_DYNAMIC && !dyn)
			dyn = {off, filesz};
	}
	if (!dyn)
		return info;
	info.has_dynamic = true;
	const auto [doff, dsz] = *dyn;
	if (doff > size || dsz > size - doff)
		return err(fmt::format("PT_DYNAMIC (offset {}, {} bytes) is outside the file ({} bytes)", doff, dsz,
				       size));
	const std::uint64_t n = std::min(dsz / 16, lim.max_dynamic_entries);
	auto d = read_exact(read, doff, n * 16);
	if (!d)
		return err("the dynamic section cannot be read");
	std::uint64_t strtab = 0, strsz = 0, verneed = 0, verneednum = 0, verdef = 0, verdefnum = 0;
	bool have_strtab = false, terminated = false;
	std::vector<std::uint64_t> needed;
	std::optional<std::uint64_t> soname, rpath, runpath;
	for (std::uint64_t i = 0; i < n; ++i) {
		const auto tag = get<std::int64_t>(*d, i * 16);
		const auto val = get<std::uint64_t>(*d, i * 16 + 8);
		if (tag == DT_NULL) {
			terminated = true;
			break;
		}
		switch (tag) {
		case DT_NEEDED:
			if (needed.size() >= lim.max_names)
				return err(fmt::format("more than {} DT_NEEDED entries", lim.max_names));
			needed.push_back(val);
			break;
		case DT_STRTAB:
			strtab = val, have_strtab = true;
			break;
		case DT_STRSZ:
			strsz = val;
			break;
		case DT_SONAME:
			soname = val;
			break;
		case DT_RPATH:
			rpath = val;
			break;
		case DT_RUNPATH:
			runpath = val;
			break;
		case DT_VERNEED:
			verneed = val;
			break;
		case DT_VERNEEDNUM:
			verneednum = val;
			break;
		case DT_VERDEF:
			verdef = val;
			break;
		case DT_VERDEFNUM:
			verdefnum = val;
			break;
		default:
			break;
		}
	}
	if (!terminated && dsz / 16 > lim.max_dynamic_entries)
		return err(fmt::format("more than {} dynamic entries before DT_NULL", lim.max_dynamic_entries));
	if (!have_strtab)
		return needed.empty() && !soname ? core::Result<Info>(info)
						 : err("DT_NEEDED or DT_SONAME without DT_STRTAB");
	if (strsz > lim.max_strtab)
		return err(fmt::format("DT_STRSZ {} is past the limit of {} bytes", strsz, lim.max_strtab));
	const auto stroff = offset_of(loads, strtab);
	if (!stroff || *stroff > size || strsz > size - *stroff)
		return err(fmt::format("DT_STRTAB 0x{:x} ({} bytes) is not inside a loaded segment of the file", strtab,
				       strsz));
	Strings st;
	if (auto s = read_exact(read, *stroff, strsz))
		st.tab = std::move(*s);
	else
		return err("the dynamic string table cannot be read");
	auto str = [&](std::uint64_t i, std::string_view what) -> core::Result<std::string> {
		if (auto s = st.at(i))
			return *s;
		return err(fmt::format("{} names string {}, outside DT_STRSZ {} (or unterminated)", what, i, strsz));
	};
	for (auto i : needed) {
		auto s = str(i, "DT_NEEDED");
		if (!s)
			return s.error();
		info.needed.push_back(*s);
	}
	for (auto [v, out, what] : {std::tuple{soname, &info.soname, "DT_SONAME"},
				    {rpath, &info.rpath, "DT_RPATH"},
				    {runpath, &info.runpath, "DT_RUNPATH"}})
		if (v) {
			auto s = str(*v, what);
			if (!s)
				return s.error();
			*out = *s;
		}
	if (verneed && verneednum) {
		if (verneednum > lim.max_names)
			return err(fmt::format("DT_VERNEEDNUM {} is past the limit of {}", verneednum, lim.max_names));
		const auto off = offset_of(loads, verneed);
		if (!off)
			return err(fmt::format("DT_VERNEED 0x{:x} is not inside a loaded segment", verneed));
		auto w = window(read, *off, size, lim, "DT_VERNEED");
		if (!w)
			return w.error();
		const std::string &b = *w;
		std::uint64_t at = 0, names = 0;
		for (std::uint64_t k = 0; k < verneednum; ++k) {
			if (at > b.size() || b.size() - at < 16)
				return err(fmt::format("version need {} at +{} is outside the {} bytes read", k, at,
						       b.size()));
			const auto cnt = get<std::uint16_t>(b, at + 2);
			const auto file = get<std::uint32_t>(b, at + 4), aux = get<std::uint32_t>(b, at + 8),
				   next = get<std::uint32_t>(b, at + 12);
			VersionNeed vn;
			auto f = str(file, "vn_file");
			if (!f)
				return f.error();
			vn.file = *f;
			std::uint64_t a = at + aux;
			for (std::uint16_t j = 0; j < cnt; ++j) {
				if (++names > lim.max_names)
					return err(fmt::format("more than {} needed versions", lim.max_names));
				if (a > b.size() || b.size() - a < 16)
					return err(fmt::format("needed version {} of {} is outside the bytes read", j,
							       vn.file));
				auto name = str(get<std::uint32_t>(b, a + 8), "vna_name");
				if (!name)
					return name.error();
				vn.versions.push_back(*name);
				const auto anext = get<std::uint32_t>(b, a + 12);
				if (anext == 0)
					break;
				a += anext;
			}
			info.version_needs.push_back(std::move(vn));
			if (next == 0)
				break;
			at += next;
		}
	}
	if (verdef && verdefnum) {
		if (verdefnum > lim.max_names)
			return err(fmt::format("DT_VERDEFNUM {} is past the limit of {}", verdefnum, lim.max_names));
		const auto off = offset_of(loads, verdef);
		if (!off)
			return err(fmt::format("DT_VERDEF 0x{:x} is not inside a loaded segment", verdef));
		auto w = window(read, *off, size, lim, "DT_VERDEF");
		if (!w)
			return w.error();
		const std::string &b = *w;
		std::uint64_t at = 0;
		for (std::uint64_t k = 0; k < verdefnum; ++k) {
			if (at > b.size() || b.size() - at < 20)
				return err(fmt::format("version definition {} at +{} is outside the {} bytes read", k,
						       at, b.size()));
			const auto flags = get<std::uint16_t>(b, at + 2);
			const auto cnt = get<std::uint16_t>(b, at + 6);
			const auto aux = get<std::uint32_t>(b, at + 12), next = get<std::uint32_t>(b, at + 16);
			if (cnt > 0 && !(flags & VER_FLG_BASE)) {
				const std::uint64_t a = at + aux;
				if (a > b.size() || b.size() - a < 8)
					return err(
						fmt::format("version definition {} names bytes outside those read", k));
				auto name = str(get<std::uint32_t>(b, a), "vda_name");
				if (!name)
					return name.error();
				info.version_defs.push_back(*name);
			}
			if (next == 0)
				break;
			at += next;
		}
	}
	return info;
}

ReadAt read_from(const std::string &bytes)
{
	return [&bytes](std::uint64_t off, std::uint64_t len) -> std::optional<std::string> {
		if (off > bytes.size())
			return std::nullopt;
		return bytes.substr(off, std::min<std::uint64_t>(len, bytes.size() - off));
	};
}

} // namespace rdnafix::core::elfdyn
