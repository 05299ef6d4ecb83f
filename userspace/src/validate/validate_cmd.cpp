// `rdnactl validate` and `rdnactl history`: option parsing and orchestration.
// The decisions live in the pure modules (compare, isolation classify, report,
// history find_regressions); this file wires them to processes, files and stdout.
#include "commands.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include <unistd.h>

#include <fmt/format.h>

#include "cases.hpp"
#include "child.hpp"
#include "history.hpp"
#include "isolation.hpp"
#include "kmsg.hpp"
#include "report.hpp"
#include "rdnafix_version.hpp"
#include "sysinfo.hpp"
#include "torch_case.hpp"

namespace rdnafix {

namespace {

using namespace rdnafix::validate;

struct ValidateOptions {
	bool quick = false, full = false, list = false, json = false, inject = false, torch = false;
	bool no_history = false;
	std::vector<std::string> cases;
	double timeout = 120, grace = 5, capacity_fraction = 0.5;
	std::string history_db, api;
	int device = 0;
	// hidden
	std::string child_case;
	bool child_probe = false;
};

std::string find_in_path(const std::string &prog)
{
	const char *path = std::getenv("PATH");
	std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
	std::size_t start = 0;
	while (start <= p.size()) {
		const auto end = p.find(':', start);
		const std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
		const std::string cand = (dir.empty() ? "." : dir) + "/" + prog;
		if (::access(cand.c_str(), X_OK) == 0)
			return cand;
		if (end == std::string::npos)
			break;
		start = end + 1;
	}
	return {};
}

std::string history_path(const std::string &opt)
{
	if (!opt.empty())
		return opt;
	return default_history_path(::geteuid(), std::getenv("XDG_STATE_HOME"), std::getenv("HOME"));
}

int list_cases()
{
	for (const auto &c : all_cases()) {
		if (c.hidden)
			continue;
		const char *set = c.kind == CaseKind::torch ? "--torch" : c.quick ? "quick" : "full";
		std::cout << fmt::format("{:<46} {:<8} {}\n", c.name, set, c.origin);
		if (c.kind == CaseKind::conv2d)
			std::cout << fmt::format("{:<46} {:<8}   {} {}\n", "", "", c.shape.describe(),
						 dtype_name(c.dtype));
	}
	return 0;
}

bool needs_gpu(const CaseDef &c)
{
	return c.kind == CaseKind::conv2d || c.kind == CaseKind::stream || c.kind == CaseKind::capacity ||
	       c.kind == CaseKind::transfers;
}

CaseResult run_one(const CaseDef &c, const ValidateOptions &o)
{
	ChildSpec spec;
	spec.timeout_s = o.timeout;
	spec.grace_s = o.grace;
	if (c.kind == CaseKind::torch) {
		spec.exe = find_in_path("python3");
		if (spec.exe.empty()) {
			CaseResult r;
			r.name = c.name;
			r.status = Status::skip;
			r.reason = "python3 not found in PATH";
			return r;
		}
		spec.args = torch_args(o.inject);
	} else {
		spec.exe = self_exe();
		spec.args = {"validate",
			     "--child-case",
			     c.name,
			     "--capacity-fraction",
			     fmt::format("{}", o.capacity_fraction),
			     "--device",
			     std::to_string(o.device)};
		if (o.inject)
			spec.args.push_back("--inject-error");
		if (!o.api.empty())
			spec.args.insert(spec.args.end(), {"--api", o.api});
	}
	KmsgWatch watch;
	const ChildOutcome out = run_child(spec);
	CaseResult r = classify_child(c.name, out, o.timeout);
	if (c.kind == CaseKind::torch)
		r = judge_torch(r);
	std::vector<std::string> lines;
	for (auto &rec : watch.read_new())
		lines.push_back(std::move(rec.message));
	r.kernel_log = extract_events(lines);
	if (!watch.note().empty())
		r.kernel_log_note = watch.note();
	return r;
}

int run_validate(const ValidateOptions &o)
{
	if (!o.child_case.empty()) {
		const CaseDef *c = find_case(o.child_case);
		if (!c) {
			std::fprintf(stderr, "rdnactl validate: unknown case '%s'\n", o.child_case.c_str());
			return 2;
		}
		ChildOptions co{o.inject, o.capacity_fraction, o.device, o.api};
		return run_child_case(*c, co);
	}
	if (o.child_probe)
		return run_child_probe(o.api);
	if (o.list)
		return list_cases();

	std::vector<const CaseDef *> cases;
	try {
		cases = o.cases.empty() ? select_cases(o.full ? Selection::full : Selection::quick)
					: select_named(o.cases);
	} catch (const std::invalid_argument &e) {
		std::fprintf(stderr, "rdnactl validate: %s\n", e.what());
		return 2;
	}
	if (o.torch && o.cases.empty())
		cases.push_back(find_case("torch.conv2d"));

	RunInfo run;
	run.started_at = utc_now_iso();
	run.kernel_release = kernel_release();
	run.amdgpu_params = read_module_params("/sys/module/amdgpu/parameters");
	run.rdnafix_params = read_module_params("/sys/module/rdnafix/parameters");
	run.rdnactl_version = RDNAFIX_VERSION;
	if (!o.cases.empty()) {
		for (const auto &n : o.cases)
			run.selection += (run.selection.empty() ? "" : ",") + n;
	} else {
		run.selection = std::string(o.full ? "full" : "quick") + (o.torch ? "+torch" : "");
	}

	bool gpu = false;
	for (const auto *c : cases)
		gpu = gpu || needs_gpu(*c);
	if (gpu) {
		// The probe loads the vendor runtime: do it in a child too.
		ChildSpec spec{self_exe(), {"validate", "--child-probe"}, std::min(o.timeout, 120.0), o.grace};
		if (!o.api.empty())
			spec.args.insert(spec.args.end(), {"--api", o.api});
		const auto out = run_child(spec);
		nlohmann::json probe = nlohmann::json::parse(out.result, nullptr, false);
		if (!out.exited || out.exit_code != 0 || !probe.is_object() || !probe.contains("state")) {
			const auto r = classify_child("probe", out, spec.timeout_s);
			std::fprintf(stderr, "rdnactl validate: probing the GPU runtime failed: %s\n%s",
				     r.reason.c_str(), out.output_tail.c_str());
			return 2;
		}
		if (probe.value("state", "") != "ok") {
			std::fprintf(stderr, "rdnactl validate: cannot run the GPU cases.\n%s\n",
				     probe.value("report", std::string("(no report)")).c_str());
			return 2;
		}
		run.device = probe.value("device", "");
		run.api = probe.value("api", "");
		run.runtime_version = probe.value("runtime_version", "");
		run.driver_version = probe.value("driver_version", "");
		if (!o.json)
			std::cout << probe.value("report", "") << "\n";
	}

	const bool tty = !o.json && ::isatty(STDERR_FILENO);
	std::vector<CaseResult> results;
	for (std::size_t i = 0; i < cases.size(); ++i) {
		if (tty)
			std::cerr << progress_line(i, cases.size(), cases[i]->name) << std::flush;
		results.push_back(run_one(*cases[i], o));
	}
	if (tty)
		std::cerr << "\r\033[K" << std::flush;

	std::string history_msg;
	if (!o.no_history) {
		const std::string path = history_path(o.history_db);
		try {
			if (path.empty())
				throw std::runtime_error(
					"no history location: neither $XDG_STATE_HOME nor $HOME is set "
					"(use --history-db PATH)");
			const auto dir = std::filesystem::path(path).parent_path();
			if (!dir.empty())
				std::filesystem::create_directories(dir);
			History h(path);
			const auto id = h.record(run, results);
			history_msg = fmt::format("recorded as run {} in {}", id, path);
		} catch (const std::exception &e) {
			std::fprintf(stderr, "rdnactl validate: warning: history not recorded: %s\n", e.what());
		}
	}
	if (o.json) {
		auto j = results_json(run, results);
		std::cout << j.dump(2) << "\n";
	} else {
		std::cout << format_table(results) << format_findings(results);
		if (!history_msg.empty())
			std::cout << history_msg << "\n";
	}
	return exit_code_for(results);
}

struct HistoryOptions {
	bool json = false;
	std::string history_db;
	double threshold = 0.10;
};

int run_history(const HistoryOptions &o)
{
	const std::string path = history_path(o.history_db);
	if (path.empty()) {
		std::fprintf(stderr, "rdnactl history: no history location: neither $XDG_STATE_HOME nor $HOME is set "
				     "(use --history-db PATH)\n");
		return 2;
	}
	if (!std::filesystem::exists(path)) {
		if (o.json)
			std::cout << history_json({}, {}).dump(2) << "\n";
		else
			std::cout << fmt::format("no validation history at {} (rdnactl validate records one)\n", path);
		return 0;
	}
	try {
		History h(path);
		const auto runs = h.runs();
		const auto regs = find_regressions(runs, o.threshold);
		if (o.json)
			std::cout << history_json(runs, regs).dump(2) << "\n";
		else
			std::cout << format_history(runs, regs);
		return regs.empty() ? 0 : 1;
	} catch (const std::exception &e) {
		std::fprintf(stderr, "rdnactl history: %s\n", e.what());
		return 2;
	}
}

} // namespace

void add_validate_command(CLI::App &app, int *rc)
{
	auto o = std::make_shared<ValidateOptions>();
	auto *sub = app.add_subcommand("validate", "Run GPU conv2d validation against a CPU reference, each case "
						   "in a watched child process");
	auto *quick = sub->add_flag("--quick", o->quick, "Run the quick set (default)");
	auto *full = sub->add_flag("--full", o->full, "Run every case");
	quick->excludes(full);
	auto *cs = sub->add_option("--case", o->cases, "Run only this case (repeatable; --list shows the names)");
	cs->excludes(quick)->excludes(full);
	sub->add_flag("--list", o->list, "List the cases and exit");
	sub->add_flag("--json", o->json, "Print the results as JSON");
	sub->add_option("--timeout", o->timeout, "Seconds a case may run before SIGTERM (default 120)")
		->check(CLI::Range(0.1, 86400.0));
	sub->add_option("--kill-grace", o->grace, "Seconds between SIGTERM and SIGKILL (default 5)")
		->check(CLI::Range(0.0, 3600.0));
	sub->add_flag("--inject-error", o->inject, "Corrupt one output element of every conv2d case (must fail)");
	sub->add_flag("--torch", o->torch, "Also run PyTorch F.conv2d on the GPU vs the CPU in a child python3");
	sub->add_option("--capacity-fraction", o->capacity_fraction,
			"Fraction of the reported device memory the capacity case allocates (0.01..0.95, default 0.5)")
		->check(CLI::Range(0.01, 0.95));
	sub->add_option("--history-db", o->history_db,
			"History database (default: /var/lib/rdnafix/history.db "
			"for root, else $XDG_STATE_HOME/rdnafix/history.db)");
	sub->add_flag("--no-history", o->no_history, "Do not record this run");
	sub->add_option("--device", o->device, "Device index (default 0)")->check(CLI::Range(0, 63));
	sub->add_option("--api", o->api, "GPU runtime: hip or cuda (default: HIP, then CUDA)")
		->check(CLI::IsMember({"hip", "cuda"}));
	sub->add_option("--child-case", o->child_case, "internal: run one case in this process")->group("");
	sub->add_flag("--child-probe", o->child_probe, "internal: probe the GPU runtime in this process")->group("");
	sub->callback([o, rc] { *rc = run_validate(*o); });
}

void add_history_command(CLI::App &app, int *rc)
{
	auto o = std::make_shared<HistoryOptions>();
	auto *sub = app.add_subcommand("history", "List validation runs and flag regressions between kernel releases");
	sub->add_flag("--json", o->json, "Print as JSON");
	sub->add_option("--history-db", o->history_db, "History database (default as for validate)");
	sub->add_option("--threshold", o->threshold, "Throughput drop that counts as a regression (default 0.10)")
		->check(CLI::Range(0.0, 1.0));
	sub->callback([o, rc] { *rc = run_history(*o); });
}

} // namespace rdnafix
