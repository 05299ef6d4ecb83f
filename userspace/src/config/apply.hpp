#pragma once
// apply_changes(): the one way `rdnactl config set|unset` and `rdnactl fix`
// change the boot configuration.
//
//   validate (keys.hpp; nothing is written on any error)
//   -> the owned file (owned_file.hpp) + the BOOT planners (initramfs
//      generator files and regeneration commands when the modprobe
//      configuration changed; the boot loader for --cmdline; the native way
//      on immutable systems, where nothing is written)
//   -> one journaled transaction (journal.hpp): files written atomically
//      (io/atomic_file.hpp), then the commands (as `chroot ROOT argv...`
//      with --root); a failed write or command rolls every file back and
//      prints the command's output
//   -> the report as text or JSON (render.hpp).
//
// Exit codes (rdnactl(1), section 1 of the config contract):
//   0 done, or nothing to do (a reboot is still needed for module options:
//     that is said, not counted as a warning);
//   1 done, but something needs the user: a conflict keeps the configured
//     value from being in effect after the reboot (another modprobe.d file
//     read later, or the kernel command line), or --no-initramfs left the
//     initramfs stale;
//   2 nothing written: invalid key or value (validate.user: not a user of
//     the root's /etc/passwd, root, nobody), a hand-edited owned file with
//     foreign lines, an immutable system, not root (without --dry-run), an
//     unusable --root;
//   3 a write or a command failed; the transaction was rolled back.
#include "config/changes.hpp"
#include "config/plan.hpp"
#include "machine/snapshot.hpp"

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace rdnafix::config {

struct ApplyOptions {
	std::string root = "/";
	bool dry_run = false, json = false, no_initramfs = false;
	bool colour = false;    // text: the diff lines coloured (core/term_style.hpp); never with json
	std::string invocation; // recorded in the journal: "rdnactl config set noretry=1"
	// Refuse (exit 2) unless the effective uid is 0.  Tests on temporary
	// roots run as any user with this off; the CLI always leaves it on.
	bool require_root = true;
	// With a --root other than "/", commands run as `chroot ROOT argv...`.
	// Tests on temporary roots (no shell inside) turn this off and run the
	// commands on the host.
	bool chroot_commands = true;
	// `config undo` runs only commands the real planners produce
	// (journal_check.hpp).  Tests whose own planners record other commands
	// turn this off; the CLI always leaves it on.
	bool only_own_commands = true;
	double command_timeout_s = 1800; // per command (an initramfs rebuild takes minutes)
};

// The BOOT planners, as functions so that a test can put its own in.
struct Planners {
	std::function<Plan(const machine::Snapshot &, bool want_rdnafix_in_initramfs, bool modprobe_changed)> initramfs;
	std::function<Plan(const machine::Snapshot &, const std::vector<CmdlineChange> &)> cmdline;
	std::function<std::optional<std::string>(const machine::Snapshot &,
						 const std::vector<std::string> &modprobe_lines,
						 const std::vector<CmdlineChange> &)>
		native_way;
};
// config/initramfs.hpp, config/bootloader.hpp, config/immutable.hpp.
Planners default_planners();

// Collects the machine below o.root, then runs the sequence above.
// `services` (validate.user) go to the drop-in of rdnafix-validate.service
// (service_dropin.hpp), in the same transaction; with service changes only,
// the modprobe.d file and the boot planners are not touched.
int apply_changes(const ApplyOptions &o, const std::vector<ModuleChange> &mods,
		  const std::vector<CmdlineChange> &cmdline, std::ostream &out, std::ostream &err);
int apply_changes(const ApplyOptions &o, const std::vector<ModuleChange> &mods,
		  const std::vector<CmdlineChange> &cmdline, std::ostream &out, std::ostream &err, const Planners &p);
int apply_changes(const ApplyOptions &o, const std::vector<ModuleChange> &mods,
		  const std::vector<CmdlineChange> &cmdline, const std::vector<ServiceChange> &services,
		  std::ostream &out, std::ostream &err, const Planners &p);

// `config undo`: restore the files of the newest transaction, re-run its
// commands (initramfs ones skipped with --no-initramfs), drop it.  An empty
// journal: "nothing to undo", exit 0.  Exit codes as above.
int undo_last(const ApplyOptions &o, std::ostream &out, std::ostream &err);

} // namespace rdnafix::config
