// Fuzz target: the pure byte readers of device code (core/codeobj.cpp,
// codeobj_bytes.cpp, codeobj_mach.cpp): the ELF64 header and section table,
// the offload bundle's entry table with its entry ids and each entry's
// AMDGPU ELF header, the CCOB header, target ids.  Every reader is given the
// input as it would be given a file's first bytes.  Seeds:
// tests/fuzz/corpus/SOURCE.md.
#include "core/codeobj.hpp"
#include "core/codeobj_bytes.hpp"
#include "fuzz.hpp"

using namespace rdnafix;
namespace co = core::codeobj;

namespace {

void elf(std::string_view d)
{
	(void)co::decode_amdgpu_elf_header(d);
	auto h = co::parse_elf64_header(d);
	if (!h || h->shoff >= d.size())
		return;
	const std::uint64_t count = h->shnum;
	const std::string_view table = d.substr(h->shoff);
	if (count * co::kElf64ShdrSize > table.size())
		return;
	auto sections = co::parse_section_table(table, h->shentsize, count, d.size());
	if (!sections)
		return;
	fuzz::check(sections->size() == count, "one SectionHeader per section");
	if (h->shstrndx >= sections->size())
		return;
	const auto &names = (*sections)[h->shstrndx];
	if (names.offset > d.size() || names.size > d.size() - names.offset)
		return;
	const std::string_view strtab = d.substr(names.offset, names.size);
	for (const auto &s : *sections)
		if (auto n = co::section_name(strtab, s.name))
			fuzz::check(n->data() >= strtab.data() &&
					    n->data() + n->size() <= strtab.data() + strtab.size(),
				    "section_name stays inside the string table");
}

void bundle(std::string_view d)
{
	const co::BundleLimits lim{.max_entries = 4096, .max_id_length = 4096, .max_size = d.size()};
	auto need = co::bundle_table_size(d, lim);
	if (!need || *need > d.size())
		return;
	auto t = co::parse_bundle_table(d, lim);
	if (!t)
		return;
	fuzz::check(t->table_end <= t->end && t->end <= d.size(), "the table and entries lie inside the bundle");
	for (const auto &e : t->entries) {
		fuzz::check(e.offset + e.size <= d.size(), "an entry lies inside the bundle");
		auto id = co::parse_entry_id(e.id);
		if (id && id->target)
			(void)id->target->canonical();
		if (id && id->is_amdgcn() && e.size > 0)
			(void)co::decode_amdgpu_elf_header(d.substr(e.offset, e.size));
	}
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	const auto d = fuzz::text(data, size);
	elf(d);
	bundle(d);
	if (auto c = co::parse_ccob_header(d))
		fuzz::check(c->header_size <= co::kCcobMaxHeader && c->header_size <= d.size(),
			    "the CCOB header lies in the bytes given");
	// Ids as text: the first line.
	const std::string_view line = d.substr(0, d.find('\n'));
	(void)co::parse_target_id(line);
	if (auto id = co::parse_entry_id(line); id && id->target)
		fuzz::check(co::parse_target_id(id->target->canonical()).ok(), "a canonical target id parses again");
	return 0;
}
