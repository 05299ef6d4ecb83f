// `rdnactl explain` as text: per match what it is, what it means, the
// decoded facts, the likely cause on this machine and the fix.
#include "explain/model.hpp"

#include "core/text_safe.hpp"

#include <fmt/format.h>

namespace rdnafix::explain {

namespace {

void block(std::string &out, std::string_view title, const std::vector<std::string> &lines)
{
	if (lines.empty())
		return;
	out += fmt::format("  {}:\n", title);
	for (const auto &l : lines)
		out += fmt::format("    - {}\n", core::terminal_safe(l));
}

} // namespace

std::string render_entry_text(const SignatureInfo &s)
{
	return fmt::format("{}  {}{}\n  signature: {}\n  meaning:   {}\n  cause:     {}\n  fix:       {}\n  source:    "
			   "{}\n",
			   s.id, s.title, s.severity == Severity::harmless ? " (harmless)" : "", s.signature, s.meaning,
			   s.cause, s.fix, s.source);
}

std::string render_text(const Report &r)
{
	std::string out;
	// The log, its name and what was decoded from it are machine text: control
	// characters in them are escaped (core::terminal_safe).
	out += fmt::format("rdnactl explain: {} ({} lines, {} bytes)\n", core::terminal_safe(r.input), r.lines,
			   r.bytes);
	for (const auto &p : r.problems)
		out += fmt::format("note: {}\n", core::terminal_safe(p));
	for (const auto &c : r.context)
		out += fmt::format("context: {}\n", core::terminal_safe(c));
	if (r.explanations.empty()) {
		out += "\nNo known failure signature found (rdnactl explain --list shows the catalogue).\n";
		return out;
	}
	for (const auto &e : r.explanations) {
		const auto &s = info(e.match.sig);
		out += fmt::format("\n{}  {}{} — line {}{}{}\n", s.id, s.title,
				   s.severity == Severity::harmless ? " (harmless)" : "", e.match.first_line,
				   e.match.last_line != e.match.first_line ? fmt::format("-{}", e.match.last_line) : "",
				   e.match.count > 1 ? fmt::format(", {} times", e.match.count) : "");
		for (const auto &l : e.match.excerpt)
			out += fmt::format("  | {}\n", core::terminal_safe(l));
		out += fmt::format("  means: {}\n", s.meaning);
		block(out, "decoded", e.decoded);
		block(out, "on this machine", e.here);
		if (e.fix.empty())
			out += fmt::format("  fix: {}\n", s.fix);
		else
			block(out, "fix", e.fix);
		out += fmt::format("  source: {}\n", s.source);
	}
	for (const auto &o : r.omitted) {
		const auto &s = info(o.sig);
		out += fmt::format("\n{}  {}: {} more distinct match(es) ({} times in the log) between the first {} "
				   "and the last {} shown: counted, not explained\n",
				   s.id, s.title, o.matches, o.occurrences, kKeep, kKeep);
	}
	out += fmt::format("\n{} known failure(s), {} harmless message(s)\n", r.errors(), r.harmless());
	return out;
}

} // namespace rdnafix::explain
