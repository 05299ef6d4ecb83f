// Target ids, bundle entry ids and the AMDGPU ELF header: strings and bytes
// in, values out (docs/rocm-facts.md §4; LLVM llvm/docs/AMDGPUUsage.rst,
// "Target ID", "Code Object Target Identification", "ELF Header").
#include "core/codeobj.hpp"
#include "core/codeobj_bytes.hpp"

#include <fmt/format.h>

#include <array>

namespace rdnafix::core::codeobj {

namespace {

constexpr std::string_view kValidTarget =
	"expected a processor (gfx1030, gfx90a, gfx10-3-generic) followed by optional "
	"':xnack+', ':xnack-', ':sramecc+' or ':sramecc-'";

bool processor_ok(std::string_view p)
{
	if (p.size() < 4 || p.substr(0, 3) != "gfx" || p.size() > 32)
		return false;
	for (char c : p.substr(3))
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-'))
			return false;
	return true;
}

std::string printable(std::string_view s)
{
	std::string out;
	for (char c : s.substr(0, 80)) {
		if (c >= 0x20 && c < 0x7f)
			out += c;
		else
			out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
	}
	if (s.size() > 80)
		out += "...";
	return out;
}

} // namespace

std::string_view to_string(Feature f)
{
	switch (f) {
	case Feature::any:
		return "any";
	case Feature::on:
		return "on";
	case Feature::off:
		return "off";
	}
	return "any";
}

std::string TargetId::canonical() const
{
	std::string s = processor;
	if (sramecc != Feature::any)
		s += sramecc == Feature::on ? ":sramecc+" : ":sramecc-";
	if (xnack != Feature::any)
		s += xnack == Feature::on ? ":xnack+" : ":xnack-";
	return s;
}

bool TargetId::is_generic() const
{
	constexpr std::string_view suffix = "-generic";
	return processor.size() > suffix.size() && processor.ends_with(suffix);
}

Result<TargetId> parse_target_id(std::string_view text)
{
	auto bad = [&](std::string_view why) {
		return Error{fmt::format("target id '{}' is invalid: {}; {}", printable(text), why, kValidTarget)};
	};
	TargetId t;
	std::size_t colon = text.find(':');
	std::string_view proc = text.substr(0, colon);
	if (!processor_ok(proc))
		return bad(fmt::format("'{}' is not a processor name", printable(proc)));
	t.processor = std::string(proc);
	while (colon != std::string_view::npos) {
		std::string_view rest = text.substr(colon + 1);
		colon = rest.find(':');
		std::string_view item = rest.substr(0, colon);
		if (colon != std::string_view::npos)
			colon += text.size() - rest.size();
		if (item.size() < 2 || (item.back() != '+' && item.back() != '-'))
			return bad(fmt::format("feature '{}' lacks a '+' or '-'", printable(item)));
		Feature f = item.back() == '+' ? Feature::on : Feature::off;
		std::string_view name = item.substr(0, item.size() - 1);
		Feature *slot = name == "xnack" ? &t.xnack : name == "sramecc" ? &t.sramecc : nullptr;
		if (!slot)
			return bad(fmt::format("unknown feature '{}'", printable(name)));
		if (*slot != Feature::any)
			return bad(fmt::format("feature '{}' given twice", printable(name)));
		*slot = f;
	}
	return t;
}

bool EntryId::is_amdgcn() const
{
	return triple.starts_with("amdgcn-amd-amdhsa");
}

// "<kind>-<arch>-<vendor>-<os>-<env>[-<target id>]": the triple has four
// fields (the environment may be empty), the target id is the rest.
Result<EntryId> parse_entry_id(std::string_view text)
{
	auto bad = [&](std::string_view why) {
		return Error{fmt::format("bundle entry id '{}' is invalid: {}; expected "
					 "<kind>-<arch>-<vendor>-<os>-<environment>[-<target id>], e.g. "
					 "'hipv4-amdgcn-amd-amdhsa--gfx1030'",
					 printable(text), why)};
	};
	if (text.empty())
		return bad("it is empty");
	for (char c : text)
		if (c < 0x21 || c > 0x7e)
			return bad("it contains a byte that is not printable ASCII");
	EntryId e;
	e.raw = std::string(text);
	std::size_t k = text.find('-');
	if (k == 0 || k == std::string_view::npos)
		return bad("the offload kind is empty");
	e.kind = std::string(text.substr(0, k));
	std::string_view rest = text.substr(k + 1);
	// Clang before the four-field triples wrote "hip-amdgcn-amd-amdhsa-gfx906".
	constexpr std::string_view kOldAmd = "amdgcn-amd-amdhsa-";
	std::size_t triple_end = 0;
	if (rest.starts_with(kOldAmd) && rest.size() > kOldAmd.size() && rest[kOldAmd.size()] != '-') {
		triple_end = kOldAmd.size() - 1;
	} else {
		// arch-vendor-os-environment: the fourth '-' ends the triple.
		std::size_t from = 0;
		for (int i = 0; i < 4; ++i) {
			std::size_t d = rest.find('-', from);
			if (d == std::string_view::npos) {
				if (i < 3)
					return bad("the triple has fewer than four '-'-separated fields");
				d = rest.size();
			}
			triple_end = d;
			from = d + 1;
		}
	}
	e.triple = std::string(rest.substr(0, triple_end));
	std::string_view target = triple_end < rest.size() ? rest.substr(triple_end + 1) : std::string_view{};
	if (!target.empty()) {
		auto t = parse_target_id(target);
		if (!t)
			return bad(t.error().message);
		e.target = std::move(t).value();
	} else if (e.is_amdgcn()) {
		return bad("an amdgcn entry names no target");
	}
	return e;
}

Result<ElfTarget> decode_amdgpu_elf_header(std::string_view header)
{
	auto h = parse_elf64_header(header);
	if (!h)
		return Error{h.error().message};
	if (h->machine != kEmAmdgpu)
		return Error{fmt::format("ELF e_machine is {}, not EM_AMDGPU ({}): not an AMDGPU code object",
					 h->machine, kEmAmdgpu)};
	if (h->osabi != kElfOsAbiAmdgpuHsa)
		return Error{fmt::format("ELF OS ABI is {}, not ELFOSABI_AMDGPU_HSA (64)", h->osabi)};
	ElfTarget t;
	t.e_flags = h->flags;
	t.abi_version = h->abi_version;
	// AMDGPUUsage.rst "ELF Header": ELFABIVERSION_AMDGPU_HSA_V2..V6 = 0..4.
	if (h->abi_version > 4)
		return Error{fmt::format("code-object ABI version {} is not known (0-4 = code object v2-v6)",
					 h->abi_version)};
	t.code_object_version = h->abi_version + 2u;
	unsigned mach = t.e_flags & 0xffu;
	auto name = mach_name(mach);
	if (!name)
		return Error{fmt::format("EF_AMDGPU_MACH 0x{:03x} (e_flags 0x{:08x}) is not a known AMDGPU processor",
					 mach, t.e_flags)};
	t.target.processor = std::string(*name);
	if (t.code_object_version >= 4) {
		static constexpr std::array<Feature, 4> kSel{Feature::any, Feature::any, Feature::off, Feature::on};
		t.target.xnack = kSel[(t.e_flags >> 8) & 3u];
		t.target.sramecc = kSel[(t.e_flags >> 10) & 3u];
	} else if (t.code_object_version == 3) {
		// v3: one bit each, set = on, clear = off/unsupported (AMDGPUUsage.rst).
		t.target.xnack = (t.e_flags & 0x100u) ? Feature::on : Feature::any;
		t.target.sramecc = (t.e_flags & 0x200u) ? Feature::on : Feature::any;
	}
	if (t.code_object_version >= 6 && t.target.is_generic()) {
		unsigned v = t.e_flags >> 24;
		if (v == 0)
			return Error{
				fmt::format("generic target {} without EF_AMDGPU_GENERIC_VERSION (e_flags 0x{:08x})",
					    t.target.processor, t.e_flags)};
		t.generic_version = v;
	}
	return t;
}

} // namespace rdnafix::core::codeobj
