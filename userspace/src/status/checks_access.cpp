// Checks: /dev/kfd and the render nodes exist and the subject can open them.
#include "checks.hpp"

#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

namespace {

// Groups that must never be proposed: root (gid 0) gives far more than the
// GPU, nogroup/nobody (65534) is the overflow gid of user namespaces.
bool never_join(const DevNode &n, const std::string &group)
{
	return group == "root" || group == "nogroup" || group == "nobody" || group == "wheel" ||
	       (n.gid && (*n.gid == 0 || *n.gid == 65534));
}

// The node is not the kernel's character device: what it is instead, "" when
// it is right (or nothing is known).
std::string wrong_kind(const DevNode &n)
{
	if (!n.exists || !n.stat_error.empty())
		return "";
	if (!n.file_kind.empty())
		return "a " + n.file_kind + ", not a character device";
	if (n.type == 'b')
		return "a block device, not a character device";
	if (n.type == 'c' && n.expected_major && n.major &&
	    (*n.major != *n.expected_major || n.minor != n.expected_minor))
		return fmt::format("character device {}:{}, but {} says {}:{}", *n.major, n.minor.value_or(0),
				   n.expected_from, *n.expected_major, n.expected_minor.value_or(0));
	return "";
}

} // namespace

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
	if (kfd && !kfd->stat_error.empty()) {
		add_unknown(c, "/dev/kfd", "whether /dev/kfd exists and can be opened",
			    {"/dev/kfd", "dev/kfd", kfd->stat_error});
	} else if (kfd && !kfd->exists) {
		bool has_kfd_nodes = std::any_of(amd.begin(), amd.end(), [](const Device *d) { return d->kfd_node; });
		std::string reason;
		std::string fix;
		if (s.access.container.detected()) {
			reason = "running in a container (" + s.access.container.evidence[0].source +
				 ") without the device node";
			fix = "start the container with --device=/dev/kfd --device=/dev/dri --group-add render "
			      "--group-add video";
		} else if (!s.driver.amdgpu_loaded) {
			reason = "amdgpu is not loaded";
			fix = "modprobe amdgpu (see RDNA-DRV-001)";
		} else if (!has_kfd_nodes && unreadable_item(s, "kfd_topology")) {
			const auto *u = unreadable_item(s, "kfd_topology");
			reason = fmt::format("amdgpu is loaded; whether KFD has a GPU node is unknown ({}: {})",
					     u->path, u->reason);
			fix = "check 'dmesg | grep kfd' and 'ls -l /dev/kfd' on the host";
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
		if (!n.stat_error.empty()) { // unknown (for /dev/kfd said above)
			if (&n != kfd)
				add_unknown(c, n.path, fmt::format("whether {} can be opened", n.path),
					    {n.path, n.path.substr(1), n.stat_error});
			continue;
		}
		if (std::string bad = wrong_kind(n); !bad.empty()) {
			const bool is_kfd = &n == kfd;
			c.add("RDNA-ACC-005", n.path, fmt::format("{} is {}", n.path, bad),
			      std::string(is_kfd ? "ROCm opens /dev/kfd" : "ROCr and libdrm open the render node") +
				      " as the kernel's character device; anything else fails (hipErrorNoDevice)" +
				      (n.file_kind == "directory" ? "; 'docker -v " + n.path + ":" + n.path +
									    "' creates an empty directory when the "
									    "path is missing on the host"
								  : ""),
			      n.file_kind.empty() ? "the node is stale or was created by hand: remove it and let udev "
						    "recreate it (udevadm trigger), or reboot"
						  : "in a container pass the node with --device=" + n.path +
							    " (not -v); on the host remove it and reboot or run "
							    "'udevadm trigger'");
			continue;
		}
		if (!n.exists || v.can_open)
			continue;
		std::string who = s.access.subject == machine::AccessSubject::user
					  ? "user " + core::shell_word(s.access.user)
					  : "this process";
		const bool forbidden = !v.missing_group.empty() && never_join(n, v.missing_group);
		std::string fix =
			forbidden ? fmt::format("do not add users to group '{}': give the node a GPU group "
						"with a udev rule (KERNEL==\"{}\", GROUP=\"render\", "
						"MODE=\"0660\"); in a container, --group-add the host's "
						"render/video gid (or --group-add keep-groups with podman)",
						v.missing_group, n.path.substr(n.path.rfind('/') + 1))
			: v.missing_group.empty()
				? "check the node's owner/mode (udev rules) or run with the right user"
				: fmt::format("usermod -aG {} {}, then log out and in again",
					      core::shell_word(v.missing_group),
					      s.access.user.empty() ? "$USER" : core::shell_word(s.access.user));
		if (!forbidden && !v.missing_group.empty() &&
		    std::find(s.access.relogin_groups.begin(), s.access.relogin_groups.end(), v.missing_group) !=
			    s.access.relogin_groups.end()) {
			c.add("RDNA-ACC-003", n.path,
			      fmt::format("{} is in group '{}' in /etc/group but this session does not have it: {}",
					  s.access.user, v.missing_group, v.verdict),
			      "group membership is read at login; the running session still has the old groups",
			      "log out and log in again (or reboot); 'newgrp " + core::shell_word(v.missing_group) +
				      "' works for one shell");
			continue;
		}
		c.add("RDNA-ACC-002", n.path, fmt::format("{} cannot open {}: {}", who, n.path, v.verdict),
		      "HIP/ROCr open /dev/kfd and the render node read-write; without access the GPU is invisible "
		      "(hipErrorNoDevice or 'Unable to open /dev/kfd read-write')",
		      fix,
		      v.missing_group.empty() || forbidden
			      ? std::vector<Remedy>{NoChange{}}
			      : std::vector<Remedy>{JoinGroup{v.missing_group, s.access.user}});
	}
	const machine::Unreadable *drm = nullptr;
	for (const char *item : {"drm_devices", "drm_node", "device_count"})
		if (!drm)
			drm = unreadable_item(s, item);
	for (const Device *d : amd) {
		if (s.driver.amdgpu_loaded && d->driver == "amdgpu" && d->render_node.empty() && drm)
			add_unknown(c, dev_label(*d), "whether this amdgpu device has a render node", *drm);
		else if (s.driver.amdgpu_loaded && d->driver == "amdgpu" && d->render_node.empty())
			c.add("RDNA-ACC-004", dev_label(*d), "no render node (renderD*) for this amdgpu device",
			      "ROCr and libdrm open the render node; without it the GPU cannot be used",
			      "check 'ls -l /dev/dri' and the container's device list (--device=/dev/dri)");
	}
}

} // namespace detail

} // namespace rdnafix::status
