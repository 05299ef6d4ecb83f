#pragma once
// The initramfs side of a configuration change as a Plan: the generator's own
// drop-in that puts rdnafix (and /etc/modprobe.d/rdnafix.conf) into the image,
// and the regeneration commands for each installed kernel that has an image.
// Pure over a Snapshot; facts and sources in docs/boot-config-facts.md.
#include "config/plan.hpp"

#include "machine/snapshot.hpp"

#include <optional>
#include <string>

namespace rdnafix::config {

// The generator file rdnactl owns for `g` (root-relative), "" for none.
std::string initramfs_owned_file(machine::InitramfsGenerator g);

// The content of that file when rdnafix belongs in the initramfs ("" for none).
std::string initramfs_owned_content(machine::InitramfsGenerator g);

// `want_rdnafix_in_initramfs`: the generator's file is written (else deleted,
// with any file rdnactl left for another generator).  `modprobe_changed`: the
// owned modprobe.d file changed, so the images must be rebuilt even when the
// generator file did not.  Commands only when something changed.  Generator
// none: a note, nothing to regenerate.  Immutable systems: `refusal`.
Plan plan_initramfs(const machine::Snapshot &s, bool want_rdnafix_in_initramfs, bool modprobe_changed);

// The generator's own lister for kernel `k`'s image (lsinitramfs, lsinitrd,
// lsinitcpio with the absolute image path); nullopt without a generator or
// an image.
std::optional<Command> list_command(const machine::Snapshot &s, const machine::InstalledKernel &k);

} // namespace rdnafix::config
