// Checks: the rdnafix module: installed, loaded, its ABI, hooks, dry run and
// the settings it applied per device.
#include "checks.hpp"

#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rdnafix::status {

namespace detail {

void check_rdnafix(Ctx &c)
{
	const auto &r = c.s.rdnafix;
	if (r.installed && !r.loaded) {
		c.add("RDNA-MOD-001", "rdnafix",
		      fmt::format("rdnafix is installed ({}) but not loaded", r.installed_paths.front()),
		      "none of its per-device settings is in effect",
		      "modprobe rdnafix (and check 'dmesg | grep rdnafix')");
	}
	if (!r.loaded)
		return;
	if (r.abi_version && *r.abi_version != "1") {
		c.add("RDNA-MOD-003", "rdnafix",
		      fmt::format("/sys/kernel/rdnafix/abi_version is '{}', this rdnactl reads ABI 1", *r.abi_version),
		      "the values below may be misread", "install matching rdnactl and rdnafix versions");
		return;
	}
	// A built-in amdgpu leaves every hook inactive: RDNA-DRV-010 says why and what to do.
	const bool builtin = r.amdgpu_state && *r.amdgpu_state == "built-in";
	for (const auto &[name, state] : r.hooks)
		if (state.rfind("inactive", 0) == 0 && !builtin)
			c.add("RDNA-MOD-002", "rdnafix hook " + name, fmt::format("hook {} is {}", name, state),
			      "rdnafix fails closed: the settings that depend on this hook are not applied",
			      "read 'dmesg | grep rdnafix' for the reason; an unsupported kernel needs a newer "
			      "rdnafix");
	// The PTE paths its MTYPE hook cannot reach (lines "<path>: <what> (<upstream source>)");
	// lines that say the path is covered or not built are not gaps.
	std::vector<std::string> gaps, names;
	for (const auto &line : r.not_covered) {
		const auto colon = line.find(':');
		const std::string rest = colon == std::string::npos ? line : line.substr(colon + 1);
		if (rest.rfind(" covered", 0) == 0 || rest.find("is not built") != std::string::npos)
			continue;
		gaps.push_back(line);
		names.push_back(line.substr(0, colon));
	}
	if (!gaps.empty())
		c.add("RDNA-MOD-006", "rdnafix",
		      fmt::format("rdnafix's MTYPE hook (gmc_v10_0_get_vm_pte) does not see {}: {}",
				  fmt::join(names, ", "), fmt::join(gaps, "; ")),
		      "mtype_sysmem/mtype_vram never change the MTYPE of PTEs written on these paths",
		      "nothing to do; judge MTYPE experiments knowing these paths keep amdgpu's choice");
	if (r.dry_run && *r.dry_run == "1")
		c.add("RDNA-MOD-004", "rdnafix", "rdnafix runs with dry_run=1: it counts but changes nothing",
		      "pte_would_rewrite shows what it would do; nothing is applied",
		      "set 'options rdnafix dry_run=0' in /etc/modprobe.d/rdnafix.conf and reload",
		      {ModuleOption{"rdnafix", "dry_run", "0", "/etc/modprobe.d/rdnafix.conf"}});
	for (const auto &d : r.devices) {
		auto get = [&](const char *k) {
			auto it = d.values.find(k);
			return it == d.values.end() ? std::string() : it->second;
		};
		if (get("targeted") != "1")
			continue;
		for (auto [req, app, what] :
		     {std::tuple{"noretry_requested", "noretry_applied", "noretry"},
		      std::tuple{"fragment_size_requested", "fragment_size_applied", "vm_fragment_size"}}) {
			std::string rq = get(req), ap = get(app);
			if (!rq.empty() && rq != "-1" && ap != rq)
				c.add("RDNA-MOD-005", d.pci_bdf,
				      fmt::format("{} requested {} but applied {} ({})", what, rq,
						  ap.empty() ? "?" : ap, get("reason")),
				      "the device runs with amdgpu's own value",
				      "the setting is applied at device probe: reload amdgpu after rdnafix "
				      "(softdep amdgpu pre: rdnafix) or reboot");
		}
	}
}

} // namespace detail

} // namespace rdnafix::status
