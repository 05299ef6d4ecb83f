// Writing file sets and running commands for a transaction (execute.hpp).
#include "config/execute.hpp"

#include "io/child_runner.hpp"

#include <cerrno>
#include <csignal>

#include <fmt/format.h>

namespace rdnafix::config {

namespace {

// A PATH that has the sbin directories even when rdnactl was started from a
// user's shell through su: update-initramfs, update-grub and chroot live there.
constexpr const char *kPath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

io::WriteStatus write_one(io::RootWriter &w, const std::string &path, const std::optional<std::string> &content,
			  unsigned mode)
{
	return content ? w.replace(path, *content, mode) : w.remove(path);
}

std::string signal_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT (Ctrl-C)";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	case SIGQUIT:
		return "SIGQUIT";
	}
	return fmt::format("signal {}", sig);
}

bool run_one(CommandReport &c, const RunSettings &rs)
{
	io::ChildSpec spec;
	spec.exe = "/usr/bin/env"; // finds the program on kPath (execvp)
	spec.args = {kPath};
	if (rs.chroot && rs.root != "/") {
		spec.args.emplace_back("chroot");
		spec.args.push_back(rs.root);
	}
	spec.args.insert(spec.args.end(), c.command.argv.begin(), c.command.argv.end());
	spec.timeout_s = rs.timeout_s;
	spec.output_tail_bytes = 16384;
	auto o = io::run_child(spec);
	c.output = o.output_tail;
	if (!o.started) {
		c.exit_code = -1;
		c.output = o.start_error;
	} else if (o.interrupted_by) {
		c.exit_code = -1;
		c.interrupted_by = o.interrupted_by;
		c.output += fmt::format("\n(stopped: rdnactl received {})", signal_name(o.interrupted_by));
	} else if (o.exited) {
		c.exit_code = o.exit_code;
	} else {
		c.exit_code = -1;
		c.output += o.timed_out ? fmt::format("\n(killed after {:.0f} s)", rs.timeout_s)
					: fmt::format("\n(killed by signal {})", o.signal);
	}
	return o.started && !o.interrupted_by && o.exited && o.exit_code == 0;
}

// The error of a transaction stopped by a signal to rdnactl.
std::string interrupted(int sig, std::string_view where)
{
	return fmt::format("rdnactl received {} {}: the change is stopped and rolled back", signal_name(sig), where);
}

} // namespace

std::string shell_words(const std::vector<std::string> &argv)
{
	std::string out;
	for (const auto &a : argv) {
		if (!out.empty())
			out += ' ';
		const bool plain =
			!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
							  "0123456789_-+=./,:@%") == std::string::npos;
		if (plain) {
			out += a;
			continue;
		}
		out += '\'';
		for (char ch : a)
			out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
		out += '\'';
	}
	return out;
}

bool write_files(io::RootWriter &w, std::vector<FileReport> &files, std::vector<std::string> &errors)
{
	for (auto &f : files) {
		if (auto e = write_one(w, f.path, f.after, f.mode)) {
			errors.push_back(e->message);
			restore_files(w, files, errors);
			return false;
		}
		f.done = true;
	}
	return true;
}

bool restore_files(io::RootWriter &w, std::vector<FileReport> &files, std::vector<std::string> &errors)
{
	bool ok = true;
	for (auto &f : files) {
		// A file not yet reached is as it was; the failing one may be
		// half-way (its temp file is never the target), so it is restored too.
		if (auto e = write_one(w, f.path, f.before, f.before_mode)) {
			errors.push_back(fmt::format("roll-back: {}", e->message));
			ok = false;
		} else {
			f.done = false;
		}
	}
	return ok;
}

bool run_commands(std::vector<CommandReport> &commands, const RunSettings &rs, std::vector<std::string> &errors)
{
	for (auto &c : commands) {
		if (c.state == CommandState::skipped)
			continue;
		if (const int sig = io::deferred_signal()) {
			errors.push_back(interrupted(sig, fmt::format("before '{}'", shell_words(c.command.argv))));
			return false;
		}
		if (run_one(c, rs)) {
			c.state = CommandState::ok;
			continue;
		}
		c.state = CommandState::failed;
		if (c.interrupted_by)
			errors.push_back(
				fmt::format("{}; its output:\n{}",
					    interrupted(c.interrupted_by, fmt::format("while '{}' ran (it was killed)",
										      shell_words(c.command.argv))),
					    c.output));
		else
			errors.push_back(fmt::format("'{}' failed (exit {}); its output:\n{}",
						     shell_words(c.command.argv), c.exit_code, c.output));
		return false;
	}
	return true;
}

void rerun_after_rollback(std::vector<CommandReport> &commands, const RunSettings &rs, std::vector<std::string> &errors)
{
	for (auto &c : commands) {
		// The failed (or stopped) one too: it may have left its output half-made.
		if (c.state != CommandState::ok && c.state != CommandState::failed)
			continue;
		if (run_one(c, rs)) {
			c.state = CommandState::rerun_ok;
		} else {
			c.state = CommandState::rerun_failed;
			errors.push_back(
				fmt::format("after the roll-back, '{}' failed too (exit {}): what it generated "
					    "may still hold the new configuration; run it again by hand. Output:\n{}",
					    shell_words(c.command.argv), c.exit_code, c.output));
		}
	}
}

bool write_and_run(io::RootWriter &w, Report &r, const RunSettings &rs)
{
	if (const int sig = io::deferred_signal()) { // while the journal entry was written
		r.errors.push_back(interrupted(sig, "before any file was written"));
		r.rolled_back = true;
		return false;
	}
	bool ok = write_files(w, r.files, r.errors);
	if (ok && io::deferred_signal()) {
		r.errors.push_back(interrupted(io::deferred_signal(), "while writing the files"));
		restore_files(w, r.files, r.errors);
		ok = false;
	} else if (ok && !run_commands(r.commands, rs, r.errors)) {
		ok = false;
		restore_files(w, r.files, r.errors);
		rerun_after_rollback(r.commands, rs, r.errors);
	}
	if (!ok)
		r.rolled_back = true;
	return ok;
}

void remove_leftovers(io::RootWriter &w, const Transaction &t, std::vector<std::string> &errors)
{
	for (const auto &f : t.files) {
		const auto slash = f.path.rfind('/');
		const std::string dir = slash == std::string::npos ? std::string() : f.path.substr(0, slash);
		const std::string prefix = io::temp_prefix(f.path.substr(slash + 1));
		io::WriteError e;
		for (const auto &n : w.list(dir, &e).value_or(std::vector<std::string>{}))
			if (n.starts_with(prefix))
				if (auto re = w.remove(dir + "/" + n))
					errors.push_back(re->message);
		if (!e.message.empty())
			errors.push_back(e.message);
	}
	for (const auto &d : t.created_dirs) { // deepest first
		io::WriteError e, kind;
		auto names = w.list(d, &e);
		// Only a directory itself (read() calls it "not a regular file"), never a link to one.
		const bool real_dir = !w.read(d, &kind) && kind.errno_value == EINVAL;
		if (names && names->empty() && real_dir)
			if (auto re = w.remove_tree(d))
				errors.push_back(re->message);
		if (!e.message.empty())
			errors.push_back(e.message);
	}
}

Report start_report(const ApplyOptions &o, std::string action)
{
	Report r;
	r.action = std::move(action);
	r.root = o.root;
	r.dry_run = o.dry_run;
	r.colour = o.colour && !o.json;
	r.chroot = o.chroot_commands && o.root != "/";
	return r;
}

int finish(Report &r, const ApplyOptions &o, std::ostream &out, std::ostream &err, int code)
{
	r.exit_code = code;
	render(r, o.json, out, err);
	return code;
}

} // namespace rdnafix::config
