// Checks: configured versus in effect.  RDNA-CFG-001 (configured after this
// boot: a reboot applies it), RDNA-CFG-002 (after the reboot it did not apply
// and the running kernel's initramfs predates the configuration), RDNA-CFG-003
// (rdnafix configured, not built for the running or the default kernel), and
// RDNA-DRV-007 for rdnafix's own parameters.  A finding explained by one of
// these (DRV-007 of the same parameter, MOD-001) is dropped: one cause, one fix.
#include "checks.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

namespace {

using machine::Setting;
using machine::SettingState;

// "rdnafix.noretry=1 (running: -1)"
std::string label(const Snapshot &s, const Setting &x)
{
	std::string running = !machine::module_loaded(s, x.module) ? x.module + " not loaded"
			      : x.live                             ? "running: " + *x.live
								   : "running: unknown";
	return fmt::format("{}.{}={} ({})", x.module, x.name, x.next_boot.value_or("(unset)"), running);
}

std::string join(const std::vector<std::string> &v)
{
	std::string o;
	for (const auto &x : v)
		o += (o.empty() ? "" : ", ") + x;
	return o;
}

// "amdgpu inside; rdnafix.ko and etc/modprobe.d/rdnafix.conf missing"
std::string listing_text(const machine::InstalledKernel &k, bool want_rdnafix)
{
	if (!k.initramfs_listing)
		return "";
	const auto &l = *k.initramfs_listing;
	const std::string lister = l.command.empty() ? "lister" : l.command[0];
	if (!l.ok)
		return fmt::format("; {} could not list it ({})", lister, l.error);
	std::vector<std::string> missing;
	if (want_rdnafix && !l.rdnafix)
		missing.push_back("rdnafix.ko");
	if (want_rdnafix && !l.conf)
		missing.push_back("etc/modprobe.d/rdnafix.conf");
	return fmt::format("; {}: amdgpu {}{}", lister, l.amdgpu ? "inside" : "not inside",
			   missing.empty() ? "" : ", " + join(missing) + " missing");
}

// Where the next boot's value is set: "/etc/modprobe.d/rdnafix.conf:2".
std::string source_of(const Setting &x)
{
	const machine::SettingSource *src = machine::next_boot_source(x);
	if (!src)
		return "the configuration";
	return src->line ? fmt::format("/{}:{}", src->file, src->line) : "/" + src->file;
}

// The initramfs cannot be the cause: listed, and amdgpu is not in it.
bool amdgpu_not_in(const machine::InstalledKernel &k)
{
	return k.initramfs_listing && k.initramfs_listing->ok && !k.initramfs_listing->amdgpu;
}

void check_pending(Ctx &c, const std::vector<const Setting *> &pending, bool rdnafix_softdep_pending)
{
	const auto &b = c.s.boot;
	std::vector<std::string> what;
	bool via_modprobe = rdnafix_softdep_pending;
	for (const Setting *x : pending) {
		what.push_back(label(c.s, *x));
		via_modprobe = via_modprobe || !x->cmdline_next;
	}
	if (what.empty())
		what.push_back("softdep amdgpu pre: rdnafix (rdnafix not loaded)");
	const machine::InstalledKernel *k = default_kernel(b);
	const bool regenerate = via_modprobe && k && initramfs_stale(b, *k) && !amdgpu_not_in(*k);
	c.add("RDNA-CFG-001", "configuration",
	      fmt::format("configured after this boot, not in effect yet: {}{}", join(what),
			  regenerate ? fmt::format("; the initramfs of {} ({}) predates it{}", k->release,
						   "/" + k->initramfs_image, listing_text(*k, true))
				     : ""),
	      "module options and the command line are read when the module loads at boot: the running system "
	      "still has the values it booted with",
	      regenerate_then_reboot(b, regenerate));
}

} // namespace

void check_config(Ctx &c)
{
	const auto &s = c.s;
	const auto &b = s.boot;
	const bool rdnafix_wanted = rdnafix_configured(s, c.a.settings);
	const machine::InstalledKernel *run = running_kernel(b);
	// Not built for the running kernel is RDNA-CFG-003's case, not a stale initramfs.
	const bool built = run && !run->rdnafix_modules.empty();
	std::vector<const Setting *> pending, failed;
	for (const auto &x : c.a.settings) {
		if (x.state == SettingState::pending_reboot)
			pending.push_back(&x);
		else if (x.state == SettingState::not_applied ||
			 (x.state == SettingState::module_not_loaded && x.module == "rdnafix" && x.next_boot && built))
			failed.push_back(&x);
	}
	const bool softdep_pending = rdnafix_wanted && !s.rdnafix.loaded && configured_after_boot(b);
	const bool softdep_failed = rdnafix_wanted && built && !s.rdnafix.loaded && !configured_after_boot(b) &&
				    b.config_mtime_ns && b.boot_time_s;
	bool rdnafix_explained = false;

	// RDNA-CFG-001
	if (!pending.empty() || softdep_pending) {
		check_pending(c, pending, softdep_pending);
		for (const Setting *x : pending)
			drop(c, "RDNA-DRV-007", x->module + "." + x->name);
		rdnafix_explained = softdep_pending;
	}

	// RDNA-CFG-002: after the reboot, through a stale initramfs.
	if ((!failed.empty() || softdep_failed) && run && initramfs_stale(b, *run) && !amdgpu_not_in(*run) &&
	    !run->initramfs_image.empty()) {
		std::vector<std::string> what;
		for (const Setting *x : failed)
			what.push_back(label(s, *x));
		if (what.empty() || (softdep_failed && std::none_of(failed.begin(), failed.end(), [](const Setting *x) {
					     return x->module == "rdnafix";
				     })))
			what.push_back("rdnafix not loaded (softdep amdgpu pre: rdnafix)");
		c.add("RDNA-CFG-002", "/" + run->initramfs_image,
		      fmt::format("the initramfs of the running kernel {} predates the module configuration{}; not in "
				  "effect: {}",
				  run->release, listing_text(*run, rdnafix_wanted), join(what)),
		      "amdgpu is loaded from the initramfs, before the root file system is mounted: the modprobe.d "
		      "files and modules it uses are the copies inside the image, made before this configuration",
		      regenerate_then_reboot(b, true));
		for (const Setting *x : failed)
			drop(c, "RDNA-DRV-007", x->module + "." + x->name);
		rdnafix_explained = true;
	} else {
		// Not the initramfs: the configured rdnafix value is simply not the running one.
		for (const Setting *x : failed)
			if (x->module == "rdnafix" && x->state == SettingState::not_applied)
				c.add("RDNA-DRV-007", x->module + "." + x->name,
				      fmt::format("{} sets {}={} but the running module has {}", source_of(*x), x->name,
						  *x->next_boot, x->live.value_or("unknown")),
				      "rdnafix was loaded with other options (by hand, or before the configuration "
				      "changed)",
				      "reload it: modprobe -r amdgpu rdnafix, then modprobe amdgpu (or reboot)");
	}
	if (rdnafix_explained)
		drop(c, "RDNA-MOD-001", "rdnafix");

	// RDNA-CFG-003: configured, not built for the kernel that runs or boots next.
	if (!rdnafix_wanted)
		return;
	std::vector<const machine::InstalledKernel *> kernels;
	if (run && !s.rdnafix.loaded)
		kernels.push_back(run);
	// The default kernel also when it runs with rdnafix loaded: its module may
	// have been removed since (dkms remove), and the next boot would lack it.
	if (const auto *d = default_kernel(b); d && (d != run || s.rdnafix.loaded))
		kernels.push_back(d);
	for (const auto *k : kernels) {
		if (!k->rdnafix_modules.empty())
			continue;
		std::vector<Remedy> remedies{NoChange{}};
		std::string fix = fmt::format("dkms autoinstall -k {}", k->release);
		if (!k->headers) {
			fix = fmt::format("{}, then {} (DKMS builds rdnafix when the headers are installed)",
					  headers_command(b, k->release), fix);
			if (auto r = headers_remedy(b, k->release))
				remedies = {*r};
		}
		c.add("RDNA-CFG-003", k->release,
		      fmt::format("rdnafix is configured but lib/modules/{} has no rdnafix.ko ({} kernel{})",
				  k->release, k->running && !s.rdnafix.loaded ? "running" : "default boot",
				  k->headers ? "" : "; its headers are missing"),
		      "modprobe cannot load a module that was not built for this kernel: the softdep is skipped "
		      "and amdgpu runs without rdnafix",
		      fix, remedies);
		if (k->running)
			drop(c, "RDNA-MOD-001", "rdnafix");
	}
}

} // namespace detail

} // namespace rdnafix::status
