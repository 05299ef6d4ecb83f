// assess(): the verdicts shown next to the facts.  Effective noretry comes
// from core::rules (the same rule validate records), node access and override
// verdicts are judged here.  No I/O.
#include "model.hpp"

#include "machine/facts.hpp"

#include "core/gpudb.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace {

// By mode, owner and group alone.
NodeAccess judge_mode(const DevNode &n, const Subject &who)
{
	NodeAccess r;
	if (!n.exists) {
		r.verdict = "does not exist";
		return r;
	}
	if (!n.mode) {
		r.verdict = "mode unknown";
		return r;
	}
	const unsigned mode = *n.mode;
	auto rw = [](unsigned bits) { return (bits & 6u) == 6u; };
	if (who.uid && *who.uid == 0) {
		r.can_open = true;
		r.verdict = "root";
		return r;
	}
	bool is_owner = (who.uid && n.uid && *who.uid == *n.uid) || (!n.owner.empty() && n.owner == who.user);
	if (is_owner) {
		r.can_open = rw(mode >> 6);
		r.verdict = r.can_open ? "owner has rw" : fmt::format("owner without rw (mode {:04o})", mode);
		return r;
	}
	bool in_group =
		(n.gid && std::find(who.gids.begin(), who.gids.end(), *n.gid) != who.gids.end()) ||
		(!n.group.empty() && std::find(who.groups.begin(), who.groups.end(), n.group) != who.groups.end());
	if (in_group) {
		r.can_open = rw(mode >> 3);
		r.verdict = r.can_open ? fmt::format("member of group '{}' (mode {:04o})", n.group, mode)
				       : fmt::format("group '{}' has no rw (mode {:04o})", n.group, mode);
		return r;
	}
	r.can_open = rw(mode);
	if (r.can_open) {
		r.verdict = fmt::format("world rw (mode {:04o})", mode);
		return r;
	}
	r.missing_group = n.group;
	r.verdict = fmt::format("owned by {}:{} mode {:04o}, not a member of '{}'", n.owner.empty() ? "?" : n.owner,
				n.group.empty() ? "?" : n.group, mode, n.group.empty() ? "?" : n.group);
	return r;
}

} // namespace

Subject subject_of(const Access &a)
{
	return Subject{a.uid, a.user, a.session_gids, a.session_groups};
}

NodeAccess judge_node(const DevNode &n, const Subject &who)
{
	NodeAccess r = judge_mode(n, who);
	if (!n.stat_error.empty()) {
		// Nothing is known of the node, so nothing of access either (not
		// "can open" because the subject is root, not "CANNOT"): the
		// checks report it as unknown too.
		r = NodeAccess{};
		r.unknown = true;
		r.verdict = n.stat_error;
		return r;
	}
	// On the live machine the kernel has the last word (ACLs from logind's
	// uaccess, capabilities).
	if (n.kernel_allows_rw) {
		if (*n.kernel_allows_rw && !r.can_open) {
			r.can_open = true;
			r.verdict += " — but access() allows it (ACL)";
			r.missing_group.clear();
		} else if (!*n.kernel_allows_rw && r.can_open) {
			r.can_open = false;
			r.verdict += fmt::format(" — but access() refuses: {}", n.kernel_refusal);
		}
	}
	return r;
}

std::vector<OverrideJudgement> judge_override(const OverrideVar &o, const Snapshot &snap)
{
	std::vector<OverrideJudgement> out;
	if (!o.target)
		return out;
	const auto &vars = snap.environment.vars;
	for (const auto &d : snap.devices) {
		if (!d.is_amd)
			continue;
		if (o.node && d.kfd_node != o.node)
			continue;
		// A node-specific variable takes precedence over the global one.
		if (!o.node && d.kfd_node && vars.count(fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", *d.kfd_node)))
			continue;
		OverrideJudgement v;
		v.device = d.pci_bdf;
		v.native = d.gfx_target.value_or("");
		auto native = d.gfx_target ? gpudb::parse_gfx_name(*d.gfx_target) : std::nullopt;
		if (!native) {
			v.verdict = rules::OverrideVerdict::unknown;
			v.reason = "native gfx target unknown";
		} else {
			auto a = rules::assess_override(*native, *o.target);
			v.verdict = a.verdict;
			v.reason = a.reason;
		}
		out.push_back(v);
	}
	return out;
}

Assessment assess(const Snapshot &snap)
{
	Assessment a;
	for (const auto &d : snap.devices)
		a.noretry.push_back(d.is_amd ? rules::device_noretry(machine::noretry_facts(snap, d))
					     : rules::DeviceNoretry{});
	const Subject who = subject_of(snap.access);
	for (const auto &n : snap.access.nodes) {
		NodeAccess v = judge_node(n, who);
		// In a user namespace the overflow gid stands for every unmapped host
		// group: membership of it in the container's etc/group grants nothing.
		const auto &acc = snap.access;
		const unsigned overflow = acc.userns.overflow_gid.value_or(65534);
		if (acc.subject == machine::AccessSubject::user && v.can_open && !n.kernel_allows_rw && n.gid &&
		    *n.gid == overflow && n.mode && (*n.mode & 6u) != 6u && !(who.uid && n.uid && *who.uid == *n.uid) &&
		    !(who.uid && *who.uid == 0) &&
		    (acc.container.detected() || (acc.userns.read && !acc.userns.initial()))) {
			v.can_open = false;
			v.verdict = fmt::format("owned by {}:{} mode {:04o}, the overflow gid: membership of '{}' "
						"grants nothing",
						n.owner.empty() ? "?" : n.owner, n.group, *n.mode, n.group);
		}
		a.nodes.push_back(v);
	}
	for (const auto &o : snap.environment.overrides)
		a.overrides.push_back(judge_override(o, snap));
	a.settings = machine::configured_settings(snap);
	a.variables = judge_variables(snap.environment);
	return a;
}

} // namespace rdnafix::status
