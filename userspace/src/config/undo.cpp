// `config undo`: restore the newest transaction's files, re-run its
// commands, drop it (apply.hpp).
//
// Crash safety: undo decides per file from what is on disk now, so a change
// or an undo killed at any point can be undone by running undo (again):
//   now == what the entry wrote (content and mode)  -> restore the previous;
//   now == the previous (content and mode)           -> nothing to do (never
//        written: the change was killed before it; or already restored: an
//        undo or a roll-back was killed after it);
//   anything else                                    -> refuse, naming the file.
// Then the commands run (also when every file was already at its previous
// state: a killed run may have left the initramfs built from the other
// state), the temp files and directories the change left are removed, and
// the entry is dropped.  Only entries rdnactl could have written are
// replayed (journal_check.hpp).
#include "config/apply.hpp"

#include "config/execute.hpp"
#include "config/journal_check.hpp"
#include "config/report.hpp"
#include "config/service_dropin.hpp"
#include "io/child_spawn.hpp"
#include "io/process.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace rdnafix::config {

int undo_last(const ApplyOptions &o, std::ostream &out, std::ostream &err)
{
	Report r = start_report(o, "undo");
	io::RootWriter w(o.root);
	if (w.root_error()) {
		r.errors.push_back(w.root_error()->message);
		return finish(r, o, out, err, 2);
	}
	io::unique_fd lock;
	if (!o.dry_run && (!o.require_root || io::process_identity().euid == 0)) {
		io::WriteError le;
		lock = w.lock(kLockFile, &le);
		if (!lock) {
			r.errors.push_back(le.message + " (nothing was written)");
			return finish(r, o, out, err, 2);
		}
	}
	Journal j(w);
	if (lock)
		if (auto e = j.sweep())
			r.warnings.push_back(
				fmt::format("could not remove what a killed run left in the journal: {}", e->message));
	io::WriteError je;
	auto t = j.newest(&je);
	if (!je.message.empty()) {
		r.errors.push_back(je.message);
		return finish(r, o, out, err, 2);
	}
	if (!t) {
		r.nothing_to_do = true;
		r.notes.push_back(fmt::format("nothing to undo: the journal ({}) has no transaction", kJournalDir));
		return finish(r, o, out, err, 0);
	}
	r.journal_id = t->id;
	if (const auto forged = check_entry(*t, o.only_own_commands); !forged.empty()) {
		for (const auto &f : forged)
			r.errors.push_back(fmt::format("journal entry {}/{}: {}", kJournalDir, t->id, f));
		r.errors.push_back(fmt::format("journal entry {}/{} is not one rdnactl wrote: nothing was restored or "
					       "run; look at it and remove that directory",
					       kJournalDir, t->id));
		return finish(r, o, out, err, 2);
	}
	r.notes.push_back(fmt::format("undoing transaction {} of {} ({})", t->id, t->time, t->invocation));
	std::size_t already = 0;
	for (const auto &f : t->files) {
		io::WriteError e;
		auto cur = w.read(f.path, &e);
		if (!e.message.empty()) {
			r.errors.push_back(e.message);
			continue;
		}
		const std::optional<std::string> now = cur ? std::optional(cur->content) : std::nullopt;
		const bool at_previous = now == f.previous && (!cur || cur->mode == f.previous_mode ||
							       cur->mode == safe_mode(f.previous_mode));
		const bool at_written = now == f.written && (!cur || cur->mode == f.mode);
		if (at_previous) {
			++already;
			continue;
		}
		if (!at_written) {
			r.errors.push_back(fmt::format(
				"{} was changed after transaction {} (by hand or by another program); undo would "
				"discard that change. Put back what rdnactl wrote (the journal has it: {}/{}) or "
				"use 'rdnactl config set/unset' instead",
				f.path, t->id, kJournalDir, t->id));
			continue;
		}
		r.files.push_back(FileReport{f.path, now, f.previous, safe_mode(f.previous_mode),
					     cur ? cur->mode : f.mode, false});
	}
	if (!r.errors.empty())
		return finish(r, o, out, err, 2);
	if (already > 0)
		r.notes.push_back(fmt::format(
			"{} of the {} file(s) of transaction {} already hold their previous content (the change or an "
			"undo was interrupted): nothing to restore there",
			already, t->files.size(), t->id));
	for (const auto &c : t->commands) {
		const bool skip = o.no_initramfs && c.kind == CommandKind::initramfs;
		r.commands.push_back(CommandReport{c, skip ? CommandState::skipped : CommandState::planned, 0, {}});
		if (skip)
			r.warnings.push_back(
				fmt::format("--no-initramfs: the initramfs is now stale (it holds the undone "
					    "configuration); before rebooting run: {}",
					    shell_words(c.argv)));
	}
	const int done_code = r.warnings.empty() ? 0 : 1;
	if (o.dry_run)
		return finish(r, o, out, err, done_code);
	if (o.require_root && io::process_identity().euid != 0) {
		r.errors.push_back(
			"undoing a boot-configuration change needs root: run it with sudo, or add --dry-run to "
			"see what it would restore and run (nothing is written)");
		return finish(r, o, out, err, 2);
	}
	const RunSettings rs{o.root, o.chroot_commands, o.command_timeout_s};
	const io::DeferSignals defer; // a Ctrl-C stops a generator and rolls back, never half an undo
	if (!write_and_run(w, r, rs)) {
		r.errors.push_back(fmt::format("transaction {} is kept: run 'rdnactl config undo' again", t->id));
		return finish(r, o, out, err, 3);
	}
	std::vector<std::string> tidy;
	remove_leftovers(w, *t, tidy);
	for (const auto &e : tidy)
		r.warnings.push_back(fmt::format("could not remove what the change left: {}", e));
	if (auto e = j.drop(*t)) {
		r.errors.push_back(fmt::format("the files are restored, but the journal entry could not be removed: {}",
					       e->message));
		return finish(r, o, out, err, 3);
	}
	const bool dropin =
		std::any_of(r.files.begin(), r.files.end(), [](const auto &f) { return f.path == kValidateDropin; });
	if (dropin)
		r.notes.push_back(validate_dropin_note(std::any_of(r.files.begin(), r.files.end(), [](const auto &f) {
			return f.path == kValidateDropin && f.after;
		})));
	if (!dropin || r.files.size() > 1)
		r.notes.push_back(
			"module options are read when the module loads: reboot to put the restored ones in effect");
	return finish(r, o, out, err, done_code);
}

} // namespace rdnafix::config
