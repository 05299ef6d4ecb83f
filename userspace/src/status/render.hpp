#pragma once
// Output: JSON (schema_version 1), text and env lines.  Pure: values in,
// string out.  The renderers are the only place an enum becomes a word, each
// through its one spelling function (to_string / severity_name).
#include "model.hpp"
#include "status/status.hpp"
#include "status/validation.hpp"
#include "select.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rdnafix::status {

inline constexpr int kSchemaVersion = 1;

void to_json(nlohmann::ordered_json &j, const Finding &f);
// `v`: the last validation on this stack (default: none read, "never").
nlohmann::ordered_json to_json(const Snapshot &s, const Assessment &a, const std::vector<Finding> &findings,
			       const LastValidation &v = {});
// Bold section heads and coloured severities when `on` (a terminal, or --color always).
struct TextStyle {
	bool on = false;
	std::string head(const std::string &s) const;
	std::string sev(Severity v, const std::string &s) const;
};
struct TextOptions {
	bool colour = false;
	bool verbose = false; // every fact, the full why with its citations, a pass line per check
	bool quiet = false;   // the header and the findings' summary only
	// Wrap at this many columns (io::output_columns: a terminal or COLUMNS set); nullopt: never.
	std::optional<std::size_t> width;
	CheckSelection selection;              // --only/--skip, for the pass lines
	std::vector<std::string_view> not_run; // areas whose checks did not run (COV with --no-coverage)
};
// The report: the header; the summary block (one line per finding); the
// sections of facts (brief, or all of them with --verbose); the details of
// each finding; with --verbose the pass lines.
std::string render_text(const Snapshot &s, const Assessment &a, const std::vector<Finding> &findings,
			const LastValidation &v, const TextOptions &o);
// The same with --verbose's sections and no wrapping (`colour`: styled).
std::string render_text(const Snapshot &s, const Assessment &a, const std::vector<Finding> &findings,
			const LastValidation &v, bool colour);

// The parts of the findings (render_findings.cpp).  fix_command: the finding's
// fix as one command (its environment remedies as `unset A; export B=1`, else
// the fix text up to its first alternative or comment).
std::string fix_command(const Finding &f);
std::vector<std::string> summary_lines(const std::vector<Finding> &findings, const TextStyle &style);
// What the summary line left out (the rest of the finding, the why -- with
// its source citations only when `verbose` -- and the whole fix when it is
// more than the summary's command).
std::vector<std::string> detail_lines(const std::vector<Finding> &findings, bool verbose);
// "[pass] ID not found: title" for each selected check that did not fire.
std::vector<std::string> pass_lines(const std::vector<Finding> &findings, const CheckSelection &sel,
				    const std::vector<std::string_view> &not_run);
// The rdnafix section's lines for the hooks (render_rdnafix.cpp): each hook's
// state with its calls/missing counters, the build-time evidence, the leaks.
std::vector<std::string> rdnafix_hook_lines(const machine::Rdnafix &r);
// `status --list-checks`: every check id, area, severity and title (text, or JSON with `json`).
std::string render_check_list(bool json);
// The brief sections of facts (render_brief.cpp): what a default report shows.
std::string render_brief(const Snapshot &s, const Assessment &a, const LastValidation &v, const TextStyle &st);

// Prometheus text exposition format 0.0.4 (render_prometheus.cpp; the metrics
// in docs/metrics.md).  `collect_time_s`: when the report was collected.
std::string render_prometheus(const Snapshot &s, const Assessment &a, const std::vector<Finding> &findings,
			      const LastValidation &v, std::int64_t collect_time_s);
// A label value as the exposition format writes it between the quotes:
// core::terminal_safe's spelling (control characters and invalid bytes as
// "\e", "\n", "\x07", "\xff", a backslash as "\\"; one-to-one, so distinct
// raw values stay distinct series), then backslash and double quote escaped.
std::string prometheus_label_value(std::string_view raw);

// "Last validation on this stack" (render_validation.cpp): the one spelling
// of a ValidationResult ("pass", "fail", "not_run", "never", "unreadable"),
// the text section's lines and the `validation` object.
std::string_view to_string(ValidationResult r);
std::vector<std::string> validation_lines(const LastValidation &v);
nlohmann::ordered_json validation_json(const LastValidation &v);

// The Configuration part (render_config.cpp): the `configuration` object and
// the text section's lines.
nlohmann::ordered_json configuration_json(const Snapshot &s, const Assessment &a);
std::vector<std::string> configuration_lines(const Snapshot &s, const Assessment &a);
// The brief form: the settings not in effect, a count of those that are, a
// stale initramfs, the boot loader and Secure Boot when known.
std::vector<std::string> configuration_brief_lines(const Snapshot &s, const Assessment &a);

// The kernel log of this boot (render_kernel_log.cpp): the text section's
// lines and the `kernel_log` object (both only when s.kernel_log.source is set).
std::vector<std::string> kernel_log_lines(const Snapshot &s);
nlohmann::ordered_json kernel_log_json(const Snapshot &s);
// The Code objects part (render_coverage.cpp): the `coverage` object (null
// with --no-coverage) and the text section's lines.
nlohmann::ordered_json coverage_json(const Assessment &a);
std::vector<std::string> coverage_lines(const Assessment &a);

// `rdnactl env`: shell lines.
std::string render_env(const std::vector<Export> &exports, Shell shell);
// One export as a line of `shell` without the newline; "" when the name is
// not a shell variable name (never emitted as code).
std::string export_line(const Export &e, Shell shell);
// `rdnactl env --json` (render_env_json.cpp, docs/schema/env.json).
nlohmann::ordered_json env_json(const Snapshot &s, const Assessment &a, const std::vector<Export> &exports);
// The `judged` array of status's `environment` and of `env --json`: each set
// variable with its verdict and the variables table's row (null: no row).
nlohmann::ordered_json judged_json(const Assessment &a);
// The word of a variable's verdict ("in effect", "slow debug switch", "unknown" ...).
std::string_view verdict_word(VarVerdict v);
// Under sudo: comment lines (valid sh and fish) saying whose environment the
// exports are for and which variables sudo dropped; "" otherwise.
std::string render_env_sudo_note(const machine::Environment &env);

} // namespace rdnafix::status
