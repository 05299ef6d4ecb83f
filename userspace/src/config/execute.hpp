#pragma once
// The steps shared by a transaction and its undo: write a set of files
// atomically (all or, after a failure, every one put back), run commands,
// and re-run the ones that had run after a roll-back so the
// initramfs and the boot loader match the restored files again.
#include "config/apply.hpp"
#include "config/report.hpp"
#include "io/atomic_file.hpp"

#include <string>
#include <vector>

namespace rdnafix::config {

struct RunSettings {
	std::string root = "/";
	bool chroot = true; // root != "/": `chroot ROOT argv...`
	double timeout_s = 1800;
};

// Writes every file's `after` (delete for nullopt).  On a failure, every file
// written so far gets its `before` back; false, with the messages in
// `errors`.
bool write_files(io::RootWriter &w, std::vector<FileReport> &files, std::vector<std::string> &errors);
// Writes every file's `before` back (the roll-back); false if any failed.
bool restore_files(io::RootWriter &w, std::vector<FileReport> &files, std::vector<std::string> &errors);

// Runs the commands in order (skipped ones stay skipped), stopping at the
// first failure; false then, with the command and its output in `errors`.
// Under io::DeferSignals a SIGINT/SIGTERM/SIGHUP/SIGQUIT to rdnactl kills
// the running command and counts as its failure (and no later one starts).
bool run_commands(std::vector<CommandReport> &commands, const RunSettings &rs, std::vector<std::string> &errors);
// After a roll-back: run again every command that had run (succeeded, and
// the one that failed or was stopped: it may have left its image half-made),
// so what they generate matches the restored files.
void rerun_after_rollback(std::vector<CommandReport> &commands, const RunSettings &rs,
			  std::vector<std::string> &errors);

// The whole transaction body: write the files, run the commands; on any
// failure (or a deferred signal) put every file back, re-run the commands that had run (so
// generated images match the restored files) and set r.rolled_back.
// False on failure.
bool write_and_run(io::RootWriter &w, Report &r, const RunSettings &rs);

// After a transaction was undone or rolled back: the temp files a killed
// writer left beside each of `t`'s files, and the directories `t` created
// that are empty again (errors appended; nothing else is touched).
void remove_leftovers(io::RootWriter &w, const Transaction &t, std::vector<std::string> &errors);

// A report for `o` (root, dry run, whether commands run under chroot);
// `action` "apply" or "undo".
Report start_report(const ApplyOptions &o, std::string action);
// Records `code` as the report's exit code, renders it (text or JSON), returns `code`.
int finish(Report &r, const ApplyOptions &o, std::ostream &out, std::ostream &err, int code);

// "update-initramfs -u -k 6.1.0-18-amd64" (words with spaces quoted).
std::string shell_words(const std::vector<std::string> &argv);

} // namespace rdnafix::config
