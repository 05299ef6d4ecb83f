#pragma once
// Which value of a module option the next boot will use, when rdnactl's
// owned file is not the only place that sets it.  Pure over a Snapshot.
//
// The rules (kmod libkmod-config.c; the kernel's parse_args): modprobe reads
// the modprobe.d files in kmod's order (Snapshot::boot.modprobe: a name in
// /etc hides the same name in /run, /usr/local/lib, /lib, /usr/lib; then
// sorted by name) and passes every matching `options` word, so the LAST one
// wins; the kernel command line's module.param= comes after all files and
// wins over them.  Next boot's command line: the boot loader's configuration
// (machine::next_boot_cmdline; /proc/cmdline when the boot loader is unknown).
// machine::configured_settings() answers the same for the files as they are;
// this answers it for the files as this change will leave them.
#include "config/changes.hpp"
#include "machine/snapshot.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rdnafix::config {

struct Conflict {
	std::string key;                  // "amdgpu.noretry"
	std::optional<std::string> owned; // the owned file's value after this change (nullopt: unset there)
	std::optional<std::string> next;  // the value the next boot will use (nullopt: the module's default)
	std::string source;               // where `next` comes from: "etc/default/grub:6" or "etc/modprobe.d/x.conf:2"
	std::string why;                  // one line: which value wins and why
	bool remains = false;             // the configured value will NOT be in effect after the reboot
};

// For every key in `owned` (the owned file after this change) and every key
// this invocation unsets: the other places that set it.  `cmdline` are the
// command-line changes of this same invocation (they replace what the boot
// loader has now).  Keys nobody else sets produce nothing.
std::vector<Conflict> find_conflicts(const machine::Snapshot &s, const std::vector<ModuleChange> &owned,
				     const std::vector<ModuleChange> &unset, const std::vector<CmdlineChange> &cmdline);

} // namespace rdnafix::config
