// `rdnactl kernel-check RELEASE`: its options and a callback that forwards to
// status::run_kernel_check.  The kernel postinst hook (zz-rdnafix) runs it.
#include "commands.hpp"
#include "machine_options.hpp"

#include "status/status.hpp"

#include <memory>

namespace rdnafix {

namespace {

struct KernelCheckArgs {
	std::string root;
	std::string release;
	bool json = false;
};

} // namespace

void add_kernel_check_command(CLI::App &app, int *rc)
{
	auto args = std::make_shared<KernelCheckArgs>();
	auto *sub = app.add_subcommand("kernel-check", "Check that rdnafix is built for an installed kernel when it "
						       "is configured (the kernel postinst hook runs this)");
	sub->add_option("RELEASE", args->release, "The kernel release, as in /lib/modules (uname -r of that kernel)")
		->required();
	app::add_root_option(*sub, args->root,
			     "Check the system below DIR (lib/modules/, boot/, var/lib/dkms/, etc/modprobe.d/) "
			     "instead of /");
	sub->add_flag("--json", args->json, "Print JSON (schema_version 1) instead of text");
	sub->footer("Exit codes: 0 rdnafix is built for RELEASE or is not configured, 1 it is configured and not "
		    "built (a banner on stderr: what is missing, the DKMS make.log tail, Secure Boot and signing), "
		    "2 rdnactl could not run (RELEASE not installed, bad arguments, --root unusable).");
	sub->callback([args, rc] {
		status::KernelCheckOptions o;
		app::MachineArgs m;
		m.root = args->root;
		o.machine = app::collect_options(m);
		o.machine.live = false; // no device is read through libudev/libdrm for this
		o.release = args->release;
		o.json = args->json;
		*rc = status::run_kernel_check(o);
	});
}

} // namespace rdnafix
