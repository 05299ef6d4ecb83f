#pragma once
// Parsers of the boot configuration's text files: shell-style assignment
// files (os-release(5), /etc/default/grub and its grub.d/*.cfg drop-ins), and
// the appended signature of a kernel module.  Pure: text in, values out.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::core {

// One `NAME=value` line of a file that a POSIX shell sources (or that follows
// the os-release(5) subset of that syntax).
struct ShellAssignment {
	std::string name;  // "GRUB_CMDLINE_LINUX_DEFAULT"
	std::string value; // quotes removed, escapes in "..." resolved
	std::string raw;   // the text after '=' as written
	unsigned line = 0; // 1-based
	// The value refers to a variable or a command ($NAME, ${..}, $(..), `..`):
	// `value` is then the text as written, not what the shell would make of it.
	bool expands = false;
	bool appends_self = false; // NAME="$NAME ..." or NAME="${NAME} ..."
};
struct ShellAssignments {
	std::vector<ShellAssignment> assignments; // file order
	// "line N: ..." for lines that are not comments, blank or simple
	// assignments (if/fi, commands, unterminated quotes).
	std::vector<std::string> problems;
};
// Parse `NAME=value` lines: optional leading `export `, value unquoted, "..."
// (backslash escapes \" \\ \$ \`), '...' (literal), or a mix of them; a '#'
// starts a comment only at the start of a word.
ShellAssignments parse_shell_assignments(std::string_view text);

// os-release(5) fields rdnactl uses.
struct OsRelease {
	std::string id, id_like, version_id, variant_id, pretty_name, version_codename;
};
OsRelease parse_os_release(std::string_view text);

} // namespace rdnafix::core
