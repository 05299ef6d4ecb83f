#pragma once
// A unified diff of two versions of a text file (what `--dry-run` prints).
// Pure.
#include <optional>
#include <string>
#include <string_view>

namespace rdnafix::config {

// `path` is root-relative ("etc/modprobe.d/rdnafix.conf"); nullopt content
// is an absent file (shown as /dev/null).  Headers "--- a/<path>" and
// "+++ b/<path>", hunks with 3 lines of context; "" when both are equal.
// A last line without '\n' is marked "\ No newline at end of file".
std::string unified_diff(std::string_view path, const std::optional<std::string> &before,
			 const std::optional<std::string> &after);

} // namespace rdnafix::config
