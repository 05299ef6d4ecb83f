// run_status / run_env: collect, evaluate, render, print; the exit code.
#include "status/status.hpp"

#include "model.hpp"
#include "render.hpp"

#include "software/picture.hpp"

#include "core/term_style.hpp"

#include "io/atomic_file.hpp"
#include "io/knowledge_dirs.hpp"
#include "io/process.hpp"
#include "io/rootfs.hpp"
#include "io/terminal.hpp"

#include <chrono>
#include <tuple>
#include <cstdio>

namespace rdnafix::status {

namespace {

// The one colour decision of every verb (core::colour_wanted).
bool want_colour(ColourMode mode)
{
	const auto nc = io::env_value("NO_COLOR"), term = io::env_value("TERM");
	return core::colour_wanted(mode == ColourMode::always  ? core::ColourWhen::always
				   : mode == ColourMode::never ? core::ColourWhen::never
							       : core::ColourWhen::automatic,
				   io::stdout_is_terminal(), nc ? std::optional<std::string_view>(*nc) : std::nullopt,
				   term ? std::optional<std::string_view>(*term) : std::nullopt);
}

void print(const std::string &out)
{
	std::fwrite(out.data(), 1, out.size(), stdout);
}

// Writes `content` into `path` through the one atomic writer (io::RootWriter
// on "/": temp file in the same directory, fsync, rename, directory fsync),
// mode 0644.  The directory must exist (the writer would create it).
// Returns the error line, "" when written.
std::string write_output(const std::string &path, const std::string &content)
{
	const std::string abs = io::absolute_path(path);
	const auto slash = abs.rfind('/');
	const std::string dir = abs.substr(0, slash), name = abs.substr(slash + 1);
	if (name.empty() || name == "." || name == "..")
		return "--output " + path + ": names a directory; give a file name (e.g. rdnafix.prom)";
	io::RootWriter w("/");
	io::WriteError err;
	if (!dir.empty()) {
		auto entries = w.list(dir.substr(1), &err);
		if (!entries && err.message.empty())
			return "--output " + path + ": directory " + dir + " does not exist";
		if (!entries)
			return "--output " + path + ": cannot read directory " + dir + ": " + err.reason;
	}
	// The writer names root-relative paths ("tmp/x"); the message names the
	// path as given.
	if (auto e = w.replace(abs.substr(1), content, 0644))
		return "--output " + path + ": cannot write: " + e->reason;
	return "";
}

} // namespace

std::vector<knowledge::KnownBad> load_known_bad(const std::vector<knowledge::SourceText> &builtin, bool overlays)
{
	// Only the files that hold a known_bad table are parsed: the signatures'
	// patterns are explain's business.
	std::vector<knowledge::SourceText> files;
	for (const auto &f : builtin)
		if (f.text.find("[[known_bad]]") != std::string::npos)
			files.push_back(f);
	if (overlays) {
		std::vector<std::string> io_problems; // explain reports the overlays' problems
		for (auto &f : io::read_knowledge_dirs(&io_problems))
			if (f.text.find("[[known_bad]]") != std::string::npos)
				files.push_back({f.path, std::move(f.text)});
	}
	knowledge::Base base;
	std::vector<knowledge::Problem> problems;
	knowledge::parse(files, &base, &problems);
	return base.known_bad;
}

namespace {

struct Rendered {
	std::string out;
	bool nothing_readable = false;
	std::string nothing_readable_reason;
	std::string usage_error; // --only/--skip named no check or area
	int rc = 0;
};

Rendered render(const StatusOptions &opts)
{
	Rendered r;
	if (opts.list_checks) {
		r.out = render_check_list(opts.format == Format::json);
		return r;
	}
	CheckSelection sel;
	for (const auto &[name, list, into] :
	     {std::tuple{"--only", &opts.only, &sel.only}, std::tuple{"--skip", &opts.skip, &sel.skip}}) {
		if (list->empty())
			continue;
		if (auto err = parse_check_list(name, *list, into); !err.empty()) {
			r.usage_error = err;
			r.rc = 2;
			return r;
		}
	}
	auto snap = machine::collect(opts.machine);
	// Nothing readable: the reason once, on stderr; the text report would
	// only repeat the root.  JSON and Prometheus still write their object
	// (exit_code 2, rdnafix_status_success 0) for the programs that read them.
	r.nothing_readable = snap.nothing_readable;
	r.nothing_readable_reason = snap.nothing_readable_reason;
	if (snap.nothing_readable && opts.format == Format::text) {
		r.rc = 2;
		return r;
	}
	auto verdicts = assess(snap);
	// The software picture, once: the coverage scan and the stack.
	software::PictureOptions want;
	want.coverage = opts.coverage;
	auto sw = software::collect(snap, want);
	verdicts.coverage = std::move(sw.coverage);
	if (opts.knowledge && !snap.nothing_readable)
		verdicts.known_bad = load_known_bad(*opts.knowledge, opts.knowledge_overlays);
	verdicts.libload = std::move(sw.libload);
	auto findings = snap.nothing_readable ? std::vector<Finding>{} : select_findings(evaluate(snap, verdicts), sel);
	const auto now =
		std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
			.count();
	LastValidation validation;
	if (!snap.nothing_readable)
		validation = read_last_validation(snap, sw, validation_databases(opts.machine.root));
	if (opts.format == Format::json)
		r.out = to_json(snap, verdicts, findings, validation)
				.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
			"\n";
	else if (opts.format == Format::prometheus)
		r.out = render_prometheus(snap, verdicts, findings, validation, now);
	else {
		TextOptions t;
		t.colour = opts.output.empty() && want_colour(opts.colour);
		t.verbose = opts.verbose;
		t.quiet = opts.quiet;
		// Wrapped only on a terminal or with COLUMNS set; never into a file.
		t.width = opts.output.empty() ? io::output_columns() : std::nullopt;
		t.selection = sel;
		if (!opts.coverage)
			t.not_run.push_back("COV");
		if (verdicts.known_bad.empty())
			t.not_run.push_back("VER");
		r.out = render_text(snap, verdicts, findings, validation, t);
	}
	r.rc = snap.nothing_readable ? 2 : exit_code_for(findings);
	return r;
}

} // namespace

std::string render_status(const StatusOptions &opts, int *rc)
{
	Rendered r = render(opts);
	if (rc)
		*rc = r.rc;
	return std::move(r.out);
}

int run_status(const StatusOptions &opts)
{
	const Rendered r = render(opts);
	if (!r.usage_error.empty()) {
		std::fprintf(stderr, "rdnactl status: %s\n", r.usage_error.c_str());
		return 2;
	}
	if (r.out.empty()) {
		// nothing to write: the reason follows on stderr
	} else if (opts.output.empty()) {
		print(r.out);
	} else if (auto err = write_output(opts.output, r.out); !err.empty()) {
		std::fprintf(stderr, "rdnactl status: %s\n", err.c_str());
		return 2;
	}
	if (r.nothing_readable) {
		std::fprintf(stderr, "rdnactl status: %s\n", r.nothing_readable_reason.c_str());
		return 2;
	}
	return r.rc;
}

int run_env(const EnvOptions &opts)
{
	auto snap = machine::collect(opts.machine);
	if (snap.nothing_readable) {
		std::fprintf(stderr, "rdnactl env: %s\n", snap.nothing_readable_reason.c_str());
		return 2;
	}
	// The same findings as status, coverage included: an override that the
	// installed libraries need (RDNA-COV-002) is exported with its reason.
	auto verdicts = assess(snap);
	software::PictureOptions want;
	want.stack = false;
	auto sw = software::collect(snap, want);
	verdicts.coverage = std::move(sw.coverage);
	verdicts.libload = std::move(sw.libload);
	const auto exports = env_changes(evaluate(snap, verdicts), snap.environment);
	if (opts.json)
		print(env_json(snap, verdicts, exports).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
		      "\n");
	else
		print(render_env_sudo_note(snap.environment) + render_env(exports, opts.shell));
	return 0;
}

} // namespace rdnafix::status
