// Checks RDNA-MOD-008..011: is the loaded rdnafix doing what its hooks say?
// A hook that refuses every call it sees (state "refusing", or the calls
// file), calls the kprobe core never gave a handler (missing), reads of the
// swapped amdgpu_noretry by other code (leaks), and a module built against an
// amdgpu that is not the one modprobe loads (evidence amdgpu_path against the
// running kernel's modules.dep).  The files are sysfs ABI v1 additions
// (docs/sysfs-abi.md); an older module has none of them and none of these
// checks fires.
#include "checks.hpp"

#include <fmt/format.h>

namespace rdnafix::status::detail {

std::string rdnafix_version(const Snapshot &s)
{
	if (s.rdnafix.version && !s.rdnafix.version->empty())
		return *s.rdnafix.version;
	return s.boot.dkms_versions.empty() ? "<version>" : s.boot.dkms_versions.back();
}

namespace {

void check_refusing(Ctx &c)
{
	const auto &r = c.s.rdnafix;
	for (const auto &[name, state] : r.hooks) {
		std::string what;
		if (state.rfind("refusing", 0) == 0) {
			what = fmt::format("hook {} is {}", name, state);
		} else if (auto it = r.hook_counts.find(name); state == "active" && it != r.hook_counts.end() &&
							       it->second.seen && *it->second.seen > 0 &&
							       it->second.refused == it->second.seen) {
			what = fmt::format("hook {} refused all {} call(s) it saw (calls: seen={} refused={})", name,
					   *it->second.seen, *it->second.seen, *it->second.refused);
		} else {
			continue;
		}
		c.add("RDNA-MOD-008", "rdnafix hook " + name, what,
		      "the hook is registered and sees amdgpu's calls but applies nothing: the settings that depend "
		      "on it keep amdgpu's values",
		      "read /sys/kernel/rdnafix/evidence and 'dmesg | grep rdnafix' for why; attach 'rdnactl report' "
		      "to an rdnafix issue: this kernel's amdgpu is not the one rdnafix was proven on");
	}
}

void check_missing(Ctx &c)
{
	for (const auto &[name, n] : c.s.rdnafix.hook_counts) {
		const std::uint64_t inst = n.missed_instance.value_or(0), rec = n.missed_recursion.value_or(0);
		if (inst == 0 && rec == 0)
			continue;
		c.add("RDNA-MOD-009", "rdnafix hook " + name,
		      fmt::format("hook {} missed {} call(s): instance={} (no free kretprobe instance), recursion={} "
				  "(hit inside another probe's handler)",
				  name, inst + rec, inst, rec),
		      "a missed call ran without rdnafix: what it set (a device's noretry or vm_fragment_size at "
		      "probe, a PTE's MTYPE) keeps amdgpu's value",
		      "reload amdgpu (modprobe -r amdgpu && modprobe amdgpu) or reboot so the devices probe again; "
		      "if the count grows again, attach 'rdnactl report' to an rdnafix issue");
	}
}

void check_leaks(Ctx &c)
{
	const auto &r = c.s.rdnafix;
	if (!r.leaks_total || *r.leaks_total == 0)
		return;
	c.add("RDNA-MOD-010", "rdnafix",
	      fmt::format("rdnafix recorded {} read(s) of amdgpu_noretry by other code while its per-device value "
			  "was swapped in{}",
			  *r.leaks_total, r.leaks.empty() ? "" : "; last: " + r.leaks.back()),
	      "that code (on 6.1/6.12 the GFX11/GFX12 hubs at hw_init and resume) configured another GPU with "
	      "rdnafix's noretry instead of amdgpu's own",
	      "set one noretry for every GPU with amdgpu.noretry (rdnactl config set amdgpu.noretry=N) instead of "
	      "rdnafix's per-device value, or reboot so the GPUs initialise one after the other");
}

void check_built_against(Ctx &c)
{
	const auto &r = c.s.rdnafix;
	auto path = r.evidence.find("amdgpu_path");
	const machine::InstalledKernel *k = running_kernel(c.s.boot);
	if (path == r.evidence.end() || !k)
		return;
	auto origin = r.evidence.find("amdgpu_origin");
	const std::string built = path->second,
			  loads = k->amdgpu_module.empty() ? std::string() : "/" + k->amdgpu_module;
	if (loads.empty() || built == loads)
		return;
	const std::string ver = rdnafix_version(c.s);
	c.add("RDNA-MOD-011", "rdnafix",
	      fmt::format("rdnafix was built against {}{} but modprobe loads {} for {}",
			  built.empty() ? "no amdgpu module" : built,
			  origin == r.evidence.end() ? "" : " (" + origin->second + ")", loads, k->release),
	      "its build-time evidence (the BTF prototypes, the PTE audit) describes another amdgpu: the hooks "
	      "that depend on it are refused or unproven",
	      fmt::format("dkms unbuild rdnafix/{0} -k {1} && dkms install rdnafix/{0} -k {1}, then reboot (or "
			  "modprobe -r amdgpu rdnafix && modprobe amdgpu)",
			  ver, k->release));
}

} // namespace

void check_rdnafix_health(Ctx &c)
{
	if (!c.s.rdnafix.loaded || (c.s.rdnafix.abi_version && *c.s.rdnafix.abi_version != "1"))
		return;
	check_refusing(c);
	check_missing(c);
	check_leaks(c);
	check_built_against(c);
}

} // namespace rdnafix::status::detail
