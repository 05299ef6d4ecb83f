// .modinfo of a kernel module, through the bounds-checked ELF readers of
// core/codeobj_bytes.hpp (System V gABI "Sections": e_shnum 0 puts the count
// in section 0's sh_size, e_shstrndx SHN_XINDEX (0xffff) puts the index in
// section 0's sh_link).
#include "core/parse_modinfo.hpp"

#include "core/codeobj_bytes.hpp"

#include <fmt/format.h>

namespace rdnafix::core {

namespace {

using codeobj::kElf64ShdrSize;

Error bad(std::string_view what)
{
	return Error{fmt::format("kernel module: {}", what)};
}

void take(ModuleInfo &m, std::string_view entry)
{
	auto eq = entry.find('=');
	if (eq == std::string_view::npos)
		return;
	auto key = entry.substr(0, eq);
	std::string value(entry.substr(eq + 1));
	if (key == "name")
		m.name = std::move(value);
	else if (key == "version")
		m.version = std::move(value);
	else if (key == "srcversion")
		m.srcversion = std::move(value);
	else if (key == "vermagic")
		m.vermagic = std::move(value);
}

// A section of type SHT_NULL is not checked by parse_section_table.
bool in_file(const codeobj::SectionHeader &s, std::size_t size)
{
	return s.offset <= size && s.size <= size - s.offset;
}

} // namespace

std::string ModuleInfo::release() const
{
	return vermagic.substr(0, vermagic.find(' '));
}

Result<ModuleInfo> parse_module_info(std::string_view elf)
{
	auto h = codeobj::parse_elf64_header(elf);
	if (!h)
		return bad(h.error().message);
	if (h->shoff == 0 || h->shoff >= elf.size())
		return bad(fmt::format("section table offset {} is outside the file ({} bytes)", h->shoff, elf.size()));
	if (h->shentsize != kElf64ShdrSize)
		return bad(fmt::format("section header size {} is not {}", h->shentsize, kElf64ShdrSize));
	std::uint64_t count = h->shnum;
	std::uint64_t strndx = h->shstrndx;
	if (count == 0 || strndx == 0xffff) {
		auto first = codeobj::parse_section_table(elf.substr(h->shoff), h->shentsize, 1, elf.size());
		if (!first)
			return bad(first.error().message);
		if (count == 0)
			count = (*first)[0].size;
		if (strndx == 0xffff)
			strndx = (*first)[0].link;
	}
	if (count > (elf.size() - h->shoff) / kElf64ShdrSize)
		return bad(fmt::format("{} section headers do not fit in the file", count));
	auto table = codeobj::parse_section_table(elf.substr(h->shoff, count * kElf64ShdrSize), h->shentsize, count,
						  elf.size());
	if (!table)
		return bad(table.error().message);
	if (strndx >= table->size())
		return bad(fmt::format("section name table index {} is not below the section count {}", strndx,
				       table->size()));
	const auto &names = (*table)[strndx];
	if (!in_file(names, elf.size()))
		return bad(fmt::format("section name table [0x{:x}, +0x{:x}) lies outside the file", names.offset,
				       names.size));
	const std::string_view strtab = elf.substr(names.offset, names.size);
	for (const auto &sec : *table) {
		auto name = codeobj::section_name(strtab, sec.name);
		if (!name)
			return bad(name.error().message);
		if (*name != ".modinfo")
			continue;
		if (sec.type == 8 || !in_file(sec, elf.size())) // SHT_NOBITS: no bytes in the file
			return bad(".modinfo has no bytes in the file");
		ModuleInfo m;
		std::string_view data = elf.substr(sec.offset, sec.size);
		while (!data.empty()) {
			auto end = data.find('\0');
			take(m, data.substr(0, end));
			if (end == std::string_view::npos)
				break;
			data.remove_prefix(end + 1);
		}
		return m;
	}
	return bad("no .modinfo section");
}

} // namespace rdnafix::core
