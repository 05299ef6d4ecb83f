// The report of `config set|unset|undo` as text: the diff of every file, the
// commands, conflicts, warnings and notes; errors on stderr.
#include "config/diff.hpp"
#include "config/execute.hpp"
#include "config/report.hpp"

#include "core/term_style.hpp"
#include "core/text_safe.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace rdnafix::config {

std::string_view to_string(CommandState s)
{
	switch (s) {
	case CommandState::planned:
		return "planned";
	case CommandState::ok:
		return "ok";
	case CommandState::failed:
		return "failed";
	case CommandState::skipped:
		return "skipped";
	case CommandState::rerun_ok:
		return "rerun-ok";
	case CommandState::rerun_failed:
		return "rerun-failed";
	}
	return "planned";
}

namespace {

// File names, file contents (the diff), commands and messages carry machine
// text: control characters in them are escaped (core::terminal_safe).
std::string safe(std::string_view s)
{
	return core::terminal_safe(s);
}

// Multi-line text (a diff, a generator's output in an error): every control
// character is escaped except the line breaks and tabs, which are the
// layout a reader expects ("\t" in a diff of a tab-indented file is noise).
std::string safe_text(std::string_view s)
{
	std::string o;
	std::size_t pos = 0;
	while (pos <= s.size()) {
		const std::size_t e = s.find_first_of("\n\t", pos);
		o += core::terminal_safe(s.substr(pos, e == std::string_view::npos ? s.npos : e - pos));
		if (e == std::string_view::npos)
			break;
		o += s[e];
		pos = e + 1;
	}
	return o;
}

// A diff is lines: each is escaped, and every line ends with its newline.
std::string safe_lines(std::string_view d)
{
	std::string o = safe_text(d);
	if (!o.empty() && o.back() != '\n')
		o += '\n';
	return o;
}

std::string host_path(const Report &r, const std::string &rel)
{
	if (r.root == "/" || r.root.empty())
		return "/" + rel;
	return r.root + (r.root.back() == '/' ? "" : "/") + rel;
}

std::string command_line(const Report &r, const CommandReport &c)
{
	std::string cmd = shell_words(c.command.argv);
	if (r.chroot)
		cmd = shell_words({"chroot", r.root}) + " " + cmd;
	return cmd;
}

} // namespace

void render_text(const Report &r, std::ostream &out, std::ostream &err)
{
	for (const auto &e : r.errors)
		fmt::print(err, "rdnactl config: error: {}\n", safe_text(e)); // may hold a command's output
	if (r.refusal) {
		fmt::print(out, "Nothing was written.\n{}\n", safe(*r.refusal));
		return;
	}
	if (r.dry_run && r.errors.empty())
		fmt::print(out, "Dry run: nothing is written and nothing is run.\n");
	for (const auto &f : r.files) {
		std::string d = unified_diff(f.path, f.before, f.after);
		if (d.empty() && f.before && f.after)
			d = fmt::format("mode of {} becomes {:04o}\n", f.path, f.mode); // escaped below
		const std::string lines = safe_lines(d);
		for (std::size_t pos = 0; pos < lines.size();) {
			const std::size_t nl = lines.find('\n', pos); // safe_lines ends every line
			out << core::paint_diff_line(std::string_view(lines).substr(pos, nl - pos), r.colour) << '\n';
			pos = nl + 1;
		}
	}
	for (const auto &c : r.commands) {
		const std::string cmd = safe(command_line(r, c));
		switch (c.state) {
		case CommandState::planned:
			fmt::print(out, "{}: {}\n  ({})\n", r.dry_run ? "would run" : "not run", cmd,
				   safe(c.command.why));
			break;
		case CommandState::skipped:
			fmt::print(out, "skipped (--no-initramfs): {}\n", cmd);
			break;
		case CommandState::ok:
			fmt::print(out, "ran: {}\n", cmd);
			break;
		case CommandState::failed:
			fmt::print(out, "FAILED (exit {}): {}\n", c.exit_code, cmd);
			break;
		case CommandState::rerun_ok:
			fmt::print(out, "ran again after the roll-back: {}\n", cmd);
			break;
		case CommandState::rerun_failed:
			fmt::print(out, "FAILED again after the roll-back: {}\n", cmd);
			break;
		}
	}
	for (const auto &c : r.conflicts)
		fmt::print(out, "{}: {}: {}\n", c.remains ? "conflict" : "note", safe(c.key), safe(c.why));
	for (const auto &w : r.warnings)
		fmt::print(out, "warning: {}\n", safe(w));
	for (const auto &n : r.notes)
		fmt::print(out, "note: {}\n", safe(n));
	if (!r.errors.empty()) {
		if (r.rolled_back)
			fmt::print(err, "rdnactl config: every file was put back as it was before; nothing changed.\n");
		return;
	}
	if (r.nothing_to_do) {
		if (r.action == "apply")
			fmt::print(out, "Nothing to do: the configuration already says that.\n");
		return;
	}
	if (r.dry_run)
		return;
	for (const auto &f : r.files)
		fmt::print(out, "{} {}\n",
			   r.action == "undo" ? "restored"
			   : f.after          ? "wrote"
					      : "deleted",
			   safe(host_path(r, f.path)));
	if (r.action == "apply" && !r.journal_id.empty())
		fmt::print(out, "Saved as transaction {} in {}: 'rdnactl config undo' reverts it.\n",
			   safe(r.journal_id), safe(host_path(r, std::string(kJournalDir))));
	if (r.action == "undo")
		fmt::print(out, "Transaction {} is undone.\n", r.journal_id);
}

} // namespace rdnafix::config
