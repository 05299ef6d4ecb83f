#pragma once
// What `config undo` accepts from a journal entry.  The journal lies below
// --root, and whoever can write there (an image being prepared, a copied
// root) can put a forged entry in it; undo runs as root.  So an entry is
// replayed only when it is one rdnactl could have written:
//  * every file is one rdnactl config manages (the owned files,
//    /etc/kernel/cmdline, the drop-in of rdnafix-validate.service), and the
//    previous content of the modprobe.d file and the drop-in has no line
//    rdnactl would refuse (set/unset never journal such a file);
//  * a created directory is a parent of one of those files;
//  * every command is one the initramfs and boot-loader planners produce
//    (update-initramfs -u -k REL, dracut --force --kver REL /boot/...,
//    mkinitcpio -P, update-grub, grub-mkconfig -o /boot/grub/grub.cfg,
//    grub2-mkconfig -o /boot/grub2/grub.cfg, grubby --update-kernel=ALL
//    --args=/--remove-args=WORDS, kernel-install add REL IMAGE,
//    kernelstub -a/-d WORDS), with plain kernel releases and parameter words;
// and modes are written masked by safe_mode().
#include "config/journal.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::config {

// True for the root-relative paths `rdnactl config` writes.
bool is_managed_path(std::string_view rel);

// The permission bits undo writes for a journalled mode: no setuid, setgid
// or sticky bit, not writable by group or others (0644 and 0755 stay).
constexpr unsigned safe_mode(unsigned mode)
{
	return mode & 0755u;
}

// One message per thing in `t` that rdnactl would not have written (empty:
// the entry may be replayed).  `commands`: check the commands too.
std::vector<std::string> check_entry(const Transaction &t, bool commands = true);

} // namespace rdnafix::config
