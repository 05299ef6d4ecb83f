#pragma once
// Parsers of the rdnafix module's counter and evidence files (sysfs ABI v1,
// docs/sysfs-abi.md) and of depmod's lists of one kernel (modules.dep,
// modules.builtin).  Pure: text in, values out; a line that does not have the
// documented shape is returned in `bad`, never guessed at.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::core {

// sys/kernel/rdnafix/{missing,calls}: one line per hook,
// "<hook> <key>=<n> <key>=<n>" ("get_vm_pte instance=0 recursion=3").
struct HookCountLines {
	std::map<std::string, std::map<std::string, std::uint64_t>> hooks; // hook -> key -> n
	std::vector<std::string> bad;                                      // lines not of that shape
};
HookCountLines parse_hook_counts(std::string_view text);

// sys/kernel/rdnafix/evidence: "key: value" lines (the value may be empty).
struct KeyValueLines {
	std::map<std::string, std::string> values;
	std::vector<std::string> bad;
};
KeyValueLines parse_colon_pairs(std::string_view text);

// sys/kernel/rdnafix/leaks: the total count (decimal) on the first line, then
// up to 8 records, newest last.
struct LeakLines {
	std::optional<std::uint64_t> total; // nullopt when the first line is not a number
	std::vector<std::string> recent;
};
LeakLines parse_leaks(std::string_view text);

// lib/modules/<release>/modules.dep: the path (relative to that directory, as
// depmod wrote it) of the module `name` ("amdgpu" matches amdgpu.ko,
// amdgpu.ko.xz, .zst, .gz); "" when no line names it.  depmod writes one line
// per module name: the copy modprobe loads.
std::string modules_dep_path(std::string_view text, std::string_view name);

// lib/modules/<release>/modules.builtin: does a line name `name`.ko (built
// into the kernel image)?
bool modules_builtin_has(std::string_view text, std::string_view name);

// The module name of a path: "updates/dkms/amdgpu.ko.xz" -> "amdgpu".
std::string module_name_of(std::string_view path);

// Where a module below lib/modules/<release>/ comes from, in the words of the
// module's evidence file (amdgpu_origin): "dkms" (updates/dkms/), "updates",
// "extra", "in-tree" (kernel/), "" other.  `path` is root-relative or
// absolute ("lib/modules/6.12.1/updates/dkms/amdgpu.ko.xz").
std::string_view module_origin(std::string_view path);

} // namespace rdnafix::core
