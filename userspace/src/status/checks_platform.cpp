// Checks: where rdnactl runs.  WSL (RDNA-WSL-001..007): the GPU is reached
// through /dev/dxg, so the amdgpu, KFD and boot-configuration findings do not
// apply; the WSL kernel, /dev/dxg and the ROCm-on-WSL runtime files are
// judged instead.  Containers (RDNA-ACC-006..008): the container and its user
// namespace, a device node owned by the overflow gid, a node whose host gid
// the process lacks, each with the option the container needs.
#include "checks.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

namespace {

using machine::ContainerKind;
using machine::WslKind;

bool is_module_or_boot(const Finding &f)
{
	for (const auto &r : f.remedies)
		if (std::holds_alternative<ModuleOption>(r) || std::holds_alternative<KernelParam>(r))
			return true;
	return f.id.rfind("RDNA-MOD-", 0) == 0 || f.id.rfind("RDNA-CFG-", 0) == 0 || f.id.rfind("RDNA-DRV-", 0) == 0;
}

std::string join(const std::vector<std::string> &v)
{
	std::string out;
	for (const auto &x : v)
		out += (out.empty() ? "" : ", ") + x;
	return out.empty() ? "-" : out;
}

// "7.2.1" -> 702; 0 when not a version.
int major_minor(const std::string &v)
{
	int a = 0, b = 0;
	if (std::sscanf(v.c_str(), "%d.%d", &a, &b) != 2)
		return 0;
	return a * 100 + b;
}

void check_wsl(Ctx &c)
{
	const auto &w = c.s.wsl;
	// Nothing of amdgpu, rdnafix or the boot configuration exists on WSL:
	// the Windows driver owns the GPU.
	c.out.erase(std::remove_if(c.out.begin(), c.out.end(), is_module_or_boot), c.out.end());
	const std::string rel = c.s.driver.kernel_release;
	if (w.kind == WslKind::wsl1) {
		c.add("RDNA-WSL-003", rel, fmt::format("WSL1 (kernel '{}'): no Linux kernel and no GPU", rel),
		      "WSL1 translates Linux system calls in Windows; it has no /dev/dxg, so ROCm cannot reach any GPU",
		      "convert the distribution in Windows PowerShell: wsl --set-version <distribution> 2 (see "
		      "'wsl -l -v'), then install ROCm for WSL");
		return;
	}
	if (!w.dxg_error.empty()) {
		add_unknown(c, "/dev/dxg", "whether /dev/dxg exists", w.unreadable.front());
	} else if (!w.dxg_exists) {
		c.add("RDNA-WSL-002", "/dev/dxg", fmt::format("WSL2 (kernel '{}') without /dev/dxg", rel),
		      "ROCm on WSL2 reaches the GPU only through /dev/dxg, the paravirtual device of the Windows GPU "
		      "driver; without it no GPU is visible",
		      "on Windows install an AMD Adrenalin driver that supports ROCm on WSL (AMD's WSL compatibility "
		      "table), run 'wsl --update' and 'wsl --shutdown', then start the distribution again; in a "
		      "container pass --device=/dev/dxg");
	} else {
		c.add("RDNA-WSL-001", "/dev/dxg",
		      fmt::format(
			      "WSL2 (kernel '{}'): the GPU is reached through /dev/dxg; amdgpu, /dev/kfd and render "
			      "nodes do not exist here",
			      rel),
		      "checked here: the WSL kernel, /dev/dxg, the WSL libraries and the ROCm-on-WSL runtime files; "
		      "not "
		      "visible from WSL: the GPU model and gfx target, the Windows driver version, GPU memory limits "
		      "(rocminfo shows them); amdgpu options, the kernel command line and rdnafix do not apply",
		      "none needed");
	}
	const bool wsl_runtime = !w.rocdxg.empty() || !w.rocr4wsl.empty();
	const bool rocm = std::any_of(w.hsa_runtimes.begin(), w.hsa_runtimes.end(),
				      [](const std::string &p) { return p.rfind("opt/rocm", 0) == 0; });
	if (rocm && !wsl_runtime)
		c.add("RDNA-WSL-004", "ROCm",
		      fmt::format("ROCm is installed ({}) without its WSL runtime: no librocdxg, no "
				  "hsa-runtime-rocr4wsl-amdgpu",
				  join(w.hsa_runtimes)),
		      "the ordinary libhsa-runtime64 looks for /dev/kfd, which WSL2 does not have: rocminfo says 'ROCk "
		      "module is NOT loaded' and lists no GPU agent",
		      "ROCm 7.2.1 and later: install librocdxg (the .deb of github.com/ROCm/librocdxg releases); ROCm "
		      "6.1.3 to 7.2.0: amdgpu-install -y --usecase=wsl,rocm --no-dkms");
	const auto &vars = c.s.environment.platform; // also read where the variable table does not list it
	auto dxg_var = vars.find("HSA_ENABLE_DXG_DETECTION");
	const int ver = major_minor(w.rocm_version);
	if (!w.rocdxg.empty() && (dxg_var == vars.end() || dxg_var->second != "1") && (ver == 0 || ver < 713))
		c.add("RDNA-WSL-005", "HSA_ENABLE_DXG_DETECTION",
		      fmt::format("librocdxg is installed ({}) but HSA_ENABLE_DXG_DETECTION is {}", join(w.rocdxg),
				  dxg_var == vars.end() ? "not set" : "'" + dxg_var->second + "'"),
		      fmt::format("ROCm before 7.13{} loads librocdxg only when HSA_ENABLE_DXG_DETECTION=1; without it "
				  "the runtime looks for /dev/kfd and finds no GPU",
				  w.rocm_version.empty() ? "" : " (this is " + w.rocm_version + ")"),
		      "export HSA_ENABLE_DXG_DETECTION=1 (in ~/.bashrc; in a container: -e HSA_ENABLE_DXG_DETECTION=1)",
		      {SetEnv{"HSA_ENABLE_DXG_DETECTION", "1",
			      "ROCm before 7.13 reaches the GPU through librocdxg only then"}});
	for (const auto &h : w.hsa_runtimes)
		if (h.rfind("usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1", 0) == 0 && wsl_runtime) {
			c.add("RDNA-WSL-006", "/" + h,
			      "the distribution's libhsa-runtime64.so.1 is in /usr/lib/x86_64-linux-gnu",
			      "the loader finds it before /opt/rocm/lib; it has no WSL support and fails with 'ROCk "
			      "module "
			      "is NOT loaded'",
			      "sudo apt remove libhsa-runtime64-1 libhsakmt1");
			break;
		}
	const bool dxcore = std::find(w.wsl_libs.begin(), w.wsl_libs.end(), "libdxcore.so") != w.wsl_libs.end();
	if (w.dxg_exists && wsl_runtime && !dxcore)
		c.add("RDNA-WSL-007", "/usr/lib/wsl/lib/libdxcore.so", "libdxcore.so is missing from /usr/lib/wsl/lib",
		      "the ROCm-on-WSL runtime talks to /dev/dxg through Microsoft's libdxcore.so, which WSL mounts "
		      "from Windows at /usr/lib/wsl/lib",
		      "in a container add -v /usr/lib/wsl/lib:/usr/lib/wsl/lib; on WSL itself run 'wsl --update' and "
		      "'wsl --shutdown'");
}

std::string engine_of(ContainerKind k)
{
	return k == ContainerKind::docker ? "docker" : k == ContainerKind::distrobox ? "distrobox" : "podman";
}

void check_container(Ctx &c)
{
	const auto &acc = c.s.access;
	const bool remapped = acc.userns.read && !acc.userns.initial();
	if (!acc.container.detected() && !remapped)
		return;
	if (acc.container.detected()) {
		std::string ev;
		for (const auto &m : acc.container.evidence)
			ev += (ev.empty() ? "" : ", ") + m.source + (m.value.empty() ? "" : "=" + m.value);
		c.add("RDNA-ACC-006", std::string(machine::to_string(acc.container.kind)),
		      fmt::format("running in a {} container{} ({})", machine::to_string(acc.container.kind),
				  acc.container.rootless && *acc.container.rootless ? ", rootless" : "", ev),
		      "device nodes, groups and /etc/group are the container's: a node's group is the host's gid, "
		      "named by the container's /etc/group (or by the overflow id when it is not mapped)",
		      "none needed");
	}
	const unsigned overflow = acc.userns.overflow_gid.value_or(65534);
	const std::string engine = engine_of(acc.container.kind);
	for (const auto &n : acc.nodes) {
		const NodeAccess &v = c.access(n);
		if (!n.exists || !n.stat_error.empty() || !n.mode || (*n.mode & 6u) == 6u)
			continue;
		const bool is_overflow = n.gid ? *n.gid == overflow : (n.group == "nogroup" || n.group == "nobody");
		if (is_overflow && (!v.can_open || acc.subject == machine::AccessSubject::user) &&
		    !(acc.uid && *acc.uid == 0 && !remapped)) {
			drop(c, "RDNA-ACC-002", n.path);
			const bool distrobox = acc.container.kind == ContainerKind::distrobox;
			c.add("RDNA-ACC-007", n.path,
			      fmt::format("{} is owned by group '{}' (gid {}, the overflow gid): its host group is not "
					  "mapped into this user namespace",
					  n.path, n.group.empty() ? "?" : n.group, overflow),
			      "an unmapped host group shows as the overflow gid, and membership of that group inside "
			      "the "
			      "container grants nothing; only a process that keeps the host's supplementary groups can "
			      "open "
			      "the node",
			      acc.container.kind == ContainerKind::docker ? "rootless Docker cannot pass host groups "
									    "on: run the container with rootful Docker "
									    "and --group-add <the host's render gid>, "
									    "or use Podman with --group-add keep-groups"
			      : distrobox
				      ? "create the box again with distrobox create --additional-flags "
					"\"--group-add keep-groups\" (the host user must be in group render)"
				      : "create the container again with podman run --group-add keep-groups (the host "
					"user must be in group render; crun or runc 1.1.9 and later)",
			      {ContainerOption{acc.container.kind == ContainerKind::docker ? "podman" : engine,
					       "--group-add", "keep-groups"}});
			continue;
		}
		if (v.can_open || !acc.container.detected() || !n.gid || *n.gid == 0 || is_overflow)
			continue;
		const bool named = !n.group.empty() && n.group != std::to_string(*n.gid);
		drop(c, "RDNA-ACC-002", n.path);
		c.add("RDNA-ACC-008", n.path,
		      fmt::format("{} belongs to gid {}{}, which {} does not have (groups: {})", n.path, *n.gid,
				  named ? " ('" + n.group + "' in this container)" : " (no name in this container)",
				  acc.subject == machine::AccessSubject::user ? "user " + acc.user : "this process",
				  join(acc.session_groups)),
		      "the node keeps the host's numeric gid; --group-add with a name uses the container's /etc/group, "
		      "whose render or video gid can differ from the host's",
		      fmt::format("create the container again with {} run ... --group-add {} (the number: on the host "
				  "'getent group render' or 'stat -c %g {}')",
				  engine == "distrobox" ? "podman" : engine, *n.gid, n.path),
		      {ContainerOption{engine, "--group-add", std::to_string(*n.gid)}});
	}
}

} // namespace

void check_platform(Ctx &c)
{
	if (c.s.wsl.kind != WslKind::none)
		check_wsl(c);
	check_container(c);
}

} // namespace detail

} // namespace rdnafix::status
