#pragma once
// The GRUB drop-in /etc/default/grub.d/rdnafix.cfg: a POSIX sh fragment that
// grub-mkconfig sources after /etc/default/grub (Debian and Ubuntu).  It keeps
// the managed parameters as "# rdnactl-cmdline:" comment lines (the state) and
// shell code that edits GRUB_CMDLINE_LINUX / GRUB_CMDLINE_LINUX_DEFAULT.
// Internal to config/.
#include "config/bootloader.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::config::detail {

inline constexpr std::string_view kGrubDropin = "etc/default/grub.d/rdnafix.cfg";

// The managed parameters of an existing drop-in, in file order (a removal has
// no value).  Lines that are not well-formed state lines are ignored.
std::vector<CmdlineChange> grub_dropin_state(std::string_view content);

// `state` with `changes` applied: a change replaces its parameter's entry
// (same position); new parameters are appended.
std::vector<CmdlineChange> merge_state(std::vector<CmdlineChange> state, const std::vector<CmdlineChange> &changes);

// The drop-in for a non-empty, valid `state`.
std::string render_grub_dropin(const std::vector<CmdlineChange> &state);

// The case pattern that matches a parameter name with '-' and '_' alike:
// "amdgpu.vm_fragment_size" -> "amdgpu.vm[_-]fragment[_-]size".
std::string shell_name_pattern(std::string_view param);

} // namespace rdnafix::config::detail
