#pragma once
// What one `config set|unset|undo` (or `fix`) did or would do, as data: the
// transaction runner fills it, render_text.cpp / render_json.cpp print it.
#include "config/conflicts.hpp"
#include "config/journal.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace rdnafix::config {

struct FileReport {
	std::string path;                         // root-relative
	std::optional<std::string> before, after; // nullopt: absent
	unsigned mode = 0644;                     // of `after`
	unsigned before_mode = 0644;              // of `before` (a roll-back writes it back)
	bool done = false;                        // written (or deleted)
};

enum class CommandState { planned, ok, failed, skipped, rerun_ok, rerun_failed };
std::string_view to_string(CommandState s); // "planned", "ok", "failed", "skipped", ...

struct CommandReport {
	JournalCommand command;
	CommandState state = CommandState::planned;
	int exit_code = 0;
	std::string output;     // the tail of stdout+stderr (failed commands)
	int interrupted_by = 0; // the signal to rdnactl that stopped it
};

struct Report {
	std::string action = "apply"; // "apply" | "undo"
	std::string root = "/";
	bool chroot = false; // commands run as `chroot ROOT argv...`
	bool dry_run = false;
	bool colour = false;           // text: the diff lines coloured
	std::vector<FileReport> files; // only files that change
	std::vector<CommandReport> commands;
	std::vector<Conflict> conflicts;
	std::vector<std::string> errors;    // why nothing (or not everything) was done
	std::vector<std::string> warnings;  // needs the user
	std::vector<std::string> notes;     // good to know (reboot, planner notes)
	std::optional<std::string> refusal; // immutable system: the native way
	std::string journal_id;             // the transaction written (or undone)
	bool rolled_back = false;
	bool nothing_to_do = false;
	int exit_code = 0;
};

// Text: errors on `err`, everything else on `out`.  JSON: one object on `out`.
void render_text(const Report &r, std::ostream &out, std::ostream &err);
void render_json(const Report &r, std::ostream &out);
inline void render(const Report &r, bool json, std::ostream &out, std::ostream &err)
{
	if (json)
		render_json(r, out);
	else
		render_text(r, out, err);
}

} // namespace rdnafix::config
