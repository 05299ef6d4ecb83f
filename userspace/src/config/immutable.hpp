#pragma once
// Systems whose boot configuration is not edited in /etc by a tool: NixOS
// (declarative), SteamOS (read-only image), Fedora Atomic and other
// rpm-ostree/ostree systems (image-based, kernel arguments per deployment).
// rdnactl refuses to write there and prints the system's own way instead.
#include "config/bootloader.hpp"

#include "machine/snapshot.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rdnafix::config {

// nullopt on a normal system; else the exact native instructions for putting
// `modprobe_lines` (lines of /etc/modprobe.d/rdnafix.conf: "options rdnafix
// noretry=1", "softdep amdgpu pre: rdnafix") and `cmdline` into effect, and
// what is not possible there.
std::optional<std::string> native_way(const machine::Snapshot &s, const std::vector<std::string> &modprobe_lines,
				      const std::vector<CmdlineChange> &cmdline);

} // namespace rdnafix::config
