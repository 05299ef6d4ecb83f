#pragma once
// The keys `rdnactl config` manages and the validation of their values.
// rdnafix's are checked by kmod/rdnafix_policy.h, the parser the module
// itself runs, and refused with its RDNAFIX_VALID_* text; amdgpu's with the
// ranges amdgpu_device_check_arguments() enforces; the TTM limit against the
// machine's RAM.  Pure over a Snapshot (RAM size, amdgpu-dkms).
#include "config/changes.hpp"
#include "machine/snapshot.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::config {

struct KeySpec {
	std::string_view module, name;
	std::string_view valid; // what is valid, as printed in a refusal
};
// Every managed module option, in the order the owned file lists them:
// rdnafix (8), amdgpu (4), ttm (2), amdttm (2).
std::span<const KeySpec> managed_keys();
const KeySpec *find_key(std::string_view module, std::string_view name);

// The TTM limit: bytes per page, and the largest limit rdnactl writes for a
// machine with `mem_total` bytes of RAM: all but max(1/8 of RAM, 1 GiB).
inline constexpr std::uint64_t kTtmPageBytes = 4096;
// The smallest TTM limit accepted: below it amdgpu cannot allocate what it
// needs to start (its rings, firmware, display buffers) in system memory.
inline constexpr std::uint64_t kTtmMinBytes = 1ull << 30;
std::uint64_t ttm_ceiling_bytes(std::uint64_t mem_total);
// "96G", "96GiB", "98304M", "103079215104" (binary units K M G T) -> bytes.
core::Result<std::uint64_t> parse_size(std::string_view text);
// "96.0 GiB"
std::string gib(std::uint64_t bytes);

// The errors (one line each, naming the key and the value) and warnings of
// a list of changes.  Unset changes are checked only for being managed keys.
struct Checked {
	std::vector<std::string> errors;
	std::vector<std::string> warnings;
	[[nodiscard]] bool ok() const { return errors.empty(); }
};
Checked check_module_changes(const std::vector<ModuleChange> &changes, const machine::Snapshot &s);
// Kernel command-line parameters: only amdgpu.*, rdnafix.*, ttm.*, amdttm.*;
// values of managed keys checked as above, others must be one word of
// [A-Za-z0-9_.,:+-].
Checked check_cmdline_changes(const std::vector<CmdlineChange> &changes, const machine::Snapshot &s);

// The words of `config set KEY=VALUE...` / `config unset KEY...`:
//   noretry=1 | rdnafix.noretry=1 | amdgpu.noretry=1 | ttm-limit=96G (ttm
//   or amdttm, pages_limit and page_pool_size) | ttm.pages_limit=N |
//   validate.user=NAME (the drop-in of rdnafix-validate.service).
// With `cmdline`, each word is a kernel parameter (amdgpu.noretry=1).
// Values are not checked here (check_*_changes does that).
struct Parsed {
	std::vector<ModuleChange> modules;
	std::vector<CmdlineChange> cmdline;
	std::vector<ServiceChange> services; // validate.user (not with `cmdline`)
	std::vector<std::string> errors;
};
Parsed parse_set_words(const std::vector<std::string> &words, bool cmdline, const machine::Snapshot &s);
Parsed parse_unset_words(const std::vector<std::string> &words, bool cmdline, const machine::Snapshot &s);

// The module the TTM limit belongs to on this machine: "amdttm" with
// amdgpu-dkms, else "ttm".
std::string ttm_module(const machine::Snapshot &s);

} // namespace rdnafix::config
