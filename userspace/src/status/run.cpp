// run_status / run_env: collect, evaluate, render, print; the exit code.
#include "status/status.hpp"

#include "model.hpp"
#include "render.hpp"

#include "coverage/scan.hpp"

#include "io/process.hpp"
#include "io/rootfs.hpp"

#include <cstdio>

namespace rdnafix::status {

namespace {

bool want_colour(ColourMode mode)
{
	if (mode == ColourMode::always)
		return true;
	if (mode == ColourMode::never)
		return false;
	auto nc = io::env_value("NO_COLOR");
	if (nc && !nc->empty())
		return false;
	return io::stdout_is_terminal();
}

void print(const std::string &out)
{
	std::fwrite(out.data(), 1, out.size(), stdout);
}

} // namespace

int run_status(const StatusOptions &opts)
{
	auto snap = machine::collect(opts.machine);
	auto verdicts = assess(snap);
	if (opts.coverage && !snap.nothing_readable) {
		io::RootFs fs(opts.machine.root);
		verdicts.coverage = coverage::scan(fs, snap, {});
	}
	auto findings = snap.nothing_readable ? std::vector<Finding>{} : evaluate(snap, verdicts);
	if (opts.json) {
		print(to_json(snap, verdicts, findings).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
		std::fputc('\n', stdout);
	} else {
		print(render_text(snap, verdicts, findings, want_colour(opts.colour)));
	}
	if (snap.nothing_readable) {
		std::fprintf(stderr, "rdnactl status: %s\n", snap.nothing_readable_reason.c_str());
		return 2;
	}
	return exit_code_for(findings);
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
	io::RootFs fs(opts.machine.root);
	verdicts.coverage = coverage::scan(fs, snap, {});
	print(render_env_sudo_note(snap.environment) +
	      render_env(env_changes(evaluate(snap, verdicts), snap.environment), opts.shell));
	return 0;
}

} // namespace rdnafix::status
