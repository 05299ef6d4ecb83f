// `rdnactl status` and `rdnactl env`: option parsing and printing only.
#include "machine/collect.hpp"
#include "commands.hpp"
#include "findings.hpp"
#include "render.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace rdnafix {

namespace {

struct CommonOpts {
	std::string root;
	std::string env_file;
	std::string user;
};

void add_common(CLI::App *sub, CommonOpts &o)
{
	sub->add_option("--root", o.root,
			"Read sys/, proc/, dev/, etc/, lib/modules/, usr/share/ below DIR instead of / "
			"(a captured machine); devices are then read by a plain directory walk, not libudev/libdrm")
		->type_name("DIR");
	sub->add_option("--env", o.env_file, "Audit the KEY=VALUE lines of FILE instead of this process's environment")
		->type_name("FILE");
	sub->add_option("--user", o.user,
			"Judge device access for user NAME (groups from the root's etc/group) instead of this process")
		->type_name("NAME");
}

machine::CollectOptions collect_options(const CommonOpts &o)
{
	machine::CollectOptions c;
	if (!o.root.empty()) {
		c.root = o.root;
		c.live = false;
	}
	if (!o.env_file.empty())
		c.env_file = o.env_file;
	if (!o.user.empty())
		c.user = o.user;
	return c;
}

bool want_colour(const std::string &mode)
{
	if (mode == "always")
		return true;
	if (mode == "never")
		return false;
	const char *nc = std::getenv("NO_COLOR");
	if (nc && *nc)
		return false;
	return ::isatty(STDOUT_FILENO) == 1;
}

constexpr const char *kExitCodes =
	"Exit codes: 0 nothing to warn about (info findings only), 1 at least one warning or error finding, "
	"2 rdnactl could not run (bad arguments, --root unusable, nothing readable).";

} // namespace

void add_status_command(CLI::App &app, int *rc)
{
	auto opts = std::make_shared<CommonOpts>();
	auto json = std::make_shared<bool>(false);
	auto colour = std::make_shared<std::string>("auto");
	auto *sub = app.add_subcommand("status", "Report GPUs, driver, rdnafix module, access and environment, with "
						 "findings (checks: docs/checks.md)");
	add_common(sub, *opts);
	sub->add_flag("--json", *json, "Print JSON (schema_version 1) instead of text");
	sub->add_option("--color", *colour, "Colour the text output: auto (TTY and NO_COLOR unset), always, never")
		->check(CLI::IsMember({"auto", "always", "never"}))
		->type_name("WHEN");
	sub->footer(kExitCodes);
	sub->callback([=] {
		auto snap = machine::collect(collect_options(*opts));
		auto findings = snap.nothing_readable ? std::vector<status::Finding>{} : status::evaluate(snap);
		if (*json) {
			std::string out = status::to_json(snap, findings)
						  .dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
			std::fwrite(out.data(), 1, out.size(), stdout);
			std::fputc('\n', stdout);
		} else {
			std::string out = status::render_text(snap, findings, want_colour(*colour));
			std::fwrite(out.data(), 1, out.size(), stdout);
		}
		if (snap.nothing_readable) {
			std::fprintf(stderr, "rdnactl status: %s\n", snap.nothing_readable_reason.c_str());
			*rc = 2;
			return;
		}
		*rc = status::exit_code_for(findings);
	});
}

void add_env_command(CLI::App &app, int *rc)
{
	auto opts = std::make_shared<CommonOpts>();
	auto shell = std::make_shared<std::string>("sh");
	auto *sub = app.add_subcommand("env", "Print the environment exports that `rdnactl status` recommends, each "
					      "with a one-line comment; nothing when nothing is needed");
	add_common(sub, *opts);
	sub->add_option("--shell", *shell, "Syntax of the output: sh (export/unset) or fish (set -gx/set -e)")
		->check(CLI::IsMember({"sh", "fish"}))
		->type_name("SHELL");
	sub->footer("Exit codes: 0 printed (possibly nothing to set), 2 rdnactl could not run.");
	sub->callback([=] {
		auto snap = machine::collect(collect_options(*opts));
		if (snap.nothing_readable) {
			std::fprintf(stderr, "rdnactl env: %s\n", snap.nothing_readable_reason.c_str());
			*rc = 2;
			return;
		}
		std::string out = status::render_env(status::recommend_env(snap), *shell);
		std::fwrite(out.data(), 1, out.size(), stdout);
		*rc = 0;
	});
}

} // namespace rdnafix
