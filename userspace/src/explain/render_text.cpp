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

std::string render_entry_text(const knowledge::Entry &s)
{
	namespace kn = knowledge;
	std::string out = fmt::format("{}  {} ({}, {})\n  means: {}\n", s.id, s.title, kn::word(s.kind),
				      kn::word(s.severity), s.meaning);
	for (const auto &c : s.causes) // the general causes first, then those a machine fact selects
		if (c.when == kn::Condition::always)
			out += fmt::format("  cause: {}\n", c.text);
	for (const auto &c : s.causes)
		if (c.when != kn::Condition::always)
			out += fmt::format("  cause when {}: {}\n", kn::word(c.when), c.text);
	out += fmt::format("  fix:   {}\n", s.fix);
	for (const auto &src : s.sources)
		out += fmt::format("  source: {}\n", src);
	return out;
}

namespace {

core::Tone tone_of(Severity v)
{
	return v == Severity::error ? core::Tone::error : v == Severity::warning ? core::Tone::warn : core::Tone::info;
}

// "RDNA-LOG-008  GPU ring gfx_0.0.0 timed out — line 1-3, 2 times": the
// match's one line, in the summary and as the head of its details.
std::string headline(const Explanation &e, bool colour)
{
	const auto &s = *e.match.entry;
	return fmt::format("{}  {}{} — line {}{}{}", core::paint(s.id, tone_of(s.severity), colour),
			   knowledge::substitute(s.title, e.facts),
			   s.severity == Severity::error ? "" : fmt::format(" ({})", knowledge::word(s.severity)),
			   e.match.first_line,
			   e.match.last_line != e.match.first_line ? fmt::format("-{}", e.match.last_line) : "",
			   e.match.count > 1 ? fmt::format(", {} times", e.match.count) : "");
}

} // namespace

std::string render_text(const Report &r, const TextOptions &t)
{
	const bool colour = t.style.colour;
	std::string out;
	// The log, its name and what was decoded from it are machine text: control
	// characters in them are escaped (core::terminal_safe); quoted log lines
	// show their tabs as spaces (core::terminal_safe_quoted).
	out += fmt::format("rdnactl explain: {} ({} lines, {} bytes)\n", core::terminal_safe(r.input), r.lines,
			   r.bytes);
	for (const auto &p : r.problems)
		out += fmt::format("note: {}\n", core::terminal_safe(p));
	for (const auto &c : r.context)
		out += fmt::format("context: {}\n", core::terminal_safe(c));
	if (r.explanations.empty() && r.omitted.empty()) {
		out += "\nNo known failure signature found (rdnactl explain --list shows the catalogue).\n";
		if (!r.unrecognised.empty()) {
			out += fmt::format("Lines that look like errors ({} in all):\n", r.unrecognised_count);
			for (const auto &[n, l] : r.unrecognised)
				out += fmt::format("  {:>6} | {}\n", n, core::terminal_safe_quoted(l));
		}
		out += "What rdnactl can still check here: `rdnactl status` (driver, access, variables, kernel log) "
		       "and `rdnactl coverage` (which GPU code is installed).\n"
		       "To teach rdnactl this message: write an entry (KNOWLEDGE FILES in man rdnactl), check it with "
		       "`rdnactl explain --check-knowledge FILE` and put it in /etc/rdnafix/knowledge.d; or report "
		       "the log to the rdnafix project.\n";
		return core::wrap_text(out, t.style.width, 2);
	}
	// One line per match first; the details follow.
	if (r.explanations.size() > 1) {
		out += "\n" + core::paint("Found", core::Tone::heading, colour) + "\n";
		for (const auto &e : r.explanations)
			out += "  " + headline(e, colour) + "\n";
	}
	std::size_t sources = 0;
	for (const auto &e : r.explanations) {
		const auto &s = *e.match.entry;
		out += "\n" + headline(e, colour) + "\n";
		for (const auto &l : e.match.excerpt)
			out += fmt::format("  | {}\n", core::terminal_safe_quoted(l));
		out += fmt::format("  means: {}\n", knowledge::substitute(s.meaning, e.facts));
		block(out, "decoded", e.decoded);
		block(out, "usual causes", e.causes);
		block(out, "on this machine", e.here);
		out += fmt::format("  fix: {}\n", knowledge::substitute(s.fix, e.facts));
		block(out, "on this machine, do", e.fix);
		sources += s.sources.size();
		if (t.verbose)
			for (const auto &src : s.sources)
				out += fmt::format("  source: {}\n", src);
	}
	for (const auto &o : r.omitted) {
		const auto &s = *o.entry;
		out += fmt::format("\n{}  {}: {} more distinct match(es) ({} times in the log) between the first {} "
				   "and the last {} shown: counted, not explained\n",
				   core::paint(s.id, tone_of(s.severity), colour), s.title, o.matches, o.occurrences,
				   kKeep, kKeep);
	}
	if (!t.verbose && sources > 0)
		out += fmt::format("\n{} source(s) not shown: rdnactl explain --verbose, or rdnactl explain "
				   "RDNA-LOG-NNN for one entry\n",
				   sources);
	out += fmt::format("\n{} known failure(s), {} harmless message(s) or warning(s)\n", r.errors(), r.harmless());
	return core::wrap_text(out, t.style.width, 2);
}

} // namespace rdnafix::explain
