#pragma once
// io::RootWriter: rooted, crash-safe writes of whole files (rdnactl config).
//
// Every path is root-relative ("etc/modprobe.d/rdnafix.conf") and is resolved
// one component at a time below the root with *at() calls on directory
// descriptors, so a write never lands outside the root:
//  * ".." in a path asked for is refused (the callers only write fixed names);
//  * a symlinked parent directory is followed inside the root: an absolute
//    target is re-rooted ("/usr/etc" means "<root>/usr/etc", the view a
//    `chroot <root>` has), a relative target that climbs above the root is
//    refused; more than 40 links on one path is a loop;
//  * the file itself must not be a symlink: renaming over a link would turn
//    it into a regular file, so replace/remove refuse it and name the link.
//
// replace(): temp file in the same directory (".<name>.rdnactl-tmp-<pid>-<16
// random hex digits>", mode 0600: a dot-file that kmod's modprobe.d reader,
// initramfs-tools' hook runner and GRUB's "/etc/default/grub.d/*.cfg" glob
// all skip), write, fchmod/fchown, fsync, rename over the target, fsync the
// directory.  A crash at any point leaves the target either completely old or
// completely new; a leftover temp file is removed by the next replace() in
// that directory.  Writers of one target may run at once: each has its own
// temp file, locked (flock) until its rename, and the sweep of leftovers
// removes only unlocked ones (io/temp_file.hpp); the last rename wins.
// remove(): unlink, fsync the directory.
//
// Fault injection: the optional StepHook is called after each named step
// (kStep* below) with the step's name; tests make it _exit() a forked child.
#include "io/unique_fd.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::io {

// The steps of replace() and remove(), in order.
inline constexpr std::string_view kStepTempCreated = "temp-created"; // replace: the empty temp file exists
inline constexpr std::string_view kStepWritten = "written";          // replace: the content is in the temp file
inline constexpr std::string_view kStepSynced = "synced";            // replace: mode set, temp file fsync'd
inline constexpr std::string_view kStepRenamed = "renamed";          // replace: the temp file is the target
inline constexpr std::string_view kStepUnlinked = "unlinked";        // remove: the target is gone
inline constexpr std::string_view kStepDirSynced = "dir-synced";     // both: the directory is fsync'd

using StepHook = std::function<void(std::string_view step)>;

// The prefix of replace()'s temp files for target `name` (".<name>.rdnactl-tmp-").
std::string temp_prefix(std::string_view name);

// A write that failed: one line naming the path and the reason, e.g.
// "cannot write etc/modprobe.d/rdnafix.conf: read-only file system (EROFS)".
struct WriteError {
	std::string path; // root-relative
	std::string message;
	int errno_value = 0;
	// The message without "cannot <verb> <path>: ", for a caller that names
	// the path as its user gave it ("permission denied (EACCES)").
	std::string reason;
};
// nullopt: done.
using WriteStatus = std::optional<WriteError>;

// A regular file as read by RootWriter::read.
struct FileState {
	std::string content;
	unsigned mode = 0644; // permission bits
};

class RootWriter {
public:
	// Opens `root` (a host directory; "/" is the live system).  On failure
	// root_error() says why and every call returns that error.
	explicit RootWriter(std::string root);
	~RootWriter();
	RootWriter(const RootWriter &) = delete;
	RootWriter &operator=(const RootWriter &) = delete;

	[[nodiscard]] const std::string &root() const;
	[[nodiscard]] const WriteStatus &root_error() const;

	// The file's content and mode; nullopt when it does not exist.  A
	// directory, a symlink or any other non-regular file is an error.
	[[nodiscard]] std::optional<FileState> read(std::string_view rel, WriteError *error) const;

	// Atomically make `rel` hold `content`.  `mode`: the permission bits to
	// set; nullopt keeps the existing file's mode (0644 for a new file).  The
	// owner of an existing file is kept.  Missing parent directories are
	// created (0755).
	WriteStatus replace(std::string_view rel, std::string_view content, std::optional<unsigned> mode = std::nullopt,
			    const StepHook &hook = {});
	// Delete `rel` (absent: nothing to do, not an error).
	WriteStatus remove(std::string_view rel, const StepHook &hook = {});

	// mkdir -p below the root (0755 each), every new directory's parent
	// fsync'd.
	WriteStatus make_dirs(std::string_view rel);
	// The entry names of a directory, sorted; nullopt when it does not exist.
	[[nodiscard]] std::optional<std::vector<std::string>> list(std::string_view rel, WriteError *error) const;
	// Rename entry `from` to `to` inside directory `dir` (files or
	// directories; `to` must not exist as a non-empty directory), then fsync
	// `dir`.
	WriteStatus rename_in(std::string_view dir, std::string_view from, std::string_view to);
	// Delete a directory and everything in it (symlinks are removed, never
	// followed); absent: nothing to do.
	WriteStatus remove_tree(std::string_view rel);

	// An exclusive lock (flock) on `rel`, created if missing; held until the
	// returned descriptor is closed.  Fails at once if another process
	// holds it (message: "... is locked by another rdnactl").
	[[nodiscard]] unique_fd lock(std::string_view rel, WriteError *error);

private:
	struct Impl;
	std::unique_ptr<Impl> impl_;
};

} // namespace rdnafix::io
