// `config undo`: restore the newest transaction's files, re-run its
// commands, drop it (apply.hpp).
#include "config/apply.hpp"

#include "config/execute.hpp"
#include "config/report.hpp"
#include "config/service_dropin.hpp"
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
			r.errors.push_back(le.message);
			return finish(r, o, out, err, 3);
		}
	}
	Journal j(w);
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
	r.notes.push_back(fmt::format("undoing transaction {} of {} ({})", t->id, t->time, t->invocation));
	for (const auto &f : t->files) {
		io::WriteError e;
		auto cur = w.read(f.path, &e);
		if (!e.message.empty()) {
			r.errors.push_back(e.message);
			continue;
		}
		std::optional<std::string> now = cur ? std::optional(cur->content) : std::nullopt;
		if (now != f.written) {
			r.errors.push_back(fmt::format(
				"{} was changed after transaction {} (by hand or by another program); undo would "
				"discard that change. Put back what rdnactl wrote (the journal has it: {}/{}) or "
				"use 'rdnactl config set/unset' instead",
				f.path, t->id, kJournalDir, t->id));
			continue;
		}
		r.files.push_back(
			FileReport{f.path, now, f.previous, f.previous_mode, cur ? cur->mode : f.mode, false});
	}
	if (!r.errors.empty())
		return finish(r, o, out, err, 2);
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
	if (!write_and_run(w, r, rs)) {
		return finish(r, o, out, err, 3);
	}
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
