// Reader: who is judged (this process or --user), its groups and the device
// nodes /dev/kfd and /dev/dri/renderD*.
#include "machine/collect_internal.hpp"

#include "io/process.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::machine {

namespace detail {

void collect_access(io::RootFs &fs, Access &a, const std::vector<Device> &devices,
		    const std::optional<std::string> &user)
{
	auto &u = a.unreadable;
	core::GroupFile groups;
	core::PasswdFile passwd;
	if (auto t = fs.read_text("etc/group", {.max_bytes = 4 << 20, .allow_empty = true}))
		groups = core::parse_group_file(*t);
	else
		note(u, "etc_group", t.error());
	if (auto t = fs.read_text("etc/passwd", {.max_bytes = 4 << 20, .allow_empty = true}))
		passwd = core::parse_passwd_file(*t);
	else
		note(u, "etc_passwd", t.error());

	auto gname = [&](unsigned gid) {
		const auto *g = groups.by_gid(gid);
		return g ? g->name : std::to_string(gid);
	};
	// Linear in etc/group (hash lookups): a file of 190,000 groups is read in
	// well under a second.
	auto configured_gids = [&](const std::string &name, std::optional<unsigned> primary) {
		std::vector<unsigned> out;
		if (primary)
			out.push_back(*primary);
		for (unsigned g : groups.member_gids(name))
			if (!primary || g != *primary)
				out.push_back(g);
		return out;
	};

	if (user) {
		// --user: judged with the groups etc/group gives the user.  A
		// number that names no user is a uid (as id(1) and chown(1) take it).
		a.subject = AccessSubject::user;
		a.user = *user;
		const auto *pw = passwd.by_name(*user);
		if (!pw && !user->empty() && user->find_first_not_of("0123456789") == std::string::npos)
			if (auto uid = core::parse_u64(*user); uid && *uid <= 0xffffffffu)
				if ((pw = passwd.by_uid(unsigned(*uid))) != nullptr)
					a.user = pw->name;
		// etc/group lists members by name: a uid is looked up as the name
		// etc/passwd gives it, so "--user 1000" and "--user alice" agree.
		if (!pw) {
			u.push_back({"user", "etc/passwd",
				     fmt::format("unreadable: user '{}' is not in etc/passwd", *user)});
			a.session_gids = configured_gids(*user, std::nullopt);
		} else {
			a.uid = pw->uid;
			a.session_gids = configured_gids(pw->name, pw->gid);
		}
		for (unsigned g : a.session_gids)
			a.session_groups.push_back(gname(g));
		a.configured_groups = a.session_groups;
	} else {
		// This process: judged with the groups its session has now.
		a.subject = AccessSubject::process;
		const io::ProcessIdentity self = io::process_identity();
		a.uid = self.euid;
		for (unsigned g : self.gids)
			if (std::find(a.session_gids.begin(), a.session_gids.end(), g) == a.session_gids.end())
				a.session_gids.push_back(g);
		std::sort(a.session_gids.begin(), a.session_gids.end());
		const auto *pw = passwd.by_uid(self.euid);
		a.user = pw ? pw->name : "";
		for (unsigned g : a.session_gids)
			a.session_groups.push_back(gname(g));
		if (pw) {
			for (unsigned g : configured_gids(pw->name, pw->gid)) {
				a.configured_groups.push_back(gname(g));
				if (std::find(a.session_gids.begin(), a.session_gids.end(), g) == a.session_gids.end())
					a.relogin_groups.push_back(gname(g));
			}
		}
	}

	// A captured tree's device nodes are regular files described by
	// dev/.devnodes; a manifest with bad lines makes every node it does not
	// describe unknown (not "a regular file").
	const auto &manifest = fs.devnode_manifest();
	for (const auto &p : manifest.problems)
		u.push_back({"dev_devnodes", "dev/.devnodes", "unreadable: " + p});

	// path, the kernel's "major:minor" file for it
	std::vector<std::pair<std::string, std::string>> paths{{"dev/kfd", "sys/class/kfd/kfd/dev"}};
	for (const auto &d : devices)
		if (d.is_amd && !d.render_node.empty())
			paths.emplace_back("dev/dri/" + d.render_node, "sys/class/drm/" + d.render_node + "/dev");
	for (const auto &[p, devfile] : paths) {
		DevNode n;
		n.path = "/" + p;
		if (auto t = fs.read_value(devfile)) {
			auto mm = core::parse_major_minor(*t);
			if (mm) {
				n.expected_major = mm->first;
				n.expected_minor = mm->second;
				n.expected_from = devfile;
			} else {
				u.push_back({n.path + ".dev", devfile, "unreadable: " + mm.error().message});
			}
		}
		auto st = fs.stat(p);
		if (!st) {
			if (st.error().kind != io::FsErrorKind::not_found) {
				note(u, n.path, st.error());
				n.stat_error = st.error().reason();
			}
			a.nodes.push_back(n);
			continue;
		}
		n.exists = true;
		if (!fs.is_live() && !st->from_manifest && st->type == io::FileType::regular &&
		    !manifest.problems.empty()) {
			n.stat_error = "unreadable: dev/.devnodes is malformed and does not describe it";
			u.push_back({n.path, "dev/.devnodes", n.stat_error});
			a.nodes.push_back(n);
			continue;
		}
		n.stat_source = st->from_manifest ? StatSource::manifest : StatSource::stat;
		n.type = st->type == io::FileType::char_device ? 'c' : st->type == io::FileType::block_device ? 'b' : 0;
		if (!n.type)
			n.file_kind = st->type == io::FileType::directory ? "directory"
				      : st->type == io::FileType::fifo    ? "FIFO"
				      : st->type == io::FileType::regular ? "regular file"
				      : st->type == io::FileType::socket  ? "socket"
									  : "other";
		if (n.type) {
			n.major = st->dev_major;
			n.minor = st->dev_minor;
		}
		n.mode = st->mode;
		if (st->uid)
			n.uid = unsigned(*st->uid);
		if (st->gid)
			n.gid = unsigned(*st->gid);
		n.owner = st->owner ? *st->owner : "";
		n.group = st->group ? *st->group : "";
		if (n.owner.empty() && n.uid) {
			const auto *pw = passwd.by_uid(*n.uid);
			n.owner = pw ? pw->name : std::to_string(*n.uid);
		}
		if (n.group.empty() && n.gid)
			n.group = gname(*n.gid);
		if (!n.gid && !n.group.empty()) {
			if (const auto *g = groups.by_name(n.group))
				n.gid = g->gid;
			else if (n.group.find_first_not_of("0123456789") == std::string::npos)
				if (auto x = core::parse_u64(n.group); x && *x <= 0xffffffffu)
					n.gid = unsigned(*x); // ls -l shows a gid without a name as the number
		}
		// On the live machine the kernel has the last word (ACLs from logind's
		// uaccess, capabilities): ask it for the running process.
		if (fs.is_live() && a.subject == AccessSubject::process) {
			const io::AccessCheck kernel = io::check_read_write(n.path);
			n.kernel_allows_rw = kernel.allowed;
			if (!kernel.allowed)
				n.kernel_refusal = kernel.error;
		}
		a.nodes.push_back(n);
	}
}

} // namespace detail

} // namespace rdnafix::machine
