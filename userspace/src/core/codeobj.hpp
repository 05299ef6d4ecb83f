#pragma once
// AMDGPU device-code identities: clang offload-bundle entry ids, LLVM target
// ids and the e_flags of AMDGPU code objects (docs/rocm-facts.md §4).  Pure:
// strings and bytes in, values out.  The byte-level bundle and ELF readers
// live in core/codeobj_*.cpp; coverage/read_fatbin walks files with them.
#include "core/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rdnafix::core::codeobj {

// A target feature of a target id: omitted (Any), '+' (on) or '-' (off).
enum class Feature { any, on, off };
std::string_view to_string(Feature f); // "any", "on", "off"

// An LLVM target id: "gfx90a:sramecc+:xnack-", "gfx1030", "gfx10-3-generic".
struct TargetId {
	std::string processor; // "gfx1030", "gfx10-3-generic"
	Feature xnack = Feature::any;
	Feature sramecc = Feature::any;
	auto operator<=>(const TargetId &) const = default;
	// Canonical spelling: processor, then features in alphabetical order
	// ("gfx90a:sramecc+:xnack-").
	[[nodiscard]] std::string canonical() const;
	[[nodiscard]] bool is_generic() const; // processor ends in "-generic"
};
// Errors name the text and what is valid.
Result<TargetId> parse_target_id(std::string_view text);

// A bundle entry id: "<kind>-<triple>[-<target id>]", e.g.
// "hipv4-amdgcn-amd-amdhsa--gfx1030", "host-x86_64-unknown-linux-gnu-".
struct EntryId {
	std::string raw;
	std::string kind;                     // "hip", "hipv4", "host", "openmp", ...
	std::string triple;                   // "amdgcn-amd-amdhsa-"
	std::optional<TargetId> target;       // absent for host entries
	[[nodiscard]] bool is_amdgcn() const; // triple starts with "amdgcn-amd-amdhsa"
};
Result<EntryId> parse_entry_id(std::string_view text);

// The identity an AMDGPU code object states in its ELF header.
struct ElfTarget {
	std::uint32_t e_flags = 0;
	std::uint8_t abi_version = 0;            // EI_ABIVERSION: 2/3/4 = code object v4/v5/v6
	unsigned code_object_version = 0;        // 4, 5, 6 (0 when unknown)
	TargetId target;                         // processor from EF_AMDGPU_MACH, features from the flags
	std::optional<unsigned> generic_version; // EF_AMDGPU_GENERIC_VERSION (v6+, generic targets)
};
// `header` is at least the first 64 bytes of the code object.  Errors: not an
// ELF, not ELFCLASS64 little-endian, e_machine not EM_AMDGPU (224), an
// EF_AMDGPU_MACH value not in the table, an ABI version not known.
Result<ElfTarget> decode_amdgpu_elf_header(std::string_view header);

// The processor name of an EF_AMDGPU_MACH value (0x036 -> "gfx1030"),
// nullopt outside the table.
std::optional<std::string_view> mach_name(unsigned mach);
// The EF_AMDGPU_MACH value of a processor name, nullopt outside the table.
std::optional<unsigned> mach_of(std::string_view processor);

} // namespace rdnafix::core::codeobj
