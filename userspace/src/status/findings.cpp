#include "findings.hpp"

#include "rules.hpp"

#include "core/gpudb.hpp"
#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>

namespace rdnafix::status {

std::string_view severity_name(Severity s)
{
	switch (s) {
	case Severity::info:
		return "info";
	case Severity::warn:
		return "warn";
	case Severity::error:
		return "error";
	}
	return "info";
}

const std::vector<CheckInfo> &catalogue()
{
	static const std::vector<CheckInfo> c{
		{"RDNA-ACC-001", Severity::error, "/dev/kfd is missing"},
		{"RDNA-ACC-002", Severity::error, "cannot open a GPU device node"},
		{"RDNA-ACC-003", Severity::warn, "added to the group but not logged in again"},
		{"RDNA-ACC-004", Severity::error, "render node missing for an AMD GPU"},
		{"RDNA-DRV-001", Severity::error, "amdgpu is not loaded"},
		{"RDNA-DRV-002", Severity::error, "amdgpu did not finish initialising"},
		{"RDNA-DRV-003", Severity::warn, "RDNA1 with noretry=0 in effect (silent hangs)"},
		{"RDNA-DRV-004", Severity::info, "vm_fragment_size is set"},
		{"RDNA-DRV-005", Severity::warn, "amdgpu.gttsize / gtt_size is set"},
		{"RDNA-DRV-006", Severity::info, "modprobe.d value overridden by the kernel command line"},
		{"RDNA-DRV-007", Severity::warn, "configured value is not the value in effect"},
		{"RDNA-ENV-001", Severity::error, "invalid HSA_OVERRIDE_GFX_VERSION"},
		{"RDNA-ENV-002", Severity::error, "cross-family override (unsafe)"},
		{"RDNA-ENV-003", Severity::info, "pointless override (equal to the native target)"},
		{"RDNA-ENV-004", Severity::info, "ISA-safe same-family override (working workaround)"},
		{"RDNA-ENV-005", Severity::warn, "override for a node that is not an AMD GPU"},
		{"RDNA-ENV-006", Severity::warn, "iGPU enumerated before the dGPU"},
		{"RDNA-ENV-007", Severity::warn, "*_VISIBLE_DEVICES does not select the intended GPU"},
		{"RDNA-ENV-008", Severity::warn, "slow debug variables are set"},
		{"RDNA-ENV-009", Severity::warn, "HSA_XNACK=1 on GFX10 (never enabled by KFD)"},
		{"RDNA-ENV-010", Severity::warn, "expandable_segments in the PyTorch allocator config"},
		{"RDNA-ENV-011", Severity::warn, "override set but no AMD GPU to apply it to"},
		{"RDNA-ENV-012", Severity::warn, "override used in practice but not guaranteed"},
		{"RDNA-ENV-013", Severity::warn, "override or native target unknown to ROCm"},
		{"RDNA-GPU-001", Severity::info, "no AMD GPU found"},
		{"RDNA-GPU-002", Severity::warn, "gfx target not on ROCm's official support list"},
		{"RDNA-GPU-003", Severity::warn, "gfx target of an AMD GPU is unknown"},
		{"RDNA-MEM-001", Severity::warn, "APU memory ceiling (GTT/TTM) is small"},
		{"RDNA-MOD-001", Severity::warn, "rdnafix installed but not loaded"},
		{"RDNA-MOD-002", Severity::warn, "rdnafix hook inactive"},
		{"RDNA-MOD-003", Severity::error, "rdnafix sysfs ABI version not supported"},
		{"RDNA-MOD-004", Severity::info, "rdnafix is in dry-run mode"},
		{"RDNA-MOD-005", Severity::warn, "rdnafix did not apply a requested setting to a device"},
		{"RDNA-RDR-000", Severity::warn, "items could not be read"},
	};
	return c;
}

namespace {

// The ISA-safe override value for a native target name, "" if none.
std::string safe_override_for(std::string_view native)
{
	auto t = gpudb::parse_gfx_name(native);
	if (!t)
		return "";
	auto s = rules::safe_override_for(*t);
	return s ? s->dotted() : "";
}

Severity sev(std::string_view id)
{
	for (const auto &c : catalogue())
		if (c.id == id)
			return c.severity;
	return Severity::info;
}

struct Ctx {
	const Snapshot &s;
	std::vector<Finding> out;
	void add(std::string_view id, std::string subject, std::string finding, std::string why, std::string fix,
		 std::optional<Severity> override_sev = std::nullopt)
	{
		out.push_back(Finding{std::string(id), override_sev ? *override_sev : sev(id), std::move(subject),
				      std::move(finding), std::move(why), std::move(fix)});
	}
};

std::vector<const Device *> amd_devices(const Snapshot &s)
{
	std::vector<const Device *> v;
	for (const auto &d : s.devices)
		if (d.is_amd)
			v.push_back(&d);
	return v;
}

std::string dev_label(const Device &d)
{
	std::string l = d.pci_bdf.empty() ? d.card : d.pci_bdf;
	if (d.gfx_target)
		l += " (" + *d.gfx_target + ")";
	return l;
}

const Param *param(const Snapshot &s, std::string_view mod, std::string_view name)
{
	for (const auto &p : s.driver.params)
		if (p.module == mod && p.name == name)
			return &p;
	return nullptr;
}

std::string where(const Param &p)
{
	if (p.source == "cmdline")
		return fmt::format("kernel command line ({}.{}={})", p.module, p.name, p.configured_value);
	if (p.source == "modprobe.d")
		return fmt::format("{}:{} (options {} {}={})", p.source_file, p.source_line, p.module, p.name,
				   p.configured_value);
	return "default";
}

std::string fix_param(const Param &p, std::string_view want)
{
	if (p.source == "cmdline")
		return fmt::format("edit GRUB_CMDLINE_LINUX in /etc/default/grub: set {}.{}={} (or remove it), then "
				   "update-grub and reboot",
				   p.module, p.name, want);
	if (p.source == "modprobe.d")
		return fmt::format("edit {} line {}: options {} {}={} (or remove it), then update-initramfs -u and "
				   "reboot",
				   p.source_file, p.source_line, p.module, p.name, want);
	return fmt::format("add 'options {} {}={}' to /etc/modprobe.d/{}.conf, then update-initramfs -u and reboot",
			   p.module, p.name, want, p.module);
}

// ---------------------------------------------------------------- devices
void check_devices(Ctx &c)
{
	auto amd = amd_devices(c.s);
	if (amd.empty()) {
		c.add("RDNA-GPU-001", "", "no AMD GPU among the DRM/PCI devices",
		      "ROCm and PyTorch-ROCm need an AMD GPU; everything else in this report is informational",
		      "none needed on a machine without an AMD GPU; in a container, pass the host's /dev/dri and "
		      "/dev/kfd and bind-mount /sys");
		return;
	}
	for (const Device *d : amd) {
		if (!d->gfx_target) {
			c.add("RDNA-GPU-003", dev_label(*d),
			      fmt::format("gfx target unknown for PCI {:04x}:{:04x}", d->vendor_id.value_or(0),
					  d->device_id.value_or(0)),
			      "without the gfx target neither the override nor library coverage can be judged",
			      "load amdgpu (KFD reports gfx_target_version) or report the PCI id to rdnafix so the GPU "
			      "database can be extended");
			continue;
		}
		if (rocm_officially_supported(*d->gfx_target))
			continue;
		std::string safe = safe_override_for(*d->gfx_target);
		bool rdna1 = d->generation == "rdna1";
		std::string fix =
			!safe.empty() ? fmt::format("use libraries built for {} or gfx10-3-generic; otherwise export "
						    "HSA_OVERRIDE_GFX_VERSION={} (ISA-compatible)",
						    *d->gfx_target, safe)
			: rdna1       ? "use libraries built natively for gfx101x (Debian's ROCm packages, a "
					"self-built PyTorch) and do NOT set HSA_OVERRIDE_GFX_VERSION=10.3.0"
				      : fmt::format("use libraries that contain {} code objects", *d->gfx_target);
		c.add("RDNA-GPU-002", dev_label(*d),
		      fmt::format("{} is not on ROCm's official Linux support list{}", *d->gfx_target,
				  rdna1 ? " (RDNA1: no ISA-compatible override exists)" : ""),
		      "official ROCm and PyTorch wheels may contain no code objects for it: 'HIP error: invalid device "
		      "function' / hipErrorNoBinaryForGpu",
		      fix, rdna1 || safe.empty() ? Severity::warn : Severity::info);
	}
}

// ---------------------------------------------------------------- driver
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
		if (d->generation != "rdna1" || !d->noretry_effective || *d->noretry_effective != 0)
			continue;
		if (d->rdnafix_noretry_applied && *d->rdnafix_noretry_applied == 1)
			continue;
		const Param *p = param(s, "amdgpu", "noretry");
		std::string fix = p && p->source != "default"
					  ? fix_param(*p, "1")
					  : "add 'options amdgpu noretry=1' to /etc/modprobe.d/amdgpu.conf, then "
					    "update-initramfs -u and reboot (or load rdnafix with noretry=1 for this "
					    "device only)";
		c.add("RDNA-DRV-003", dev_label(*d),
		      fmt::format("noretry={} in effect on an RDNA1 GPU ({})", *d->noretry_effective, d->noretry_rule),
		      "with retry faults enabled, a GPU page/permission fault on GFX10.1 loops in the UTCL2 instead of "
		      "being reported: the GPU hangs silently until the ~10 s scheduler timeout, with nothing useful "
		      "in "
		      "dmesg (amd-gfx 2026-05-29 'set noretry=1 as default for GFX 10.1.x'); KFD never enables XNACK "
		      "on "
		      "GFX10, so retry buys nothing",
		      fix);
	}
	if (const Param *p = param(s, "amdgpu", "vm_fragment_size"); p && p->source != "default") {
		bool gfx10 = std::any_of(amd.begin(), amd.end(), [](const Device *d) {
			return d->generation == "rdna1" || d->generation == "rdna2";
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
		const Param *p = param(s, "amdgpu", name);
		if (!p || p->source == "default")
			continue;
		bool unknown = name == "gtt_size";
		c.add("RDNA-DRV-005", fmt::format("amdgpu.{}", name),
		      fmt::format("amdgpu.{}={} set in {}", name, p->configured_value, where(*p)),
		      unknown ? "amdgpu has no 'gtt_size' parameter: the kernel ignores it silently"
			      : "gttsize is deprecated ('Configuring gttsize via module parameter is deprecated, "
				"please "
				"use ttm.pages_limit'); the TTM pages_limit caps GTT anyway",
		      "remove it and set the GTT size with 'options ttm pages_limit=<GiB*262144>' (amdttm with "
		      "amdgpu-dkms), then update-initramfs -u and reboot");
	}
	for (const auto &p : s.driver.params) {
		if (!p.overridden_file.empty())
			c.add("RDNA-DRV-006", fmt::format("{}.{}", p.module, p.name),
			      fmt::format("{}:{} sets {}={} but the kernel command line sets {}={}", p.overridden_file,
					  p.overridden_line, p.name, p.overridden_value, p.name, p.configured_value),
			      "the command line wins; editing the modprobe.d file alone changes nothing",
			      fmt::format("keep one place: remove {}.{}= from the command line or the line from {}",
					  p.module, p.name, p.overridden_file));
		if (p.source != "default" && p.live_value) {
			auto eq = param_values_equal(p.configured_value, *p.live_value);
			if (eq && !*eq)
				c.add("RDNA-DRV-007", fmt::format("{}.{}", p.module, p.name),
				      fmt::format("{} sets {}={} but the running module has {}", where(p), p.name,
						  p.configured_value, *p.live_value),
				      "the configuration has not reached the running kernel (initramfs not "
				      "regenerated, "
				      "not rebooted, or the option is misspelled/for another module)",
				      p.source == "modprobe.d" ? "update-initramfs -u, then reboot"
							       : "reboot (the command line is read at boot)");
		}
	}
}

// ---------------------------------------------------------------- memory
void check_memory(Ctx &c)
{
	auto amd = amd_devices(c.s);
	bool have_dgpu = std::any_of(amd.begin(), amd.end(), [](const Device *d) { return d->apu && !*d->apu; });
	if (have_dgpu)
		return; // the dGPU does the compute; the iGPU's ceiling does not matter
	for (const Device *d : amd) {
		if (!d->apu || !*d->apu)
			continue;
		std::optional<std::uint64_t> ceiling = d->gtt_total_bytes;
		if (c.s.driver.ttm_limit_bytes)
			ceiling =
				ceiling ? std::min(*ceiling, *c.s.driver.ttm_limit_bytes) : *c.s.driver.ttm_limit_bytes;
		if (!ceiling || !c.s.driver.mem_total_bytes)
			continue;
		std::uint64_t ram = *c.s.driver.mem_total_bytes;
		if (*ceiling * 4 >= ram * 3)
			continue;
		std::uint64_t want_gib = ram * 3 / 4 >> 30;
		c.add("RDNA-MEM-001", dev_label(*d),
		      fmt::format(
			      "APU can map at most {:.1f} GiB of {:.1f} GiB RAM (GTT {}, TTM limit {})",
			      double(*ceiling) / double(1ull << 30), double(ram) / double(1ull << 30),
			      d->gtt_total_bytes ? fmt::format("{:.1f} GiB", double(*d->gtt_total_bytes) / (1ull << 30))
						 : "unknown",
			      c.s.driver.ttm_limit_bytes
				      ? fmt::format("{:.1f} GiB", double(*c.s.driver.ttm_limit_bytes) / (1ull << 30))
				      : "unknown"),
		      "on an APU, ROCm allocations come from GTT; larger models fail with out-of-memory although RAM "
		      "is free (TTM defaults to half of RAM)",
		      fmt::format("echo 'options {} pages_limit={}' > /etc/modprobe.d/ttm.conf; update-initramfs -u; "
				  "reboot (pages_limit = GiB * 262144, here {} GiB)",
				  c.s.driver.amdttm_pages_limit ? "amdttm" : "ttm", want_gib * 262144, want_gib));
	}
}

// ---------------------------------------------------------------- access
void check_access(Ctx &c)
{
	const auto &s = c.s;
	auto amd = amd_devices(s);
	if (amd.empty() && !s.driver.amdgpu_loaded)
		return;
	const DevNode *kfd = nullptr;
	for (const auto &n : s.access.nodes)
		if (n.path == "/dev/kfd")
			kfd = &n;
	if (kfd && !kfd->exists) {
		bool has_kfd_nodes = std::any_of(amd.begin(), amd.end(), [](const Device *d) { return d->kfd_node; });
		std::string reason;
		std::string fix;
		if (s.access.container) {
			reason = "running in a container (" + s.access.container_evidence + ") without the device node";
			fix = "start the container with --device=/dev/kfd --device=/dev/dri --group-add render "
			      "--group-add video";
		} else if (!s.driver.amdgpu_loaded) {
			reason = "amdgpu is not loaded";
			fix = "modprobe amdgpu (see RDNA-DRV-001)";
		} else if (!has_kfd_nodes) {
			reason =
				"amdgpu is loaded but KFD has no GPU node (kernel built without CONFIG_HSA_AMD, or KFD "
				"does not support this GPU: see 'dmesg | grep kfd')";
			fix = "use a kernel with CONFIG_HSA_AMD=y (Debian's is) and check dmesg for 'kfd: ... not "
			      "supported'";
		} else {
			reason = "KFD topology exists but the node was not created (udev rules / devtmpfs)";
			fix = "check 'ls -l /dev/kfd' on the host and udev rules for kfd (KERNEL==\"kfd\", "
			      "GROUP=\"render\")";
		}
		c.add("RDNA-ACC-001", "/dev/kfd", "/dev/kfd does not exist: " + reason,
		      "ROCm talks to the GPU only through /dev/kfd; without it HIP reports 'no ROCm-capable device is "
		      "detected' (hipErrorNoDevice)",
		      fix);
	}
	for (const auto &n : s.access.nodes) {
		if (!n.exists || n.can_open)
			continue;
		std::string who = s.access.subject == "user" ? "user " + s.access.user : "this process";
		std::string fix = n.missing_group.empty()
					  ? "check the node's owner/mode (udev rules) or run with the right user"
					  : fmt::format("usermod -aG {} {}, then log out and in again", n.missing_group,
							s.access.user.empty() ? "$USER" : s.access.user);
		if (!n.missing_group.empty() &&
		    std::find(s.access.relogin_groups.begin(), s.access.relogin_groups.end(), n.missing_group) !=
			    s.access.relogin_groups.end()) {
			c.add("RDNA-ACC-003", n.path,
			      fmt::format("{} is in group '{}' in /etc/group but this session does not have it: {}",
					  s.access.user, n.missing_group, n.verdict),
			      "group membership is read at login; the running session still has the old groups",
			      "log out and log in again (or reboot); 'newgrp " + n.missing_group +
				      "' works for one shell");
			continue;
		}
		c.add("RDNA-ACC-002", n.path, fmt::format("{} cannot open {}: {}", who, n.path, n.verdict),
		      "HIP/ROCr open /dev/kfd and the render node read-write; without access the GPU is invisible "
		      "(hipErrorNoDevice or 'Unable to open /dev/kfd read-write')",
		      fix);
	}
	for (const Device *d : amd) {
		if (s.driver.amdgpu_loaded && d->driver == "amdgpu" && d->render_node.empty())
			c.add("RDNA-ACC-004", dev_label(*d), "no render node (renderD*) for this amdgpu device",
			      "ROCr and libdrm open the render node; without it the GPU cannot be used",
			      "check 'ls -l /dev/dri' and the container's device list (--device=/dev/dri)");
	}
}

// ---------------------------------------------------------------- environment
void check_environment(Ctx &c)
{
	const auto &s = c.s;
	const auto &env = s.environment;
	auto amd = amd_devices(s);
	for (const auto &o : env.overrides) {
		if (!o.valid) {
			// The replacement: the safe value of the GPU it applies to, a
			// discrete GPU first.
			std::string native, safe;
			for (int pass = 0; pass < 2 && safe.empty(); ++pass)
				for (const Device *d : amd)
					if (d->gfx_target && (!o.node || d->kfd_node == o.node) &&
					    (pass == 1 || (d->apu && !*d->apu)) && safe.empty()) {
						native = *d->gfx_target;
						safe = safe_override_for(native);
					}
			c.add("RDNA-ENV-001", o.name, o.error,
			      "the runtime expects three decimal numbers major.minor.stepping (e.g. 10.3.0); an "
			      "invalid "
			      "value is ignored with 'HSA_OVERRIDE_GFX_VERSION ... is invalid', so the workaround you "
			      "think is active is not",
			      safe.empty() ? fmt::format("unset {}", o.name)
					   : fmt::format("export {}={}   # for {}", o.name, safe, native));
			continue;
		}
		if (o.verdicts.empty() && amd.empty()) {
			c.add("RDNA-ENV-011", o.name,
			      fmt::format("{}={} is set but there is no AMD GPU", o.name, o.value),
			      "a leftover override is applied to whatever GPU appears later (an MI210 faulted with a "
			      "forgotten 10.3.0, ROCm/ROCm#5238)",
			      fmt::format("unset {}", o.name));
			continue;
		}
		if (o.verdicts.empty() && o.node) {
			c.add("RDNA-ENV-005", o.name,
			      fmt::format("{} names KFD node {}, which is not an AMD GPU", o.name, *o.node),
			      "the per-node override applies to the KFD topology node id (node 0 is normally the CPU); "
			      "this one affects nothing",
			      "use the node id shown under Devices ('KFD node'), or unset it");
			continue;
		}
		for (const auto &v : o.verdicts) {
			if (v.verdict == "pointless")
				c.add("RDNA-ENV-003", o.name + " @ " + v.device,
				      fmt::format("{}={} equals the native target {}", o.name, o.value, v.native),
				      "it changes nothing today, but stays in effect when the GPU or the libraries "
				      "change",
				      fmt::format("unset {}", o.name));
			else if (v.verdict == "isa_safe")
				c.add("RDNA-ENV-004", o.name + " @ " + v.device,
				      fmt::format("{}={} runs {} code on {}: {}", o.name, o.value, o.gfx, v.native,
						  v.reason),
				      "this is the usual workaround when libraries lack code for the native target",
				      "none needed; prefer libraries with native or generic (gfx10-3-generic) code "
				      "objects "
				      "when available");
			else if (v.verdict == "works_not_guaranteed")
				c.add("RDNA-ENV-012", o.name + " @ " + v.device,
				      fmt::format("{}={} runs {} code on {}: {}", o.name, o.value, o.gfx, v.native,
						  v.reason),
				      "the targets share a generic family with restrictions: most kernels run, some "
				      "can "
				      "fault or use resources the GPU does not have",
				      fmt::format(
					      "prefer libraries with native {} code objects; keep the override only if "
					      "your workload validates (rdnactl validate)",
					      v.native));
			else if (v.verdict == "unsafe")
				c.add("RDNA-ENV-002", o.name + " @ " + v.device,
				      fmt::format("{}={} makes the runtime load {} code on a {}: {}", o.name, o.value,
						  o.gfx, v.native, v.reason),
				      "the instruction sets differ: kernels can trap (HSA_STATUS_ERROR_MEMORY_APERTURE_"
				      "VIOLATION, 'Memory access fault') or compute different results",
				      fmt::format("unset {} and use libraries built for {}", o.name, v.native));
			else
				c.add("RDNA-ENV-013", o.name + " @ " + v.device,
				      fmt::format("{}={} ({}) on {}: {}", o.name, o.value, o.gfx,
						  v.native.empty() ? "unknown native target" : v.native, v.reason),
				      "an ISA the runtime does not know makes agent creation fail ('The GPU node has "
				      "an "
				      "unrecognized id'); an unknown native target cannot be judged",
				      fmt::format("unset {} unless you know the target pair is compatible", o.name));
		}
	}

	// iGPU / dGPU ordering and *_VISIBLE_DEVICES.
	std::vector<const Device *> gpus; // in KFD GPU index order
	for (const Device *d : amd)
		if (d->kfd_gpu_index)
			gpus.push_back(d);
	std::sort(gpus.begin(), gpus.end(),
		  [](const Device *a, const Device *b) { return *a->kfd_gpu_index < *b->kfd_gpu_index; });
	auto is_igpu = [](const Device *d) { return d->apu && *d->apu; };
	auto is_dgpu = [](const Device *d) { return d->apu && !*d->apu; };
	bool mixed = std::any_of(gpus.begin(), gpus.end(), is_igpu) && std::any_of(gpus.begin(), gpus.end(), is_dgpu);
	std::string dgpu_list;
	for (const Device *d : gpus)
		if (is_dgpu(d))
			dgpu_list += (dgpu_list.empty() ? "" : ",") + std::to_string(*d->kfd_gpu_index);

	const VisibleVar *rocr = nullptr, *hip = nullptr, *cuda = nullptr;
	for (const auto &v : env.visible) {
		if (v.name == "ROCR_VISIBLE_DEVICES")
			rocr = &v;
		else if (v.name == "HIP_VISIBLE_DEVICES")
			hip = &v;
		else if (v.name == "CUDA_VISIBLE_DEVICES")
			cuda = &v;
	}
	if (!rocr && !hip && !cuda) {
		if (mixed && is_igpu(gpus.front()))
			c.add("RDNA-ENV-006", dev_label(*gpus.front()),
			      fmt::format("the iGPU is GPU index 0 and the dGPU index {}", dgpu_list),
			      "PyTorch's cuda:0 is then the iGPU: slow, little memory, often an unsupported gfx target "
			      "('shared object initialization failed')",
			      fmt::format("export ROCR_VISIBLE_DEVICES={}", dgpu_list));
	} else {
		// Apply ROCR first (indices into KFD GPUs), then HIP (else CUDA) into the ROCR result.
		std::vector<const Device *> seen = gpus;
		std::vector<std::string> problems;
		auto apply = [&](const VisibleVar *v) {
			if (!v)
				return;
			if (!v->parsed) {
				problems.push_back(fmt::format("{}='{}' not checked: {}", v->name, v->value, v->error));
				return;
			}
			std::vector<const Device *> next;
			for (int i : v->indices) {
				if (i < 0 || size_t(i) >= seen.size()) {
					problems.push_back(fmt::format(
						"{}={} names index {} but only {} GPU{} {} visible", v->name, v->value,
						i, seen.size(), seen.size() == 1 ? "" : "s",
						seen.size() == 1 ? "is" : "are"));
					break; // the runtime stops at the first invalid index
				}
				next.push_back(seen[size_t(i)]);
			}
			seen = next;
		};
		apply(rocr);
		if (hip && cuda && hip->value != cuda->value)
			problems.push_back(fmt::format("HIP_VISIBLE_DEVICES={} and CUDA_VISIBLE_DEVICES={} disagree",
						       hip->value, cuda->value));
		apply(hip ? hip : cuda);
		if (!gpus.empty() && seen.empty() && problems.empty())
			problems.push_back("the variables hide every GPU");
		if (mixed && !seen.empty() && is_igpu(seen.front()))
			problems.push_back(
				fmt::format("the first visible GPU is the iGPU {}", dev_label(*seen.front())));
		if (!problems.empty()) {
			std::string all;
			for (const auto &p : problems)
				all += (all.empty() ? "" : "; ") + p;
			c.add("RDNA-ENV-007", "*_VISIBLE_DEVICES", all,
			      "ROCR_VISIBLE_DEVICES indexes KFD GPU nodes; HIP/CUDA_VISIBLE_DEVICES index what ROCR "
			      "left "
			      "visible; a wrong value hides the GPU you meant or puts the iGPU first",
			      dgpu_list.empty() ? "unset the *_VISIBLE_DEVICES variables"
						: fmt::format("unset HIP_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES; export "
							      "ROCR_VISIBLE_DEVICES={}",
							      dgpu_list));
		}
	}

	// Slow debug switches.
	std::vector<std::string> slow;
	for (std::string_view n :
	     {"HIP_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL", "AMD_SERIALIZE_COPY", "PYTORCH_NO_HIP_MEMORY_CACHING",
	      "PYTORCH_NO_CUDA_MEMORY_CACHING", "CUDA_LAUNCH_BLOCKING"}) {
		auto it = env.vars.find(std::string(n));
		if (it != env.vars.end() && !it->second.empty() && it->second != "0")
			slow.push_back(fmt::format("{}={}", n, it->second));
	}
	if (!slow.empty()) {
		std::string list, names;
		for (const auto &v : slow) {
			list += (list.empty() ? "" : " ") + v;
			names += " " + v.substr(0, v.find('='));
		}
		c.add("RDNA-ENV-008", "environment", "debug switches set: " + list,
		      "they serialise every kernel launch/copy or disable the caching allocator (about 5x slower); "
		      "useful for one debugging run, harmful when left in a profile",
		      "unset" + names);
	}
	if (auto it = env.vars.find("HSA_XNACK"); it != env.vars.end() && it->second == "1") {
		for (const Device *d : amd)
			if (d->generation == "rdna1" || d->generation == "rdna2")
				c.add("RDNA-ENV-009", "HSA_XNACK @ " + dev_label(*d), "HSA_XNACK=1 on a GFX10 GPU",
				      "KFD never enables XNACK (retry/page migration) on GFX10, whatever the variable "
				      "or "
				      "amdgpu.noretry say; xnack+ code objects cannot run there",
				      "unset HSA_XNACK");
	}
	for (std::string_view n : {"PYTORCH_HIP_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"}) {
		auto it = env.vars.find(std::string(n));
		if (it == env.vars.end())
			continue;
		std::string v = it->second;
		std::string lower;
		for (char ch : v)
			lower += char(std::tolower(static_cast<unsigned char>(ch)));
		if (lower.find("expandable_segments:true") != std::string::npos)
			c.add("RDNA-ENV-010", std::string(n), fmt::format("{}={}", n, v),
			      "expandable_segments on ROCm is new (2026) and has produced crashes (pytorch#187343) and "
			      "uninterruptible hangs in hsaKmtMemoryVaMap (pytorch#192259)",
			      fmt::format("remove expandable_segments:True from {} unless you verified it on this "
					  "ROCm/PyTorch",
					  n));
	}
}

// ---------------------------------------------------------------- rdnafix
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
	for (const auto &[name, state] : r.hooks)
		if (state.rfind("inactive", 0) == 0)
			c.add("RDNA-MOD-002", "rdnafix hook " + name, fmt::format("hook {} is {}", name, state),
			      "rdnafix fails closed: the settings that depend on this hook are not applied",
			      "read 'dmesg | grep rdnafix' for the reason; an unsupported kernel needs a newer "
			      "rdnafix");
	if (r.dry_run && *r.dry_run == "1")
		c.add("RDNA-MOD-004", "rdnafix", "rdnafix runs with dry_run=1: it counts but changes nothing",
		      "pte_would_rewrite shows what it would do; nothing is applied",
		      "set 'options rdnafix dry_run=0' in /etc/modprobe.d/rdnafix.conf and reload");
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

void check_unreadable(Ctx &c)
{
	size_t n = 0;
	std::string first;
	auto count = [&](const std::vector<Unreadable> &v) {
		for (const auto &u : v) {
			if (first.empty())
				first = u.path + ": " + u.reason;
			++n;
		}
	};
	for (const auto &d : c.s.devices)
		count(d.unreadable);
	count(c.s.driver.unreadable);
	count(c.s.rdnafix.unreadable);
	count(c.s.access.unreadable);
	count(c.s.environment.unreadable);
	if (n)
		c.add("RDNA-RDR-000", "",
		      fmt::format("{} item{} could not be read (first: {})", n, n == 1 ? "" : "s", first),
		      "the values shown as 'unreadable' are unknown; checks that need them were skipped",
		      "run as root, or check the named files");
}

} // namespace

std::vector<Finding> evaluate(const Snapshot &snap)
{
	Ctx c{snap, {}};
	check_devices(c);
	check_driver(c);
	check_memory(c);
	check_access(c);
	check_environment(c);
	check_rdnafix(c);
	check_unreadable(c);
	std::stable_sort(c.out.begin(), c.out.end(),
			 [](const Finding &a, const Finding &b) { return int(a.severity) > int(b.severity); });
	return c.out;
}

int exit_code_for(const std::vector<Finding> &findings)
{
	for (const auto &f : findings)
		if (f.severity != Severity::info)
			return 1;
	return 0;
}

std::vector<Export> recommend_env(const Snapshot &snap)
{
	std::vector<Export> out;
	std::set<std::string> done;
	auto add = [&](Export e) {
		if (e.comment.size() > 160)
			e.comment = e.comment.substr(0, 157) + "...";
		if (done.insert(e.name).second)
			out.push_back(std::move(e));
	};
	// One short line: the first clause of a finding.
	auto clause = [](std::string s) {
		auto cut = s.find(": ");
		if (cut != std::string::npos && cut > 20)
			s.resize(cut);
		return s;
	};
	const auto &env = snap.environment;
	auto findings = evaluate(snap);
	for (const auto &f : findings) {
		if (f.id == "RDNA-ENV-001" || f.id == "RDNA-ENV-002" || f.id == "RDNA-ENV-003" ||
		    f.id == "RDNA-ENV-011") {
			std::string var = f.subject.substr(0, f.subject.find(' '));
			// An invalid value with a safe replacement is replaced, not unset.
			if (f.id == "RDNA-ENV-001" && f.fix.rfind("export ", 0) == 0) {
				auto eq = f.fix.find('=');
				auto sp = f.fix.find(' ', eq);
				add({var, f.fix.substr(eq + 1, sp - eq - 1), false,
				     clause(f.finding) + "; this is the ISA-safe value", f.id});
			} else {
				add({var, "", true, clause(f.finding), f.id});
			}
		} else if (f.id == "RDNA-ENV-008") {
			for (std::string_view n : {"HIP_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL", "AMD_SERIALIZE_COPY",
						   "PYTORCH_NO_HIP_MEMORY_CACHING", "PYTORCH_NO_CUDA_MEMORY_CACHING",
						   "CUDA_LAUNCH_BLOCKING"})
				if (auto it = env.vars.find(std::string(n));
				    it != env.vars.end() && !it->second.empty() && it->second != "0")
					add({std::string(n), "", true,
					     "slow debug switch (" + std::string(n) + "=" + it->second + ")", f.id});
		} else if (f.id == "RDNA-ENV-009") {
			add({"HSA_XNACK", "", true, "KFD never enables XNACK on GFX10", f.id});
		} else if (f.id == "RDNA-ENV-006" || f.id == "RDNA-ENV-007") {
			auto pos = f.fix.find("ROCR_VISIBLE_DEVICES=");
			if (f.id == "RDNA-ENV-007") {
				for (const auto &v : env.visible)
					if (v.name != "ROCR_VISIBLE_DEVICES")
						add({v.name, "", true, "conflicts with the dGPU selection", f.id});
			}
			if (pos != std::string::npos)
				add({"ROCR_VISIBLE_DEVICES", f.fix.substr(pos + 21), false,
				     "select only the discrete GPU(s): " + clause(f.finding), f.id});
			else if (f.id == "RDNA-ENV-007")
				add({"ROCR_VISIBLE_DEVICES", "", true, clause(f.finding), f.id});
		}
	}
	// Needed override: a gfx103x GPU other than gfx1030 and no valid override set.
	bool have_override = !env.overrides.empty();
	if (!have_override) {
		std::string want;
		std::string why;
		bool conflict = false;
		for (const auto &d : snap.devices) {
			if (!d.is_amd || !d.gfx_target)
				continue;
			// Only GPUs that stay visible matter; with a mixed system we hide the iGPU above.
			std::string safe = safe_override_for(*d.gfx_target);
			if (d.apu && *d.apu &&
			    std::any_of(snap.devices.begin(), snap.devices.end(),
					[](const Device &o) { return o.is_amd && o.apu && !*o.apu; }))
				continue;
			if (safe.empty()) {
				if (rocm_officially_supported(*d.gfx_target))
					continue;
				conflict = conflict || !want.empty();
				continue;
			}
			if (!want.empty() && want != safe)
				conflict = true;
			want = safe;
			why = fmt::format("{} runs gfx1030 code unchanged; wheels ship gfx1030 only", *d.gfx_target);
		}
		if (!want.empty() && !conflict)
			add({"HSA_OVERRIDE_GFX_VERSION", want, false, why, "RDNA-GPU-002"});
	}
	return out;
}

} // namespace rdnafix::status
