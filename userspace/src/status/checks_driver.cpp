// Checks: amdgpu loaded and live, RDNA1 noretry, and the amdgpu parameters
// (fragment size, GTT size, overridden and unapplied values).
#include "checks.hpp"

#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

void check_driver(Ctx &c)
{
	const auto &s = c.s;
	auto amd = amd_devices(s);
	if (!amd.empty() && !s.driver.amdgpu_loaded) {
		c.add("RDNA-DRV-001", "amdgpu",
		      fmt::format("amdgpu is not loaded ({} AMD GPU{} present)", amd.size(), amd.size() > 1 ? "s" : ""),
		      "without amdgpu there is no render node and no /dev/kfd: ROCm sees no GPU",
		      "modprobe amdgpu; if it fails, read 'dmesg | grep -i amdgpu' (firmware missing, "
		      "modprobe.blacklist=amdgpu or nomodeset on the kernel command line)");
	}
	if (s.driver.amdgpu_loaded && s.driver.initstate && *s.driver.initstate != "live") {
		c.add("RDNA-DRV-002", "amdgpu",
		      fmt::format("amdgpu initstate is '{}', not 'live'", *s.driver.initstate),
		      "the module is still loading or failed half-way; its devices are not usable",
		      "wait for the load to finish, then read 'dmesg | grep -i amdgpu' for the error");
	}
	for (const Device *d : amd) {
		const rules::DeviceNoretry &nr = c.noretry(*d);
		if (d->generation != gpudb::Generation::rdna1 || !nr.value || *nr.value != 0)
			continue;
		if (d->rdnafix_noretry_applied && *d->rdnafix_noretry_applied == 1)
			continue;
		const Param *p = machine::find_param(s, "amdgpu", "noretry");
		std::string fix = p && p->source != machine::ParamSource::default_value
					  ? fix_param(*p, "1")
					  : "rdnactl config set amdgpu.noretry=1, then reboot (or rdnactl config set "
					    "noretry=1: rdnafix sets it for the RDNA1 devices only)";
		c.add("RDNA-DRV-003", dev_label(*d),
		      fmt::format("noretry={} in effect on an RDNA1 GPU ({})", *nr.value, nr.explanation),
		      "with retry faults enabled, a GPU page/permission fault on GFX10.1 loops in the UTCL2 instead of "
		      "being reported: the GPU hangs silently until the ~10 s scheduler timeout, with nothing useful "
		      "in "
		      "dmesg (amd-gfx 2026-05-29 'set noretry=1 as default for GFX 10.1.x'); KFD never enables XNACK "
		      "on "
		      "GFX10, so retry buys nothing",
		      fix, {set_param(p, "amdgpu", "noretry", "1")});
	}
	if (const Param *p = machine::find_param(s, "amdgpu", "vm_fragment_size");
	    p && p->source != machine::ParamSource::default_value) {
		bool gfx10 = std::any_of(amd.begin(), amd.end(), [](const Device *d) {
			return d->generation == gpudb::Generation::rdna1 || d->generation == gpudb::Generation::rdna2;
		});
		c.add("RDNA-DRV-004", "amdgpu.vm_fragment_size",
		      fmt::format("vm_fragment_size={} set in {}", p->configured_value, where(*p)),
		      gfx10 ? "on GFX10 (RDNA1/RDNA2) it does not change the page-table fragment bits; it only changes "
			      "the pte_fragment_size advice that Mesa/libdrm read for VA alignment (default 9 = 2 MiB) "
			      "— "
			      "it is not a stability fix"
			    : "it is global to every amdgpu device; on GFX9+ page-table fragments come from alignment, "
			      "the value is advice to userspace",
		      "nothing needed; remove it unless you measured a difference");
	}
	for (std::string_view name : {"gttsize", "gtt_size"}) {
		const Param *p = machine::find_param(s, "amdgpu", name);
		if (!p || p->source == machine::ParamSource::default_value)
			continue;
		bool unknown = name == "gtt_size";
		c.add("RDNA-DRV-005", fmt::format("amdgpu.{}", name),
		      fmt::format("amdgpu.{}={} set in {}", name, p->configured_value, where(*p)),
		      unknown ? "amdgpu has no 'gtt_size' parameter: the kernel ignores it silently"
			      : "gttsize is deprecated ('Configuring gttsize via module parameter is deprecated, "
				"please "
				"use ttm.pages_limit'); the TTM pages_limit caps GTT anyway",
		      p->source == machine::ParamSource::cmdline
			      ? fmt::format(
					"rdnactl config unset --cmdline amdgpu.{}, and set the GTT size with rdnactl "
					"config set ttm-limit=<size> (ttm pages_limit), then reboot",
					name)
			      : fmt::format("remove {} from line {} of {} and set the GTT size with rdnactl config set "
					    "ttm-limit=<size> (ttm pages_limit), then {}",
					    name, p->source_line, p->source_file, regenerate_then_reboot(s.boot, true)),
		      {remove_param(*p)});
	}
	for (const auto &p : s.driver.params) {
		// The command line and modprobe.d agreeing is not a conflict (after `rdnactl fix` they do).
		auto same = rules::param_values_equal(p.overridden_value, p.configured_value);
		if (!p.overridden_file.empty() && !(same && *same))
			c.add("RDNA-DRV-006", fmt::format("{}.{}", p.module, p.name),
			      fmt::format("{}:{} sets {}={} but the kernel command line sets {}={}", p.overridden_file,
					  p.overridden_line, p.name, p.overridden_value, p.name, p.configured_value),
			      "the command line wins; editing the modprobe.d file alone changes nothing",
			      fmt::format("rdnactl config set --cmdline {}.{}={}, then reboot (the command line then "
					  "agrees with {})",
					  p.module, p.name, p.overridden_value, p.overridden_file),
			      {KernelParam{KernelParam::Action::add, fmt::format("{}.{}", p.module, p.name),
					   p.overridden_value}});
		if (p.source != machine::ParamSource::default_value && p.live_value) {
			auto eq = rules::param_values_equal(p.configured_value, *p.live_value);
			if (eq && !*eq)
				c.add("RDNA-DRV-007", fmt::format("{}.{}", p.module, p.name),
				      fmt::format("{} sets {}={} but the running module has {}", where(p), p.name,
						  p.configured_value, *p.live_value),
				      "the configuration has not reached the running kernel (initramfs not "
				      "regenerated, "
				      "not rebooted, or the option is misspelled/for another module)",
				      p.source == machine::ParamSource::modprobe_d
					      ? regenerate_then_reboot(s.boot, true)
					      : "reboot (the command line is read at boot)");
		}
	}
}

} // namespace detail

} // namespace rdnafix::status
