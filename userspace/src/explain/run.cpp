// run_explain: read the log, collect the machine (with the environment of
// --pid when given), match, judge, print.  The only file of explain/ that
// does I/O (through io/ and machine/).
#include "explain/run.hpp"

#include "explain/fold.hpp"
#include "explain/judge_support.hpp"
#include "explain/knowledge_load.hpp"
#include "explain/model.hpp"

#include "software/picture.hpp"

#include "io/read_stream.hpp"
#include "io/rootfs.hpp"

#include "machine/interpret.hpp"

#include "core/parse.hpp"
#include "core/proc_stat.hpp"

#include <fmt/ranges.h>
#include <cstdio>
#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>

namespace rdnafix::explain {

namespace {

// No cap on the input: the reader holds a piece and a line, so a log of any length is read to its
// end and its newest lines are judged.
constexpr std::size_t kMaxInput = std::numeric_limits<std::size_t>::max();

// "RDNA-LOG-" and three digits: an id of the catalogue's form (find_id says
// whether it is one).  A hand-written check, not <regex>: GCC 12 at -O1 with
// -fsanitize=address,undefined reports -Wmaybe-uninitialized inside
// std::regex's automaton (a false positive, GCC bug 105616:
// https://gcc.gnu.org/bugzilla/show_bug.cgi?id=105616), which -Werror makes
// fatal in the sanitizer build (tests/fuzz/run.sh).
bool is_log_id_form(std::string_view s)
{
	constexpr std::string_view prefix = "RDNA-LOG-";
	if (s.size() != prefix.size() + 3 || !s.starts_with(prefix))
		return false;
	for (char c : s.substr(prefix.size()))
		if (c < '0' || c > '9')
			return false;
	return true;
}

void print(const std::string &s, bool to_err = false)
{
	std::fwrite(s.data(), 1, s.size(), to_err ? stderr : stdout);
}

int usage_error(const std::string &msg)
{
	print("rdnactl explain: " + msg + "\n", true);
	return 2;
}

// What kind of process PID is, from /proc/PID/stat: "" for an ordinary one.
std::string process_kind(io::RootFs &host, long long pid)
{
	auto text = host.read_bytes(fmt::format("proc/{}/stat", pid), 4096);
	if (!text)
		return "";
	const auto st = core::parse_proc_stat(*text);
	if (!st)
		return "";
	if (st->state == 'Z')
		return fmt::format("a zombie ({}): the process has exited and its parent has not yet collected it, so "
				   "its environment is gone",
				   st->comm);
	if (st->kernel_thread())
		return fmt::format(
			"a kernel thread ({}): kernel threads have no environment and no memory maps of their "
			"own; give the pid of the program that printed the error",
			st->comm);
	if (pid == 1)
		return fmt::format(
			"the init process ({}), the first process of the system, not a program that uses the "
			"GPU; give the pid of the program that printed the error",
			st->comm);
	return "";
}

// The environment of another process, read from /proc/PID/environ.
std::optional<machine::Environment> pid_environment(long long pid, std::string *why,
						    const std::shared_ptr<const core::VarTable> &table)
{
	if (pid <= 0 || pid > 4194304) {
		*why = fmt::format("--pid {}: not a process id (1..4194304)", pid);
		return std::nullopt;
	}
	io::RootFs host("/");
	const std::string kind = process_kind(host, pid);
	const std::string rel = fmt::format("proc/{}/environ", pid);
	auto bytes = host.read_bytes(rel, 4u * 1024 * 1024);
	if (!bytes) {
		const std::string reason = bytes.error().reason();
		*why = fmt::format("cannot read /proc/{}/environ: {}", pid, reason);
		if (!kind.empty())
			*why += fmt::format(" (pid {} is {})", pid, kind);
		else if (reason.find("ermission") != std::string::npos)
			*why += " (another user's process, or one that is not dumpable: run rdnactl as that user or as "
				"root)";
		else if (reason.find("o such file") != std::string::npos ||
			 reason.find("o such process") != std::string::npos)
			*why += " (no such process: it has exited)";
		return std::nullopt;
	}
	if (bytes->empty()) {
		*why = fmt::format("/proc/{}/environ is empty ({})", pid,
				   kind.empty() ? "the process has no environment"
						: fmt::format("pid {} is {}", pid, kind));
		return std::nullopt;
	}
	auto env = machine::build_environment(core::parse_environ(*bytes), fmt::format("pid {}", pid), table);
	if (!kind.empty())
		*why = fmt::format("pid {} is {}", pid, kind);
	return env;
}

int print_catalogue(const knowledge::Base &base, bool json)
{
	if (json) {
		print(render_catalogue_json(base.entries));
		return 0;
	}
	for (const auto &s : base.entries)
		print(fmt::format("{}  {:<11} {:<8} {}\n", s.id, knowledge::word(s.kind), knowledge::word(s.severity),
				  s.title));
	print(fmt::format("{} signatures (rdnactl explain RDNA-LOG-NNN prints one)\n", base.entries.size()));
	return 0;
}

// --check-knowledge FILE: the file parsed on top of the built-in base, its
// entries run against their own examples.
int check_knowledge(const std::string &path, const std::vector<knowledge::SourceText> &builtin)
{
	io::StreamReader in(path, 4u << 20);
	std::string text;
	for (std::string_view piece = in.next(); !piece.empty(); piece = in.next())
		text.append(piece);
	if (!in.error().empty())
		return usage_error(in.error());
	if (in.truncated())
		return usage_error(path + ": larger than 4 MiB: not a knowledge file");
	knowledge::Base base, own;
	std::vector<knowledge::Problem> problems, again; // the file's problems, once
	knowledge::parse(builtin, &base, &again);
	std::string replaced; // ids of the file that replace built-in entries
	knowledge::parse({{path, text}}, &own, &problems);
	for (const auto &e : own.entries)
		if (base.find(e.id))
			replaced += (replaced.empty() ? "" : ", ") + e.id;
	for (const auto &v : own.variables)
		for (const auto &b : base.variables)
			if (b.name == v.name)
				replaced += (replaced.empty() ? "" : ", ") + v.name;
	knowledge::parse({{path, text}}, &base, &again); // the file on top of the built-in base
	const knowledge::Matcher km(base, block_literals());
	for (const auto &p : check_examples(base, km))
		if (p.file == path)
			problems.push_back(p);
	for (const auto &p : problems)
		print(knowledge::to_text(p) + "\n", true);
	// A file of [[variable]] rows only says how many rows are valid.
	const std::size_t nv = own.variables.size();
	const std::string vars = nv ? fmt::format("{} variable{} valid", nv, nv == 1 ? "" : "s") : "";
	const bool only_vars = own.entries.empty() && nv;
	if (!problems.empty()) {
		print(fmt::format("{}: {} problem(s); {}\n", path, problems.size(),
				  only_vars
					  ? vars
					  : fmt::format("{} entr{} valid{}", own.entries.size(),
							own.entries.size() == 1 ? "y" : "ies", nv ? ", " + vars : "")),
		      true);
		return 1;
	}
	std::vector<std::string> parts;
	if (!own.entries.empty() || (!nv && own.known_bad.empty()))
		parts.push_back(fmt::format("{} entr{} valid, each recognises its example", own.entries.size(),
					    own.entries.size() == 1 ? "y" : "ies"));
	if (nv)
		parts.push_back(vars);
	if (!own.known_bad.empty())
		parts.push_back(fmt::format("{} known-bad version entr{} valid", own.known_bad.size(),
					    own.known_bad.size() == 1 ? "y" : "ies"));
	print(fmt::format("{}: {}{}\n", path, fmt::join(parts, "; "),
			  replaced.empty() ? "" : "; replaces built-in " + replaced));
	return 0;
}

} // namespace

int run_explain(const ExplainOptions &opts, const std::vector<knowledge::SourceText> &builtin)
{
	if (!opts.check_knowledge.empty())
		return check_knowledge(opts.check_knowledge, builtin);
	const auto kb = load_knowledge(builtin, opts.overlays);
	for (const auto &n : kb->notes)
		print("rdnactl explain: note: " + n + "\n", true);
	if (opts.list)
		return print_catalogue(kb->base, opts.json);
	if (is_log_id_form(opts.input)) {
		const auto *s = kb->base.find(opts.input);
		if (!s)
			return usage_error(fmt::format("{} is not in the catalogue ({} entries, {} .. {}; rdnactl "
						       "explain --list)",
						       opts.input, kb->base.entries.size(),
						       kb->base.entries.empty() ? "" : kb->base.entries.front().id,
						       kb->base.entries.empty() ? "" : kb->base.entries.back().id));
		print(opts.json ? render_entry_json(*s) : render_entry_text(*s));
		return 0;
	}
	std::string source = opts.input;
	std::optional<io::StreamReader> in;
	std::string_view first; // the first piece: read before anything else, so that an unreadable input stops here
	if (source.empty() && (!io::stdin_is_terminal() || !opts.pid))
		source = "-";
	if (source == "-" && io::stdin_is_terminal() && opts.input.empty())
		return usage_error(
			"no log given: name a FILE, pipe one in (dmesg | rdnactl explain -), or give --pid PID");
	if (!source.empty()) {
		in.emplace(source, kMaxInput);
		first = in->next();
		if (!in->error().empty())
			return usage_error(in->error());
	}

	machine::Snapshot snap = machine::collect(opts.machine);
	if (snap.nothing_readable)
		return usage_error(snap.nothing_readable_reason);
	Report r;
	if (opts.pid) {
		std::string why;
		if (auto env = pid_environment(*opts.pid, &why, opts.machine.variables)) {
			snap.environment = std::move(*env);
			r.context.push_back(
				fmt::format("environment: the one process {} runs with (/proc/{}/environ){}", *opts.pid,
					    *opts.pid, why.empty() ? "" : " — " + why));
		} else {
			r.context.push_back(fmt::format("environment: rdnactl's own — {}", why));
		}
	}
	// The code-object scan (the same as status's), with the environment judged
	// (--pid's when given: its VIRTUAL_ENV, CONDA_PREFIX, PATH, ROCM_PATH).
	std::optional<coverage::Report> scanned;
	if (opts.coverage) {
		software::PictureOptions want;
		want.stack = false;
		want.libload = false;
		scanned = std::move(software::collect(snap, want).coverage);
		r.context.push_back(fmt::format("code objects: {} installation(s) scanned", scanned->installs.size()));
	} else {
		r.context.push_back("code objects: not scanned (--no-coverage)");
	}
	const coverage::Report *cov = scanned ? &*scanned : nullptr;
	const auto facts = detail::machine_facts(snap, cov);
	for (const auto &g : facts.gpus)
		for (const auto &o : g.overrides)
			r.context.push_back(
				fmt::format("{}: {}={}{}", g.label, o.name, o.value,
					    o.verdict ? " (" + std::string(rules::to_string(o.verdict->verdict)) + ")"
					    : o.error.empty() ? ""
							      : " (invalid: " + o.error + ")"));
	if (facts.gpus.empty())
		r.context.push_back("this machine shows no AMD GPU: the log is judged on its own");

	// The log is matched as it is read: memory holds a piece of it, not all of it.
	// Lines with none of the literals the knowledge base needs are counted, never copied (the prefilter).
	const knowledge::Matcher &km = *kb->matcher;
	LogReader reader(
		[&]() -> std::string_view {
			if (!first.empty())
				return std::exchange(first, std::string_view());
			return in ? in->next() : std::string_view();
		},
		[&km](std::string_view raw) { return km.candidate(raw); });
	Matches found = match_lines(reader, km, kKeep, true);
	if (in && !in->error().empty())
		return usage_error(in->error());
	const Log log = reader.summary();
	Report judged = judge(found.matches, snap, cov, kb->base);
	judged.unrecognised = std::move(found.unrecognised);
	judged.unrecognised_count = found.unrecognised_count;
	judged.omitted = std::move(found.omitted);
	judged.input = source.empty() ? "(no log)" : source == "-" ? "standard input" : source;
	judged.lines = reader.lines();
	judged.bytes = log.bytes;
	judged.problems = log.problems;
	if (found.unfolded > 0)
		judged.problems.push_back(
			fmt::format("more than {} distinct matches: the repeats of the {} found after "
				    "those were not recognised (each was counted as a distinct match)",
				    detail::kMaxKeys, found.unfolded));
	judged.context = std::move(r.context);
	print(opts.json ? render_json(judged) : render_text(judged, TextOptions{opts.verbose, opts.style}));
	return judged.errors() > 0 ? 1 : 0;
}

} // namespace rdnafix::explain
