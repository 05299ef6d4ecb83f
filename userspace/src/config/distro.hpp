#pragma once
// Which family of distributions an os-release names (ID, then ID_LIKE), for
// the choices that differ per family: GRUB drop-ins (Debian), grubby
// (Fedora), the kernel image path kernel-install is given.  Internal to config/.
#include "core/parse_boot.hpp"

#include <string>
#include <string_view>

namespace rdnafix::config::detail {

// ID or a word of ID_LIKE equals `family` ("debian", "fedora", "arch", ...).
bool os_is(const core::OsRelease &os, std::string_view family);

bool debian_like(const core::OsRelease &os); // debian, ubuntu and their derivatives
bool fedora_like(const core::OsRelease &os); // fedora, rhel, centos and their derivatives

// The kernel image that `kernel-install add` is given for release `rel`:
// Debian-like "/boot/vmlinuz-<rel>", else "/lib/modules/<rel>/vmlinuz" (Fedora's layout).
std::string kernel_image(const core::OsRelease &os, std::string_view rel);

// "Debian GNU/Linux 12 (bookworm)" or the ID, for messages.
std::string os_name(const core::OsRelease &os);

} // namespace rdnafix::config::detail
