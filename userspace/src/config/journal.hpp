#pragma once
// The journal of `rdnactl config` below the root: one transaction per
// invocation that changed something, so that `config undo` can walk back one
// transaction per call.
//
//   var/lib/rdnafix/config/lock                     flock: one config change at a time
//   var/lib/rdnafix/config/journal/<seq>/manifest.json
//   var/lib/rdnafix/config/journal/<seq>/prev/<n>   the previous content of file n
//   var/lib/rdnafix/config/journal/<seq>/new/<n>    the content the transaction wrote
//
// <seq> is a decimal of at least 6 digits ("000001", ..., "999999", "1000000"),
// increasing; entries are ordered by its value, not by name.  An entry is built in
// ".<seq>.new" and renamed into place (then the directory fsync'd), so it is
// complete or absent; it is written BEFORE any configuration file changes,
// so a crash half-way through a transaction can still be undone.
// manifest.json: {"version":1, "time":"2025-01-31T12:00:00Z", "invocation":
// "rdnactl config set noretry=1", "files":[{"path":"etc/modprobe.d/rdnafix.conf",
// "previous":"absent"|"prev/0", "previous_mode":420, "written":"absent"|"new/0",
// "mode":420}], "created_dirs":["etc/modprobe.d"], "commands":[{"argv":[...], "why":"...",
// "kind":"initramfs"|"bootloader"}]}
// created_dirs: the parent directories of the files that did not exist when
// the entry was recorded (deepest first); undo removes them again when empty.
#include "config/plan.hpp"
#include "io/atomic_file.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::config {

inline constexpr std::string_view kStateDir = "var/lib/rdnafix/config";
inline constexpr std::string_view kJournalDir = "var/lib/rdnafix/config/journal";
inline constexpr std::string_view kLockFile = "var/lib/rdnafix/config/lock";

// Which planner a command came from: initramfs generators are skipped with
// --no-initramfs, boot-loader updates are not.
enum class CommandKind { initramfs, bootloader };
std::string_view to_string(CommandKind k); // "initramfs", "bootloader"

struct JournalFile {
	std::string path;                    // root-relative
	std::optional<std::string> previous; // nullopt: the file did not exist
	unsigned previous_mode = 0644;
	std::optional<std::string> written; // nullopt: the transaction deleted it
	unsigned mode = 0644;
};

struct JournalCommand {
	std::vector<std::string> argv;
	std::string why;
	CommandKind kind = CommandKind::initramfs;
};

struct Transaction {
	std::string id;   // "000003"
	std::string time; // UTC, ISO 8601
	std::string invocation;
	std::vector<JournalFile> files;
	std::vector<JournalCommand> commands;
	std::vector<std::string> created_dirs; // root-relative, deepest first
};

// The largest id the journal hands out (12 digits).
inline constexpr unsigned long long kMaxJournalId = 999999999999ull;

class Journal {
public:
	explicit Journal(io::RootWriter &w) : w_(w) {}

	// Write a new entry (the next id) for `t` (id, time and created_dirs
	// filled in here).
	io::WriteStatus record(Transaction &t);
	// The newest complete entry; nullopt when the journal is empty.  A
	// manifest that cannot be read or parsed is an error naming it.
	std::optional<Transaction> newest(io::WriteError *error) const;
	// Every complete entry id, oldest first (by value).
	std::vector<std::string> ids(io::WriteError *error) const;
	// Remove what a killed run left in the journal directory: an entry
	// being recorded (".<id>.new") or being dropped (".<id>.dropped").
	io::WriteStatus sweep();
	// Remove an entry (after undo, or after a rolled-back transaction).
	io::WriteStatus drop(const Transaction &t);

private:
	io::RootWriter &w_;
};

} // namespace rdnafix::config
