#pragma once
// The .modinfo section of a kernel module (what `modinfo` prints as version,
// vermagic, srcversion, name): NUL-separated "key=value" strings that
// MODULE_INFO() and the build place in that ELF section (include/linux/module.h:
// MODULE_INFO, scripts/mod/modpost.c: add_header, Linux 6.12).  Pure: the
// whole (decompressed) module file in, values out.
#include "core/result.hpp"

#include <string>
#include <string_view>

namespace rdnafix::core {

struct ModuleInfo {
	std::string name;       // "rdnafix" (name=, Linux 5.4 and later)
	std::string version;    // "0.1.0" (MODULE_VERSION); "" when the module has none
	std::string srcversion; // "B25A4764F7295F55C3C9DD5"
	std::string vermagic;   // "6.1.0-56-amd64 SMP preempt mod_unload modversions "
	// The kernel release the module was built for: vermagic's first word.
	std::string release() const;
};

// `elf`: the module's bytes.  Errors (one line naming what is wrong): not an
// ELF64 little-endian file, a section table or name outside the file, no
// .modinfo section.  A string in the section without '=' is skipped.
Result<ModuleInfo> parse_module_info(std::string_view elf);

} // namespace rdnafix::core
