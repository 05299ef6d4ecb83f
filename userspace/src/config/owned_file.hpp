#pragma once
// The one modprobe.d file rdnactl owns, /etc/modprobe.d/rdnafix.conf: parse
// what is there, apply set/unset, render it again.  Pure.
//
// Rendered form (stable: modules and keys in managed_keys() order):
//   # Managed by rdnactl (rdnafix). Edit with 'rdnactl config'.
//   # 'rdnactl config undo' restores the previous version.
//   options rdnafix noretry=1 targets=rdna1,rdna2
//   options amdgpu noretry=1
//   options ttm pages_limit=25165824 page_pool_size=25165824
//   softdep amdgpu pre: rdnafix          (when any rdnafix key is set)
// No key left: the file is deleted.
//
// A hand-edited file: `options` lines of managed keys (any order, split over
// lines, last value wins as in kmod) and the softdep line are understood and
// rewritten in the form above; comments are dropped (the journal keeps the
// previous version, `config undo` restores it) and reported; any other line
// (an unknown option, another module, blacklist, install, ...) is foreign:
// rdnactl refuses to rewrite the file and names each such line, because
// dropping it would change the system silently and keeping it would carry
// settings rdnactl cannot check.  Move those lines to a file of your own in
// /etc/modprobe.d (rdnactl never edits other files) or delete them.
#include "config/changes.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::config {

inline constexpr std::string_view kOwnedHeader = "# Managed by rdnactl (rdnafix). Edit with 'rdnactl config'.";
inline constexpr std::string_view kOwnedUndoLine = "# 'rdnactl config undo' restores the previous version.";

struct OwnedLine {
	unsigned line = 0;
	std::string text;
};

struct OwnedFile {
	std::vector<ModuleChange> values; // every managed key set in the file (value present), file order
	std::vector<OwnedLine> foreign;   // lines rdnactl will not rewrite
	std::vector<OwnedLine> comments;  // comments other than rdnactl's own header lines
	bool softdep = false;             // "softdep amdgpu pre: rdnafix" is there
};

// `file` names the file in messages ("etc/modprobe.d/rdnafix.conf").
OwnedFile parse_owned(std::string_view text, std::string_view file);

// `values` with `changes` applied (set replaces or adds, unset removes),
// sorted in managed_keys() order.
std::vector<ModuleChange> apply_to(const std::vector<ModuleChange> &values, const std::vector<ModuleChange> &changes);

// The file for `values`; nullopt when nothing is left (delete the file).
std::optional<std::string> render_owned(const std::vector<ModuleChange> &values);

// The lines that make up the modprobe configuration (for immutable systems'
// native instructions): the options and softdep lines without the header.
std::vector<std::string> modprobe_lines(const std::vector<ModuleChange> &values);

// The value of module.name in `values`, if set.
std::optional<std::string> value_of(const std::vector<ModuleChange> &values, std::string_view module,
				    std::string_view name);

} // namespace rdnafix::config
