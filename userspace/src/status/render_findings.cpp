// The findings in the text report: the summary block (one line per finding,
// first), the details block (what the summary left out, why, the full fix),
// the pass lines of --verbose, and --list-checks.
#include "render.hpp"
#include "select.hpp"

#include "core/text_safe.hpp"
#include "core/text_wrap.hpp"
#include "rdnafix_version.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

namespace {

std::string subject_part(const Finding &f)
{
	return f.subject.empty() ? "" : " " + f.subject;
}

// The fix text up to its first alternative or comment ("; ", "  #", " (" at depth 0, ", or ").
std::string first_clause(const std::string &fix)
{
	int depth = 0;
	for (std::size_t i = 0; i < fix.size(); ++i) {
		const char c = fix[i];
		if (c == '(')
			++depth;
		else if (c == ')' && depth > 0)
			--depth;
		if (depth > 0)
			continue;
		const std::string_view rest = std::string_view(fix).substr(i);
		if (rest.starts_with("; ") || rest.starts_with("  #") || rest.starts_with(" (") ||
		    rest.starts_with(", or ") || rest.starts_with(" # "))
			return fix.substr(0, i);
	}
	return fix;
}

} // namespace

std::string fix_command(const Finding &f)
{
	// Environment remedies as one shell line: what `rdnactl env` prints.
	std::string unsets, exports;
	bool all_env = !f.remedies.empty();
	for (const auto &r : f.remedies) {
		if (const auto *s = std::get_if<SetEnv>(&r))
			exports += " " + s->name + "=" + core::shell_word(s->value);
		else if (const auto *u = std::get_if<UnsetEnv>(&r))
			unsets += " " + u->name;
		else
			all_env = false;
	}
	if (all_env && (!unsets.empty() || !exports.empty()))
		return (unsets.empty() ? "" : "unset" + unsets) + (unsets.empty() || exports.empty() ? "" : "; ") +
		       (exports.empty() ? "" : "export" + exports);
	return first_clause(f.fix);
}

std::vector<std::string> summary_lines(const std::vector<Finding> &findings, const TextStyle &sev)
{
	std::vector<std::string> out;
	const auto c = summarize(findings);
	if (findings.empty())
		out.push_back(fmt::format("No findings — exit code {}", exit_code_for(findings)));
	else
		out.push_back(fmt::format("Findings: {} error(s), {} warning(s), {} info — exit code {}", c.errors,
					  c.warnings, c.info, exit_code_for(findings)));
	for (const auto &f : findings) {
		const auto head = core::split_headline(f.finding).first;
		const auto cmd = fix_command(f);
		out.push_back("  " + sev.sev(f.severity, fmt::format("[{}]", severity_name(f.severity))) +
			      core::terminal_safe(fmt::format(" {}{}: {}{}", f.id, subject_part(f), head,
							      cmd.empty() ? "" : " → " + cmd)));
	}
	return out;
}

std::vector<std::string> detail_lines(const std::vector<Finding> &findings, bool verbose)
{
	std::vector<std::string> out;
	auto text = [&](const std::string &s) { return verbose ? s : core::strip_citations(s); };
	std::vector<const Finding *> shown; // a why already printed is referred to, not repeated
	for (const auto &f : findings) {
		out.push_back(fmt::format("  {}{}", f.id, subject_part(f)));
		if (auto rest = core::split_headline(f.finding).second; !rest.empty())
			out.push_back("      what: " + text(rest));
		const auto same =
			std::find_if(shown.begin(), shown.end(), [&](const Finding *g) { return g->why == f.why; });
		if (same != shown.end())
			out.push_back(fmt::format("      why: as for {}{} above", (*same)->id, subject_part(**same)));
		else if (!f.why.empty())
			out.push_back("      why: " + text(f.why));
		shown.push_back(&f);
		if (f.fix != fix_command(f))
			out.push_back("      fix: " + f.fix);
	}
	return out;
}

std::vector<std::string> pass_lines(const std::vector<Finding> &findings, const CheckSelection &sel,
				    const std::vector<std::string_view> &not_run)
{
	std::vector<std::string> out;
	for (const auto &c : catalogue()) {
		if (!selected(sel, c.id))
			continue;
		if (std::find(not_run.begin(), not_run.end(), area_of(c.id)) != not_run.end())
			continue;
		bool fired = false;
		for (const auto &f : findings)
			fired = fired || f.id == c.id;
		if (!fired)
			out.push_back(fmt::format("  [pass] {} not found: {}", c.id, c.title));
	}
	return out;
}

std::string render_check_list(bool json)
{
	if (json) {
		nlohmann::ordered_json j;
		j["schema_version"] = kSchemaVersion;
		j["rdnactl_version"] = RDNAFIX_VERSION;
		j["count"] = catalogue().size();
		j["checks"] = nlohmann::ordered_json::array();
		for (const auto &c : catalogue())
			j["checks"].push_back({{"id", c.id},
					       {"area", area_of(c.id)},
					       {"severity", severity_name(c.severity)},
					       {"title", c.title}});
		return j.dump(2) + "\n";
	}
	std::string out = fmt::format("{:<13} {:<5} {:<8} {}\n", "ID", "AREA", "SEVERITY", "TITLE");
	for (const auto &c : catalogue())
		out += fmt::format("{:<13} {:<5} {:<8} {}\n", c.id, area_of(c.id), severity_name(c.severity), c.title);
	return out;
}

} // namespace rdnafix::status
