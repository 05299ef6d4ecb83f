// `rdnactl fix`: applies the boot-configuration remedies of the current
// findings through config::apply_changes and prints the rest as instructions.
#include "commands.hpp"
#include "fix_plan.hpp"
#include "machine_options.hpp"

#include "machine/collect.hpp"

#include "rdnafix_version.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

namespace rdnafix {

namespace {

struct FixArgs {
	app::MachineArgs machine;
	bool dry_run = false, json = false, no_initramfs = false;
};

nlohmann::ordered_json instructions_json(const app::FixPlan &plan)
{
	auto a = nlohmann::ordered_json::array();
	for (const auto &in : plan.instructions)
		a.push_back({{"check", in.check_id},
			     {"subject", in.subject},
			     {"kind", core::to_string(in.kind)},
			     {"instruction", in.text}});
	return a;
}

int run_fix(const FixArgs &args, const std::string &invocation)
{
	auto snap = machine::collect(app::collect_options(args.machine));
	if (snap.nothing_readable) {
		std::fprintf(stderr, "rdnactl fix: %s\n", snap.nothing_readable_reason.c_str());
		return 2;
	}
	auto plan = app::plan_fix(status::evaluate(snap), snap.boot.os.id);
	int rc = 0;
	std::ostringstream applied;
	const bool changes = !plan.modules.empty() || !plan.cmdline.empty();
	if (changes) {
		config::ApplyOptions o;
		o.root = args.machine.root.empty() ? "/" : args.machine.root;
		o.dry_run = args.dry_run;
		o.json = args.json;
		o.no_initramfs = args.no_initramfs;
		o.invocation = invocation;
		rc = config::apply_changes(o, plan.modules, plan.cmdline, args.json ? applied : std::cout, std::cerr);
	}
	if (rc == 0 && !plan.instructions.empty())
		rc = 1;
	if (args.json) {
		nlohmann::ordered_json doc;
		doc["schema_version"] = 1;
		doc["rdnactl_version"] = RDNAFIX_VERSION;
		doc["root"] = args.machine.root.empty() ? "/" : args.machine.root;
		doc["dry_run"] = args.dry_run;
		doc["exit_code"] = rc;
		doc["applied_findings"] = plan.applied_by;
		doc["boot_configuration"] = changes ? nlohmann::ordered_json::parse(applied.str(), nullptr, false)
						    : nlohmann::ordered_json(nullptr);
		doc["instructions"] = instructions_json(plan);
		std::cout << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
	} else {
		if (!changes)
			std::cout << "Boot configuration: nothing to change.\n";
		if (!plan.instructions.empty()) {
			std::cout << "\nWhat rdnactl cannot do for you:\n";
			for (const auto &in : plan.instructions)
				std::cout << fmt::format("  [{}{}] {}\n", in.check_id,
							 in.subject.empty() ? "" : " " + in.subject, in.text);
		}
	}
	return rc;
}

} // namespace

void add_fix_command(CLI::App &app, int *rc)
{
	auto args = std::make_shared<FixArgs>();
	auto *sub = app.add_subcommand(
		"fix", "Apply the boot-configuration fixes that `rdnactl status` finds (module options, kernel "
		       "command line, initramfs) through `rdnactl config`, and print the rest as instructions");
	app::add_machine_options(*sub, args->machine);
	sub->add_flag("--dry-run", args->dry_run,
		      "Print the diff of every file and every command, change nothing (works as any user)");
	sub->add_flag("--json", args->json, "Machine-readable output");
	sub->add_flag("--no-initramfs", args->no_initramfs,
		      "Do not regenerate the initramfs (say what is stale instead)");
	sub->footer("Examples:\n  rdnactl fix --dry-run     what would change\n  sudo rdnactl fix          "
		    "apply, then reboot and run `rdnactl status`\n\nExit codes: 0 applied (or nothing to do), "
		    "1 applied but something is left for you (instructions, reboot),\n2 could not run (usage, "
		    "not root, invalid value), 3 a write or a generator failed (rolled back).\nSee rdnactl(1).");
	sub->callback([args, rc, sub] {
		if (!app::machine_args_ok(args->machine, "fix", rc))
			return;
		std::string inv = "rdnactl fix";
		for (const auto &a : sub->remaining())
			inv += " " + a;
		if (args->dry_run)
			inv += " --dry-run";
		*rc = run_fix(*args, inv);
	});
}

} // namespace rdnafix
