// `rdnactl fix`: applies the boot-configuration remedies of the current
// findings through config::apply_changes and prints the rest as instructions.
#include "commands.hpp"
#include "fix_plan.hpp"
#include "machine_options.hpp"
#include "text_style.hpp"

#include "config/bootloader.hpp"

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
	std::string colour = "auto";
};

// A kernel command line that no boot loader configuration here can take
// (none found, or one rdnactl does not edit): the change becomes an
// instruction for a person, and the rest is still applied.  Returns whether
// it was moved.
bool hand_over_refused_cmdline(const machine::Snapshot &snap, app::FixPlan &plan)
{
	if (plan.cmdline.empty())
		return false;
	const config::Plan bp = config::plan_cmdline(snap, plan.cmdline);
	if (!bp.refusal)
		return false;
	std::string ids;
	for (const auto &id : plan.cmdline_by)
		ids += (ids.empty() ? "" : ", ") + id;
	plan.instructions.insert(plan.instructions.begin(),
				 app::Instruction{ids, "", status::RemedyKind::kernel_param, *bp.refusal});
	std::erase_if(plan.applied_by, [&](const std::string &id) {
		return std::find(plan.cmdline_by.begin(), plan.cmdline_by.end(), id) != plan.cmdline_by.end() &&
		       std::find(plan.modules_by.begin(), plan.modules_by.end(), id) == plan.modules_by.end();
	});
	plan.cmdline.clear();
	return true;
}

// One line per change, before the diffs.
std::string change_lines(const app::FixPlan &plan)
{
	std::string out = fmt::format("Changes ({}):\n", plan.modules.size() + plan.cmdline.size());
	for (const auto &m : plan.modules)
		out += m.value ? fmt::format("  set {}.{}={} (modprobe.d)\n", m.module, m.name, *m.value)
			       : fmt::format("  unset {}.{} (modprobe.d)\n", m.module, m.name);
	for (const auto &c : plan.cmdline)
		out += c.value ? fmt::format("  kernel command line: {}={}\n", c.param, *c.value)
			       : fmt::format("  kernel command line: remove {}\n", c.param);
	return out;
}

// config's report with the lines that are not diff lines wrapped.
std::string styled(const std::string &text, const core::TextStyle &st)
{
	std::string out;
	std::size_t pos = 0;
	while (pos < text.size()) {
		const std::size_t nl = text.find('\n', pos);
		const std::string_view l(text.data() + pos, (nl == std::string::npos ? text.size() : nl) - pos);
		// diff lines (coloured by config already when colour is on) are never wrapped
		const bool diff = l.starts_with("+") || l.starts_with("-") || l.starts_with(" ") ||
				  l.starts_with("@@") || l.starts_with("\033[");
		out += diff ? std::string(l) : core::wrap_text(l, st.width, 2);
		out += '\n';
		if (nl == std::string::npos)
			break;
		pos = nl + 1;
	}
	return out;
}

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
	const bool by_hand = hand_over_refused_cmdline(snap, plan);
	const core::TextStyle st = app::text_style(args.colour, args.json);
	int rc = 0;
	std::ostringstream applied;
	const bool changes = !plan.modules.empty() || !plan.cmdline.empty();
	if (changes) {
		config::ApplyOptions o;
		o.root = args.machine.root.empty() ? "/" : args.machine.root;
		o.dry_run = args.dry_run;
		o.json = args.json;
		o.no_initramfs = args.no_initramfs;
		o.colour = st.colour; // config colours its diff lines
		o.invocation = invocation;
		// A real run streams config's report (a generator can run for minutes); a dry run is styled.
		const bool stream = !args.json && !args.dry_run;
		if (stream)
			std::cout << change_lines(plan) << '\n' << std::flush;
		rc = config::apply_changes(o, plan.modules, plan.cmdline, stream ? std::cout : applied, std::cerr);
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
		std::string out;
		if (changes && args.dry_run)
			out += change_lines(plan) + "\n" + styled(applied.str(), st);
		else if (changes)
			; // streamed above
		else if (by_hand)
			out += "Boot configuration: nothing rdnactl can change here; the kernel command line needs a "
			       "hand edit (below).\n";
		else
			out += "Boot configuration: nothing to change.\n";
		if (!plan.instructions.empty()) {
			out += "\n" + core::paint("What rdnactl cannot do for you:", core::Tone::heading, st.colour) +
			       "\n";
			for (const auto &in : plan.instructions)
				out += core::wrap_text(
					       fmt::format(
						       "  [{}] {}",
						       core::paint(in.check_id +
									   (in.subject.empty() ? "" : " " + in.subject),
								   core::Tone::warn, st.colour),
						       in.text),
					       st.width, 4) +
				       "\n";
		}
		std::cout << out;
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
	app::add_colour_option(*sub, &args->colour);
	sub->footer(
		"Examples:\n  rdnactl fix --dry-run     what would change\n  sudo rdnactl fix          "
		"apply, then reboot and run `rdnactl status`\n\nExit codes: 0 applied (or nothing to do), "
		"1 applied but something is left for you (instructions, reboot; also a kernel command line to edit by "
		"hand\nwhen no boot loader configuration rdnactl can change was found),\n2 could not run (usage, "
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
