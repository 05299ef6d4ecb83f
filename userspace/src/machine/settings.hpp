#pragma once
// What is configured for the modules rdnactl manages (rdnafix, amdgpu, ttm,
// amdttm) against what is in effect: for every parameter set in modprobe.d,
// on the running kernel's command line or in the boot loader's command line
// for the next boot, where each value comes from, which one wins, the value
// the running module has, and a state.  Pure over a Snapshot: `config show`
// and the Configuration section of `status` read the same answer.
#include "machine/snapshot.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::machine {

// One place a value is set.
struct SettingSource {
	std::string value; // "" for a bare flag
	std::string file;  // root-relative: "etc/modprobe.d/rdnafix.conf", "etc/default/grub", "proc/cmdline"
	unsigned line = 0; // 1-based; 0 for proc/cmdline
};

enum class SettingState {
	in_effect,         // the running module has the value the next boot will use
	pending_reboot,    // the configuration changed after this boot (or the command line did): a reboot applies it
	not_applied,       // configured before this boot, yet the running module has another value
	overridden,        // the modprobe.d value loses to the kernel command line
	module_not_loaded, // configured before this boot, and the module is not loaded
};
std::string_view
to_string(SettingState s); // "in-effect", "pending-reboot", "not-applied", "overridden", "module-not-loaded"

struct Setting {
	std::string module, name;                   // "rdnafix","noretry" | "amdgpu","noretry" | "ttm","pages_limit"
	std::optional<SettingSource> modprobe;      // the winning modprobe.d value (kmod order: the last one)
	std::vector<SettingSource> modprobe_others; // the values it overrides (earlier lines, other files)
	std::optional<SettingSource> cmdline_now;   // /proc/cmdline
	std::optional<SettingSource> cmdline_next;  // the boot loader's configuration (BootConfig::cmdline_vars)
	std::optional<std::string> next_boot;       // the value the next boot will use (cmdline_next wins)
	std::optional<std::string> live;            // sys/module/<m>/parameters/<name>
	bool owned = false;                         // the winning modprobe.d value is in etc/modprobe.d/rdnafix.conf
	SettingState state = SettingState::module_not_loaded;
};

// Where next_boot comes from: cmdline_next, else the running command line
// when it stands in for an unknown boot loader's, else modprobe; nullptr
// when nothing sets it for the next boot.
const SettingSource *next_boot_source(const Setting &x);

// The modules configured_settings() reports, in output order.
inline constexpr std::string_view kSettingModules[] = {"rdnafix", "amdgpu", "ttm", "amdttm"};

// Every parameter of kSettingModules set anywhere (modprobe.d, the running
// command line, the boot loader's), by module in kSettingModules order, then
// by name.  When the boot loader is unknown (no cmdline_vars), the next boot
// is taken to use the running command line.  The state:
//   modprobe.d value and a command-line value (next boot, else now) differ
//                                                       -> overridden
//   module loaded and live equals next_boot             -> in_effect
//   the source of next_boot changed after btime (file mtime), or the boot
//   loader's value differs from /proc/cmdline, or nothing will set it any more
//                                                       -> pending_reboot
//   module not loaded                                   -> module_not_loaded
//   otherwise                                           -> not_applied
std::vector<Setting> configured_settings(const Snapshot &s);

// The kernel command line the boot loader's configuration gives the next
// boot, as the parts it is assembled from, in order: GRUB_CMDLINE_LINUX then
// GRUB_CMDLINE_LINUX_DEFAULT (grub-mkconfig's order for the default entry),
// each variable's last assignment winning and "$VAR ..." / "${VAR} ..."
// appending to the value before it; or etc/kernel/cmdline.  Each part is
// the text one assignment contributes (the self-reference removed).
struct CmdlinePart {
	std::string text; // "quiet amdgpu.noretry=1"
	std::string file; // root-relative
	unsigned line = 0;
};
std::vector<CmdlinePart> next_boot_cmdline(const BootConfig &b);

// True when a module is loaded in the snapshot (rdnafix, amdgpu; ttm/amdttm
// by their parameters).
bool module_loaded(const Snapshot &s, std::string_view module);

} // namespace rdnafix::machine
