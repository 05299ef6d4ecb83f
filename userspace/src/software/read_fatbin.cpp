// read_fatbin(): what kind of file this is (ELF with .hip_fatbin, bare
// bundle, bare AMDGPU code object), found from the ELF header and section
// table only; the bundles are walked by read_fatbin_walk.cpp.
#include "software/read_fatbin.hpp"
#include "core/codeobj_bytes.hpp"
#include "software/read_fatbin_walk.hpp"
#include "io/rootfs.hpp"

#include <fmt/format.h>

namespace rdnafix::coverage {

namespace co = core::codeobj;

namespace {

constexpr std::uint64_t kMaxSections = 65536;
constexpr std::uint64_t kMaxShstrtab = 1u << 20;

// The .hip_fatbin section's [offset, size), nullopt when there is none, or
// the reason the section table cannot be read.
core::Result<std::optional<co::SectionHeader>> find_fatbin_section(io::FileReader &r, const co::Elf64Header &h)
{
	if (h.shoff == 0)
		return std::optional<co::SectionHeader>{}; // no section table (stripped of it)
	auto first = r.read_at(h.shoff, co::kElf64ShdrSize);
	if (!first)
		return core::Error{first.error().reason()};
	std::uint64_t count = h.shnum;
	std::uint64_t strndx = h.shstrndx;
	if (first->size() == co::kElf64ShdrSize) { // extended numbering (gABI: section 0)
		if (count == 0)
			count = co::le64(*first, 32);
		if (strndx == 0xffff)
			strndx = co::le32(*first, 40);
	}
	if (count > kMaxSections)
		return core::Error{fmt::format("ELF claims {} sections (limit {})", count, kMaxSections)};
	if (h.shoff > r.size() || count * co::kElf64ShdrSize > r.size() - h.shoff)
		return core::Error{fmt::format("ELF section table at 0x{:x} ({} sections) runs past the {}-byte file",
					       h.shoff, count, r.size())};
	auto table = r.read_at(h.shoff, count * co::kElf64ShdrSize);
	if (!table)
		return core::Error{table.error().reason()};
	auto sections = co::parse_section_table(*table, h.shentsize, count, r.size());
	if (!sections)
		return sections.error();
	if (strndx >= sections->size())
		return core::Error{fmt::format("ELF section-name table index {} is not one of the {} sections", strndx,
					       sections->size())};
	const co::SectionHeader &names = (*sections)[strndx];
	if (names.size > kMaxShstrtab)
		return core::Error{
			fmt::format("ELF section-name table of {} bytes (limit {})", names.size, kMaxShstrtab)};
	auto strtab = r.read_at(names.offset, names.size);
	if (!strtab)
		return core::Error{strtab.error().reason()};
	for (const co::SectionHeader &s : *sections) {
		auto name = co::section_name(*strtab, s.name);
		if (name && *name == ".hip_fatbin")
			return std::optional<co::SectionHeader>{s};
	}
	return std::optional<co::SectionHeader>{};
}

void read_elf(io::FileReader &r, std::string_view head, const ReadLimits &lim, io::InflateBudget &budget, FatbinFile &f)
{
	// HIP device code ships in 64-bit little-endian host files only; a 32-bit
	// or big-endian ELF (an i386 library) has none.
	if (head.size() >= 6 && (head[4] != 2 || head[5] != 1)) {
		f.kind = FileKind::elf_without;
		return;
	}
	auto h = co::parse_elf64_header(head);
	if (!h) {
		f.kind = FileKind::unreadable;
		f.unreadable = h.error().message;
		return;
	}
	if (h->machine == co::kEmAmdgpu) {
		auto t = co::decode_amdgpu_elf_header(head);
		if (!t) {
			f.kind = FileKind::unreadable;
			f.unreadable = t.error().message;
			return;
		}
		f.kind = FileKind::code_object;
		f.code_object = std::move(t).value();
		return;
	}
	auto sec = find_fatbin_section(r, *h);
	if (!sec) {
		f.kind = FileKind::unreadable;
		f.unreadable = sec.error().message;
		return;
	}
	if (!*sec) {
		f.kind = FileKind::elf_without;
		return;
	}
	f.kind = FileKind::elf_with_fatbin;
	constexpr std::uint32_t kNoBits = 8;
	if ((*sec)->type == kNoBits || (*sec)->size == 0)
		return;
	f.bundles = detail::walk_bundles(r, (*sec)->offset, (*sec)->size, lim, budget);
}

constexpr double kMiB = 1024.0 * 1024.0;

// A file whose inflating was stopped by the budget: not read at all (what
// its bundles gave so far would judge it on part of its code).
void mark_over_budget(FatbinFile &f, const io::InflateBudget &file, bool file_cap, const ReadLimits &lim)
{
	f.kind = FileKind::over_budget;
	f.bundles.clear();
	if (file.spent == io::InflateBudget::Spent::seconds)
		f.unreadable = "not read: decompression budget (the scan's time for inflating compressed bundles "
			       "is spent)";
	else if (file_cap)
		f.unreadable = fmt::format("not read: decompression budget (its compressed bundles inflate to "
					   "more than {:.0f} MiB, the limit per file)",
					   double(lim.max_inflate_file) / kMiB);
	else
		f.unreadable = "not read: decompression budget (the scan's bytes for inflating compressed bundles "
			       "are spent)";
}

} // namespace

bool any_bundle_unreadable(const FatbinFile &f)
{
	for (const auto &b : f.bundles)
		if (!b.unreadable.empty())
			return true;
	return false;
}

FatbinFile read_fatbin(io::RootFs &fs, std::string_view rel, const ReadLimits &limits, io::InflateBudget *budget)
{
	FatbinFile f;
	f.path = std::string(rel);
	// This file's share: what the scan has left, at most max_inflate_file.
	io::InflateBudget file;
	const bool file_cap = !budget || limits.max_inflate_file < budget->bytes_left;
	file.bytes_left = file_cap ? limits.max_inflate_file : budget->bytes_left;
	if (budget) // spent earlier: the first byte this file inflates stops it
		file.seconds_left = budget->spent == io::InflateBudget::Spent::seconds ? 0 : budget->seconds_left;
	const std::uint64_t start = file.bytes_left;
	try {
		auto opened = fs.open_read(rel);
		if (!opened) {
			f.unreadable = opened.error().reason();
			return f;
		}
		io::FileReader r = std::move(opened).value();
		f.size = r.size();
		auto head = r.read_at(0, co::kElf64HeaderSize);
		if (!head) {
			f.unreadable = head.error().reason();
		} else if (co::is_elf(*head)) {
			read_elf(r, *head, limits, file, f);
		} else if (head->starts_with(co::kBundleMagic) || head->starts_with(co::kCcobMagic)) {
			f.kind = FileKind::bundle;
			f.bundles = detail::walk_bundles(r, 0, r.size(), limits, file);
		} else {
			f.kind = FileKind::not_device_code;
		}
		f.bytes_read = r.bytes_read();
	} catch (const std::bad_alloc &) {
		f.kind = FileKind::unreadable;
		f.bundles.clear();
		f.unreadable = "out of memory while reading the file";
	}
	if (budget) {
		budget->bytes_left -= std::min(budget->bytes_left, start - file.bytes_left);
		budget->seconds_left = file.seconds_left;
		if (file.spent == io::InflateBudget::Spent::seconds ||
		    (file.spent != io::InflateBudget::Spent::no && !file_cap))
			budget->spent = file.spent;
	}
	if (file.spent != io::InflateBudget::Spent::no)
		mark_over_budget(f, file, file_cap && file.spent == io::InflateBudget::Spent::bytes, limits);
	return f;
}

} // namespace rdnafix::coverage
