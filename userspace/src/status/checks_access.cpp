// Checks: /dev/kfd and the render nodes exist and the subject can open them.
#include "checks.hpp"

#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

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
		const NodeAccess &v = c.access(n);
		if (!n.exists || v.can_open)
			continue;
		std::string who =
			s.access.subject == machine::AccessSubject::user ? "user " + s.access.user : "this process";
		std::string fix = v.missing_group.empty()
					  ? "check the node's owner/mode (udev rules) or run with the right user"
					  : fmt::format("usermod -aG {} {}, then log out and in again", v.missing_group,
							s.access.user.empty() ? "$USER" : s.access.user);
		if (!v.missing_group.empty() &&
		    std::find(s.access.relogin_groups.begin(), s.access.relogin_groups.end(), v.missing_group) !=
			    s.access.relogin_groups.end()) {
			c.add("RDNA-ACC-003", n.path,
			      fmt::format("{} is in group '{}' in /etc/group but this session does not have it: {}",
					  s.access.user, v.missing_group, v.verdict),
			      "group membership is read at login; the running session still has the old groups",
			      "log out and log in again (or reboot); 'newgrp " + v.missing_group +
				      "' works for one shell");
			continue;
		}
		c.add("RDNA-ACC-002", n.path, fmt::format("{} cannot open {}: {}", who, n.path, v.verdict),
		      "HIP/ROCr open /dev/kfd and the render node read-write; without access the GPU is invisible "
		      "(hipErrorNoDevice or 'Unable to open /dev/kfd read-write')",
		      fix,
		      v.missing_group.empty() ? std::vector<Remedy>{NoChange{}}
					      : std::vector<Remedy>{JoinGroup{v.missing_group, s.access.user}});
	}
	for (const Device *d : amd) {
		if (s.driver.amdgpu_loaded && d->driver == "amdgpu" && d->render_node.empty())
			c.add("RDNA-ACC-004", dev_label(*d), "no render node (renderD*) for this amdgpu device",
			      "ROCr and libdrm open the render node; without it the GPU cannot be used",
			      "check 'ls -l /dev/dri' and the container's device list (--device=/dev/dri)");
	}
}

} // namespace detail

} // namespace rdnafix::status
