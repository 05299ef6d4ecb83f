#pragma once
// Kernel command-line changes as a Plan, through the boot loader's own
// mechanism: GRUB (a drop-in under /etc/default/grub.d on Debian and Ubuntu,
// grubby on Fedora and its relatives), systemd-boot with kernel-install
// (/etc/kernel/cmdline), kernelstub (Pop!_OS).  Pure over a Snapshot; the
// facts behind each choice are in docs/boot-config-facts.md.
#include "config/plan.hpp"

#include "machine/snapshot.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rdnafix::config {

// One kernel command-line parameter: "amdgpu.noretry" set to `value`, or
// removed (value nullopt).  Only amdgpu.*, rdnafix.*, ttm.* and amdttm.*
// parameters are accepted; values are words of [A-Za-z0-9_.,:+/=-].
struct CmdlineChange {
	std::string param;
	std::optional<std::string> value;
};

// The files and commands that make the next boot's command line carry
// `changes`, plus notes: for a removal, the value the parameter then takes on
// this machine's default boot kernel (a modprobe.d setting, else the kernel's
// default).  An invalid change or a boot loader rdnactl cannot edit sets
// `refusal` (nothing written) with the reason or the manual step.
Plan plan_cmdline(const machine::Snapshot &s, const std::vector<CmdlineChange> &changes);

} // namespace rdnafix::config
