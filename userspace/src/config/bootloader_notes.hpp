#pragma once
// What a kernel parameter becomes when it leaves the command line, on this
// machine: a modprobe.d setting of the same option, else the kernel's default
// on the default boot kernel for each AMD GPU (core/rules_defaults).  Internal
// to config/.
#include "config/bootloader.hpp"

#include <string>
#include <vector>

namespace rdnafix::config::detail {

// One note per removal in `changes` (sets get none).
std::vector<std::string> removal_notes(const machine::Snapshot &s, const std::vector<CmdlineChange> &changes);

} // namespace rdnafix::config::detail
