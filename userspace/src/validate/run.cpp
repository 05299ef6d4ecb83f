// `rdnactl validate`: orchestration.  The decisions live in the pure parts
// (each kind's judge in cases/, classify_child, render, find_regressions);
// this file wires them to the case runner (worker.hpp: one worker process,
// per-case deadlines, output and kernel log), the history store and stdout.
#include "run.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string_view>

#include <unistd.h>

#include <fmt/format.h>

#include "cases/kinds.hpp"
#include "history/history.hpp"
#include "io/child_runner.hpp"
#include "isolation.hpp"
#include "machine_info.hpp"
#include "protocol.hpp"
#include "rdnafix_version.hpp"
#include "render.hpp"
#include "run_report.hpp"
#include "worker.hpp"

namespace rdnafix::validate {

namespace {

std::string utc_now_iso()
{
	const std::time_t t = std::time(nullptr);
	std::tm tm{};
	::gmtime_r(&t, &tm);
	char buf[32];
	std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

int list_cases(bool json)
{
	if (json) {
		std::cout << json_text(render_list_json());
		return 0;
	}
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

// Probes the GPU runtime in the case worker (loading it may crash or hang) and
// records what it found in `run`; nullopt when the GPU cases can run, else the exit code.
std::optional<int> probe_gpu(const ValidateOptions &o, RunInfo &run, CaseRunner &runner, const StackCheck &stack)
{
	const double timeout_s = std::min(o.timeout, 120.0);
	const auto out = runner.probe(ProbeRequest{o.api}, timeout_s);
	std::optional<ProbeReply> reply;
	if (out.exited && out.exit_code == 0) {
		try {
			reply = nlohmann::json::parse(out.result).get<ProbeReply>();
		} catch (const std::exception &) {
		}
	}
	if (!reply) {
		const auto r = classify_child("probe", out, timeout_s, "the probe process");
		return report_not_run(o, run, "probe_failed", "probing the GPU runtime failed: " + r.reason,
				      out.output_tail, stack);
	}
	if (reply->state != ProbeReply::State::ok)
		return report_not_run(o, run, probe_state_name(reply->state), "cannot run the GPU cases.",
				      reply->report, stack);
	run.device = reply->device;
	run.api = reply->api;
	run.runtime_version = reply->runtime_version;
	run.driver_version = reply->driver_version;
	if (!o.json && !o.brief)
		std::cout << reply->report << "\n";
	return std::nullopt;
}

} // namespace

std::string history_path(const std::string &opt)
{
	if (!opt.empty())
		return opt;
	return default_history_path(::geteuid(), std::getenv("XDG_STATE_HOME"), std::getenv("HOME"));
}

int run_validate(const ValidateOptions &o)
{
	if (o.list)
		return list_cases(o.json);

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

	const RunMachineInfo facts = read_run_machine_info();
	RunInfo run;
	run.started_at = utc_now_iso();
	run.kernel_release = facts.kernel_release;
	run.amdgpu_params = facts.amdgpu_params;
	run.rdnafix_params = facts.rdnafix_params;
	run.devices = facts.devices;
	run.stack = facts.stack;
	run.rdnactl_version = RDNAFIX_VERSION;
	if (!o.cases.empty()) {
		for (const auto &n : o.cases)
			run.selection += (run.selection.empty() ? "" : ",") + n;
	} else {
		run.selection = std::string(o.full ? "full" : "quick") + (o.torch ? "+torch" : "");
	}

	// The stack before the GPU runtime is touched: an unchanged one costs no probe.
	StackCheck stack;
	if (o.if_stack_changed || o.brief)
		stack = load_stack_check(o, run.stack);
	if (o.if_stack_changed && stack.same) {
		if (o.json)
			std::cout << json_text(nlohmann::ordered_json{{"schema_version", 1},
								      {"rdnactl_version", RDNAFIX_VERSION},
								      {"exit_code", 0},
								      {"stack_unchanged",
								       {{"since_run", stack.last->id},
									{"since", stack.last->info.started_at},
									{"stack_key", run.stack.key()}}}});
		else
			std::cout << unchanged_line(*stack.last) << std::endl;
		return 0;
	}

	bool gpu = false;
	for (const auto *c : cases)
		gpu = gpu || needs_gpu(c->kind);
	CaseRunner runner(o, io::self_exe());
	if (gpu)
		if (const auto rc = probe_gpu(o, run, runner, stack))
			return *rc;

	// the progress line rewrites itself with \r and an erase sequence: only on a
	// terminal that understands it
	const char *term = std::getenv("TERM");
	const bool tty = !o.json && ::isatty(STDERR_FILENO) && !(term && std::string_view(term) == "dumb");
	std::vector<CaseResult> results;
	for (std::size_t i = 0; i < cases.size(); ++i) {
		if (tty)
			std::cerr << progress_line(i, cases.size(), cases[i]->name) << std::flush;
		results.push_back(runner.run(*cases[i]));
	}
	runner.stop();
	if (tty)
		std::cerr << "\r\033[K" << std::flush;

	return finish_validate(o, run, results, stack);
}

} // namespace rdnafix::validate
