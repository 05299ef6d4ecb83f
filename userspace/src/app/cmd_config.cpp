// `rdnactl config show|set|unset|undo`: options and help; the callbacks
// forward to config::show_config, config::apply_changes and config::undo_last.
#include "commands.hpp"
#include "machine_options.hpp"
#include "text_style.hpp"

#include "config/apply.hpp"
#include "config/keys.hpp"
#include "config/show.hpp"
#include "core/text_safe.hpp"
#include "io/process.hpp"
#include "machine/collect.hpp"

#include <iostream>
#include <memory>

#include <fmt/format.h>

namespace rdnafix {

namespace {

struct ConfigArgs {
	std::string root;
	bool json = false, dry_run = false, no_initramfs = false, cmdline = false;
	std::string colour = "auto";
	std::vector<std::string> words;
};

constexpr const char *kKeysHelp =
	"Keys (module options, written to /etc/modprobe.d/rdnafix.conf):\n"
	"  rdnafix (also as rdnafix.KEY): noretry=-1|0|1  vm_fragment_size=-1|4..9\n"
	"    mtype_sysmem=, mtype_vram=keep|nc|wc|cc|uc  targets=LIST  exclude=LIST (LIST: comma list of\n"
	"    rdna1, rdna2, gfxNNNN, dgpu, apu, DDDD:BB:DD.F)  dry_run=0|1  strict=0|1\n"
	"  amdgpu.noretry=-1|0|1  amdgpu.vm_fragment_size=-1|4..9  amdgpu.lockup_timeout=MS[,MS,MS,MS]\n"
	"  amdgpu.gttsize=MiB (deprecated: use ttm-limit)\n"
	"  ttm-limit=SIZE (96G, 98304M, bytes): the GPU-mappable system memory of an APU, written as\n"
	"    'options ttm pages_limit=N page_pool_size=N' (amdttm with amdgpu-dkms); at least 1G, at most\n"
	"    RAM minus max(1/8 of RAM, 1 GiB)\n"
	"{}"
	"Service key: validate.user=NAME: the user rdnafix-validate.service runs as (a user of /etc/passwd,\n"
	"not root), written to /etc/systemd/system/rdnafix-validate.service.d/50-rdnactl.conf; unset: the\n"
	"service no longer starts.\n";

// The --cmdline paragraph of kKeysHelp: set takes KEY=VALUE, unset the KEY alone.
constexpr const char *kCmdlineSet =
	"With --cmdline, KEY=VALUE are kernel command-line parameters (amdgpu.*, rdnafix.*, ttm.*, amdttm.*),\n"
	"written through the boot loader; the command line wins over modprobe.d.\n";
constexpr const char *kCmdlineUnset =
	"unset takes each KEY alone (noretry, not noretry=1). With --cmdline, each KEY is a kernel\n"
	"command-line parameter (amdgpu.*, rdnafix.*, ttm.*, amdttm.*), removed through the boot loader.\n";

constexpr const char *kExitCodes =
	"Exit codes: 0 done or nothing to do, 1 done but a conflict keeps a value from taking effect after the\n"
	"reboot (or --no-initramfs left the initramfs stale), 2 nothing written (invalid key or value, foreign\n"
	"lines in the owned file, immutable system, not root, another rdnactl config holds the lock), 3 a write\n"
	"or command failed or SIGINT/SIGTERM stopped it (rolled back).";

config::ApplyOptions apply_options(const ConfigArgs &a, const std::string &verb)
{
	config::ApplyOptions o;
	// Absolute, so that `chroot DIR` and the printed paths do not depend on the working directory.
	o.root = a.root.empty() ? "/" : io::absolute_path(a.root);
	o.dry_run = a.dry_run;
	o.json = a.json;
	o.no_initramfs = a.no_initramfs;
	o.colour = app::text_style(a.colour, a.json).colour;
	o.invocation = "rdnactl config " + verb;
	if (a.cmdline)
		o.invocation += " --cmdline";
	for (const auto &w : a.words)
		o.invocation += " " + w;
	return o;
}

int run_set_or_unset(const ConfigArgs &a, bool set)
{
	config::ApplyOptions o = apply_options(a, set ? "set" : "unset");
	// The words need the machine (RAM, amdgpu-dkms) only for ttm-limit;
	// apply_changes collects it again below the same root.
	machine::CollectOptions c;
	c.root = o.root;
	c.live = o.root == "/";
	const machine::Snapshot s = machine::collect(c);
	auto parsed =
		set ? config::parse_set_words(a.words, a.cmdline, s) : config::parse_unset_words(a.words, a.cmdline, s);
	if (!parsed.errors.empty()) {
		for (const auto &e : parsed.errors)
			std::cerr << "rdnactl config: error: " << core::terminal_safe(e) << "\n"; // the words are input
		std::cerr << "See 'rdnactl config " << (set ? "set" : "unset")
			  << " --help'.\n"; // app::help_trailer's words
		return 2;
	}
	return config::apply_changes(o, parsed.modules, parsed.cmdline, parsed.services, std::cout, std::cerr,
				     config::default_planners());
}

void add_common(CLI::App &sub, ConfigArgs &a, bool writes)
{
	app::add_root_option(sub, a.root,
			     "Act on the system mounted at DIR (a chroot or an image) instead of /: files are read and "
			     "written below DIR only, commands run as 'chroot DIR ...'");
	sub.add_flag("--json", a.json, "Print one JSON object instead of text");
	if (writes) {
		sub.add_flag("--dry-run", a.dry_run,
			     "Print the unified diff of every file and every command, change nothing (any user)");
		sub.add_flag("--no-initramfs", a.no_initramfs,
			     "Do not regenerate the initramfs; say which images are stale (exit 1)");
		app::add_colour_option(sub, &a.colour);
	}
}

} // namespace

void add_config_command(CLI::App &app, int *rc)
{
	auto *cfg = app.add_subcommand("config", "Show and change the boot configuration of rdnafix and amdgpu "
						 "(modprobe.d, initramfs, kernel command line), with undo");
	cfg->require_subcommand(1);
	cfg->footer("Examples:\n"
		    "  rdnactl config show\n"
		    "  sudo rdnactl config set noretry=1 targets=rdna1,rdna2 mtype_sysmem=nc\n"
		    "  sudo rdnactl config set --cmdline amdgpu.noretry=1\n"
		    "  rdnactl config unset --dry-run noretry\n"
		    "  sudo rdnactl config undo\n"
		    "Every change is one transaction in /var/lib/rdnafix/config/journal; 'config undo' reverts the "
		    "newest.");

	auto show = std::make_shared<ConfigArgs>();
	auto *s = cfg->add_subcommand("show", "List every managed key: configured value (file:line), the value the "
					      "next boot will use, and the live value");
	add_common(*s, *show, false);
	s->footer("Example: rdnactl config show --root /mnt\n"
		  "Exit codes: 0 shown, 1 a conflict keeps a configured value from taking effect, 2 the root cannot "
		  "be read.");
	s->callback([show, rc] {
		config::ShowOptions o;
		o.root = show->root.empty() ? "/" : io::absolute_path(show->root);
		o.json = show->json;
		*rc = config::show_config(o, std::cout, std::cerr);
	});

	for (bool set : {true, false}) {
		auto args = std::make_shared<ConfigArgs>();
		auto *sub = cfg->add_subcommand(set ? "set" : "unset",
						set ? "Set module options (or kernel parameters with --cmdline), "
						      "validated by the module's own parser; regenerate the initramfs"
						    : "Remove module options (or kernel parameters with --cmdline); "
						      "regenerate the initramfs");
		add_common(*sub, *args, true);
		sub->add_flag("--cmdline", args->cmdline,
			      set ? "KEY=VALUE are kernel command-line parameters, written through the boot loader"
				  : "KEY names a kernel command-line parameter, removed through the boot loader");
		// CLI11 2.4 and later reject '=' in an option's name (BadNameString when the command line is
		// built, before any parsing): the positional is named SETTING, its help reads KEY=VALUE.
		auto *words = sub->add_option(set ? "SETTING" : "KEY", args->words,
					      set ? "What to set: one or more KEY=VALUE (the keys are below)"
						  : "What to remove");
		words->required();
		if (set)
			words->type_name("KEY=VALUE");
		sub->footer(fmt::format(
			"{}\nExamples:\n{}\n\n{}",
			fmt::format(fmt::runtime(kKeysHelp), set ? kCmdlineSet : kCmdlineUnset),
			set ? "  sudo rdnactl config set noretry=1 targets=rdna1,rdna2 mtype_sysmem=nc\n"
			      "  sudo rdnactl config set ttm-limit=96G\n"
			      "  sudo rdnactl config set --cmdline amdgpu.noretry=1\n"
			      "  sudo rdnactl config set validate.user=alice\n"
			      "  rdnactl config set --dry-run amdgpu.lockup_timeout=10000,60000,10000,10000"
			    : "  sudo rdnactl config unset noretry targets\n"
			      "  sudo rdnactl config unset ttm-limit\n"
			      "  sudo rdnactl config unset --cmdline amdgpu.noretry   (says the kernel's default)",
			kExitCodes));
		sub->callback([args, rc, set] { *rc = run_set_or_unset(*args, set); });
	}

	auto undo = std::make_shared<ConfigArgs>();
	auto *u = cfg->add_subcommand("undo", "Restore the files of the newest config transaction and regenerate "
					      "what depends on them; one transaction per call");
	add_common(*u, *undo, true);
	u->footer(fmt::format("Examples:\n  rdnactl config undo --dry-run\n  sudo rdnactl config undo\n"
			      "An empty journal is not an error: 'nothing to undo', exit 0.\n\n{}",
			      kExitCodes));
	u->callback([undo, rc] { *rc = config::undo_last(apply_options(*undo, "undo"), std::cout, std::cerr); });
}

} // namespace rdnafix
