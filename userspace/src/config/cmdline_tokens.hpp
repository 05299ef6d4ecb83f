#pragma once
// Kernel command-line words as the boot loaders keep them: split, matched by
// parameter name (the kernel treats '-' and '_' alike) and edited in place.
// Internal to config/ (bootloader.cpp, grub_dropin.cpp, immutable.cpp).
#include "config/bootloader.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::config::detail {

// "amdgpu.vm-fragment-size" -> "amdgpu.vm_fragment_size".
std::string normalize_param(std::string_view param);

// The normalized name of one word: "amdgpu.noretry=0" -> "amdgpu.noretry".
std::string word_param(std::string_view word);

// Words separated by spaces and tabs (no quote handling: the GRUB drop-in's
// shell loop splits the same way).
std::vector<std::string> split_cmdline(std::string_view text);

// The words of `text` that set `param` (any value, or bare).
std::vector<std::string> words_for(std::string_view text, std::string_view param);

// "amdgpu.noretry=1" for a set; "" for a removal.
std::string word_of(const CmdlineChange &c);

// What a word-based tool (kernelstub, rpm-ostree kargs) must delete from and
// add to the command line `text` for `changes`: every word of a changed
// parameter that is not the wanted one, and the wanted words not yet there.
struct WordEdit {
	std::vector<std::string> remove, add;
};
WordEdit edit_words(std::string_view text, const std::vector<CmdlineChange> &changes);

// Why `c` is refused ("" when valid): a parameter outside amdgpu./rdnafix./
// ttm./amdttm., characters the boot loaders would need quoting for, a
// duplicate in `all`.
std::string invalid_change(const CmdlineChange &c);
std::string invalid_changes(const std::vector<CmdlineChange> &all);

// `text` with each change applied: the words of a changed parameter are
// removed; a set puts its word where the first one was, or at the end.  The
// other words keep their order (joined by one space).
std::string edit_cmdline(std::string_view text, const std::vector<CmdlineChange> &changes);

} // namespace rdnafix::config::detail
