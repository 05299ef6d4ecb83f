// apply_changes(): validate -> owned file + plans -> transaction -> report
// (the sequence and the exit codes are in apply.hpp).
#include "config/apply.hpp"

#include "config/execute.hpp"
#include "config/keys.hpp"
#include "config/owned_file.hpp"
#include "config/report.hpp"
#include "config/service_dropin.hpp"
#include "io/child_spawn.hpp"
#include "io/process.hpp"
#include "machine/collect.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace rdnafix::config {

namespace {

const std::string kOwned(machine::kOwnedModprobe);

machine::Snapshot collect_root(const std::string &root)
{
	machine::CollectOptions c;
	c.root = root;
	c.live = root == "/";
	c.all_amdgpu_params = true;
	return machine::collect(c);
}

// The exit code of a run that did (or, dry, would do) everything.
int outcome(const Report &r)
{
	const bool remains =
		std::any_of(r.conflicts.begin(), r.conflicts.end(), [](const auto &c) { return c.remains; });
	const bool stale = std::any_of(r.commands.begin(), r.commands.end(),
				       [](const auto &c) { return c.state == CommandState::skipped; });
	return remains || stale ? 1 : 0;
}

// Adds `f` to the report when it changes what is on disk (a later change of
// the same path replaces an earlier one).
bool add_file(Report &r, io::RootWriter &w, const FileChange &f)
{
	io::WriteError e;
	auto cur = w.read(f.path, &e);
	if (!e.message.empty()) {
		r.errors.push_back(e.message);
		return false;
	}
	std::optional<std::string> before = cur ? std::optional(cur->content) : std::nullopt;
	r.files.erase(std::remove_if(r.files.begin(), r.files.end(), [&](const auto &x) { return x.path == f.path; }),
		      r.files.end());
	const bool mode_differs = cur && f.content && cur->mode != f.mode;
	if (before != f.content || mode_differs)
		r.files.push_back(FileReport{f.path, before, f.content, f.mode, cur ? cur->mode : 0644u, false});
	return true;
}

void add_plan(Report &r, const Plan &p, CommandKind kind, bool skip)
{
	for (const auto &c : p.commands)
		r.commands.push_back(CommandReport{JournalCommand{c.argv, c.why, kind},
						   skip ? CommandState::skipped : CommandState::planned,
						   0,
						   {}});
	r.notes.insert(r.notes.end(), p.notes.begin(), p.notes.end());
}

bool is_root_user()
{
	return io::process_identity().euid == 0;
}

std::string not_root_message(const ApplyOptions &o)
{
	return fmt::format("changing the boot configuration{} needs root: run it with sudo, or add --dry-run to see "
			   "what it would write and run (nothing is written)",
			   o.root == "/" ? "" : fmt::format(" below {}", o.root));
}

int run_transaction(Report &r, io::RootWriter &w, const ApplyOptions &o, std::ostream &out, std::ostream &err)
{
	// Planned without the lock (a refusal writes nothing, not even the lock
	// file); under it, every file must still be what the plan was made from.
	io::WriteError le;
	io::unique_fd lock = w.lock(kLockFile, &le);
	if (!lock) {
		r.errors.push_back(le.message + " (nothing was written)");
		return finish(r, o, out, err, 2);
	}
	for (const auto &f : r.files) {
		io::WriteError e;
		auto cur = w.read(f.path, &e);
		if ((cur ? std::optional(cur->content) : std::nullopt) != f.before || !e.message.empty()) {
			r.errors.push_back(
				fmt::format("{} changed while rdnactl was planning (another program?); nothing "
					    "was changed: run the command again",
					    f.path));
			return finish(r, o, out, err, 3);
		}
	}
	Transaction t;
	t.invocation = o.invocation;
	for (const auto &f : r.files)
		t.files.push_back(JournalFile{f.path, f.before, f.before_mode, f.after, f.mode});
	for (const auto &c : r.commands)
		t.commands.push_back(c.command);
	// From here a SIGINT/SIGTERM stops the generator and rolls back; a
	// SIGKILL leaves the entry for 'config undo' (undo.cpp).
	const io::DeferSignals defer;
	Journal j(w);
	if (auto e = j.record(t)) {
		r.errors.push_back(fmt::format("{} (nothing was changed)", e->message));
		return finish(r, o, out, err, 3);
	}
	const RunSettings rs{o.root, o.chroot_commands, o.command_timeout_s};
	if (!write_and_run(w, r, rs)) {
		if (std::any_of(r.files.begin(), r.files.end(), [](const auto &f) { return f.done; })) {
			r.errors.push_back(
				fmt::format("transaction {} is kept: 'rdnactl config undo' restores the files "
					    "the roll-back could not",
					    t.id));
			return finish(r, o, out, err, 3);
		}
		remove_leftovers(w, t, r.errors);
		if (auto e = j.drop(t))
			r.errors.push_back(e->message);
		return finish(r, o, out, err, 3);
	}
	r.journal_id = t.id;
	return finish(r, o, out, err, outcome(r));
}

// The owned modprobe.d file, the initramfs and the boot loader for `mods`
// and `cmdline`, into `r`; an exit code when nothing may be written.
std::optional<int> plan_boot(Report &r, io::RootWriter &w, const ApplyOptions &o, const machine::Snapshot &s,
			     const std::vector<ModuleChange> &mods, const std::vector<CmdlineChange> &cmdline,
			     const Planners &p)
{
	io::WriteError re;
	auto cur = w.read(kOwned, &re);
	if (!re.message.empty()) {
		r.errors.push_back(re.message);
		return 2;
	}
	const std::optional<std::string> old_text = cur ? std::optional(cur->content) : std::nullopt;
	const OwnedFile owned = parse_owned(old_text.value_or(""), kOwned);
	for (const auto &f : owned.foreign)
		r.errors.push_back(
			fmt::format("{}:{}: '{}' was not written by rdnactl; rdnactl rewrites this file whole "
				    "and will not drop or keep a line it cannot check: move it to a file of "
				    "your own in /etc/modprobe.d (rdnactl never edits other files) or delete it",
				    kOwned, f.line, f.text));
	if (!r.errors.empty())
		return 2;
	// The whole resulting file is checked: a hand-edited value that stays is refused too.
	const auto values = apply_to(owned.values, mods);
	auto whole = check_module_changes(values, s);
	if (!whole.ok()) {
		for (const auto &e : whole.errors)
			r.errors.push_back(fmt::format("{} (in {}; set or unset it)", e, kOwned));
		return 2;
	}
	if (p.native_way)
		if (auto native = p.native_way(s, modprobe_lines(values), cmdline)) {
			r.refusal = *native;
			return 2;
		}
	const std::optional<std::string> new_text = render_owned(values);
	const bool modprobe_changed = new_text != old_text;
	if (!add_file(r, w, FileChange{kOwned, new_text, 0644}))
		return 2;
	if (modprobe_changed && !owned.comments.empty())
		r.notes.push_back(
			fmt::format("the comments of the hand-edited {} are not kept (the previous version is "
				    "in the journal: 'rdnactl config undo' restores it)",
				    kOwned));
	if (modprobe_changed) {
		const bool want =
			std::any_of(values.begin(), values.end(), [](auto &v) { return v.module == "rdnafix"; });
		if (!p.initramfs) {
			r.errors.push_back("internal error: apply_changes() was given no initramfs planner");
			return 2;
		}
		Plan ip = p.initramfs(s, want, true);
		for (const auto &f : ip.files)
			if (!add_file(r, w, f))
				return 2;
		add_plan(r, ip, CommandKind::initramfs, o.no_initramfs);
		if (o.no_initramfs && !ip.commands.empty())
			for (const auto &c : ip.commands)
				r.warnings.push_back(
					fmt::format("--no-initramfs: the initramfs is now stale (it holds the "
						    "old configuration); before rebooting run: {}",
						    shell_words(c.argv)));
		r.notes.push_back("module options are read when the module loads: reboot to put them in effect");
	}
	if (!cmdline.empty()) {
		if (!p.cmdline) {
			r.errors.push_back("internal error: apply_changes() was given no boot-loader planner");
			return 2;
		}
		Plan bp = p.cmdline(s, cmdline);
		if (bp.refusal) {
			r.refusal = *bp.refusal;
			return 2;
		}
		for (const auto &f : bp.files)
			if (!add_file(r, w, f))
				return 2;
		add_plan(r, bp, CommandKind::bootloader, false);
	}
	std::vector<ModuleChange> unset;
	for (const auto &m : mods)
		if (!m.value)
			unset.push_back(m);
	r.conflicts = find_conflicts(s, values, unset, cmdline);
	return std::nullopt;
}

// validate.user: the name against the root's etc/passwd (errors into `r`).
void check_services(Report &r, const io::RootWriter &w, const std::vector<ServiceChange> &services)
{
	const std::string where =
		w.root() == "/" ? fmt::format("/{}", kPasswdFile) : fmt::format("{}/{}", w.root(), kPasswdFile);
	for (const auto &c : services) {
		if (c.key != kValidateUserKey) {
			r.errors.push_back(
				fmt::format("{} is not a service key rdnactl config manages (validate.user)", c.key));
			continue;
		}
		if (!c.value)
			continue;
		io::WriteError e;
		const auto passwd = w.read(kPasswdFile, &e);
		if (!e.message.empty())
			r.errors.push_back(
				fmt::format("validate.user={}: cannot read {}: {}", *c.value, where, e.message));
		else if (auto bad = check_validate_user(*c.value, passwd ? passwd->content : "", where))
			r.errors.push_back(*bad);
	}
}

// The drop-in of rdnafix-validate.service for `services`, into `r`; an exit
// code when nothing may be written.
std::optional<int> plan_services(Report &r, io::RootWriter &w, const std::vector<ServiceChange> &services)
{
	const std::string path(kValidateDropin);
	io::WriteError e;
	const auto cur = w.read(path, &e);
	if (!e.message.empty()) {
		r.errors.push_back(e.message);
		return 2;
	}
	const std::optional<std::string> old_text = cur ? std::optional(cur->content) : std::nullopt;
	const ValidateDropin d = parse_validate_dropin(old_text.value_or(""));
	for (const auto &f : d.foreign)
		r.errors.push_back(
			fmt::format("{}:{}: '{}' was not written by rdnactl; rdnactl rewrites this file whole "
				    "and will not drop or keep a line it cannot check: put your own settings "
				    "in another drop-in ('systemctl edit {}') or delete the line",
				    path, f.line, f.text, kValidateUnit));
	if (!r.errors.empty())
		return 2;
	std::optional<std::string> user = d.user;
	for (const auto &c : services)
		user = c.value;
	std::vector<std::string> groups;
	if (user) {
		const auto group = w.read(kGroupFile, &e);
		if (!e.message.empty()) {
			r.errors.push_back(e.message);
			return 2;
		}
		groups = device_groups(group ? group->content : "");
	}
	const std::optional<std::string> new_text = render_validate_dropin(user, groups);
	if (!add_file(r, w, FileChange{path, new_text, 0644}))
		return 2;
	if (new_text != old_text) {
		r.notes.push_back(validate_dropin_note(user.has_value()));
		if (!d.comments.empty())
			r.notes.push_back(fmt::format("the comments of the hand-edited {} are not kept (the previous "
						      "version is in the journal: 'rdnactl config undo' restores it)",
						      path));
	}
	return std::nullopt;
}

} // namespace

int apply_changes(const ApplyOptions &o, const std::vector<ModuleChange> &mods,
		  const std::vector<CmdlineChange> &cmdline, std::ostream &out, std::ostream &err)
{
	return apply_changes(o, mods, cmdline, out, err, default_planners());
}

int apply_changes(const ApplyOptions &o, const std::vector<ModuleChange> &mods,
		  const std::vector<CmdlineChange> &cmdline, std::ostream &out, std::ostream &err, const Planners &p)
{
	return apply_changes(o, mods, cmdline, {}, out, err, p);
}

int apply_changes(const ApplyOptions &o, const std::vector<ModuleChange> &mods,
		  const std::vector<CmdlineChange> &cmdline, const std::vector<ServiceChange> &services,
		  std::ostream &out, std::ostream &err, const Planners &p)
{
	Report r = start_report(o, "apply");
	io::RootWriter w(o.root);
	if (w.root_error()) {
		r.errors.push_back(w.root_error()->message);
		return finish(r, o, out, err, 2);
	}
	const machine::Snapshot s = collect_root(o.root);
	if (s.nothing_readable) {
		r.errors.push_back(
			fmt::format("cannot read the system below {}: {}", o.root, s.nothing_readable_reason));
		return finish(r, o, out, err, 2);
	}
	auto checked = check_module_changes(mods, s);
	auto checked_cl = check_cmdline_changes(cmdline, s);
	r.errors = checked.errors;
	r.errors.insert(r.errors.end(), checked_cl.errors.begin(), checked_cl.errors.end());
	r.warnings = checked.warnings;
	r.warnings.insert(r.warnings.end(), checked_cl.warnings.begin(), checked_cl.warnings.end());
	check_services(r, w, services);
	if (!r.errors.empty())
		return finish(r, o, out, err, 2);

	// Checked after the input (a typo is reported to anyone) and before
	// anything is read for the change: nothing below is for a user who
	// cannot write.
	if (!o.dry_run && o.require_root && !is_root_user()) {
		r.errors.push_back(not_root_message(o));
		return finish(r, o, out, err, 2);
	}
	if (!mods.empty() || !cmdline.empty() || services.empty())
		if (const auto rc = plan_boot(r, w, o, s, mods, cmdline, p))
			return finish(r, o, out, err, *rc);
	if (!services.empty())
		if (const auto rc = plan_services(r, w, services))
			return finish(r, o, out, err, *rc);

	if (r.files.empty()) {
		r.nothing_to_do = true;
		r.commands.clear();
		r.notes.clear();
		return finish(r, o, out, err, outcome(r));
	}
	if (o.dry_run)
		return finish(r, o, out, err, outcome(r));
	return run_transaction(r, w, o, out, err);
}

} // namespace rdnafix::config
