#pragma once
// A change to the boot configuration as data: the files to write or delete
// and the commands to run afterwards (initramfs generators, boot-loader
// updates).  Planners (initramfs.cpp, bootloader.cpp, owned_file.cpp) are pure
// and return Plans; apply.cpp executes one inside a journaled transaction.
#include <optional>
#include <string>
#include <vector>

namespace rdnafix::config {

// Write `content` to `path` (root-relative, e.g. "etc/modprobe.d/rdnafix.conf")
// with `mode`; content nullopt: delete the file.
struct FileChange {
	std::string path;
	std::optional<std::string> content;
	unsigned mode = 0644;
};

// A command run after the files are written ("update-initramfs -u -k 6.1.0-18-amd64").
// With --root DIR it runs as `chroot DIR argv...`.
struct Command {
	std::vector<std::string> argv;
	std::string why; // one line: "put rdnafix and its options into the initramfs of 6.1.0-18-amd64"
};

struct Plan {
	std::vector<FileChange> files;
	std::vector<Command> commands;
	std::vector<std::string> notes; // what the user should know (a default that returns, a reboot)
	// Set on a system whose configuration is not written in /etc (NixOS,
	// SteamOS, rpm-ostree): the native way to do it; nothing is written.
	std::optional<std::string> refusal;
};

} // namespace rdnafix::config
