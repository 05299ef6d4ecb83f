// The collector: everything that is not a device record is read here through
// RootFs (identical for the live and the --root path); devices come from
// collect_sysfs.cpp (--root) or collect_udev.cpp (live).
#include "machine/collect.hpp"

#include "machine/interpret.hpp"

#include "core/parse.hpp"
#include "core/rules.hpp"

#include <fcntl.h>
#include <grp.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <set>

extern char **environ;

namespace rdnafix::machine {

namespace {

void note(std::vector<Unreadable> &u, std::string item, const io::FsError &e)
{
	u.push_back({std::move(item), e.path, e.reason()});
}

// read_value that records a failure other than "does not exist".
std::optional<std::string> value(io::RootFs &fs, const std::string &path, std::vector<Unreadable> &u,
				 const std::string &item, bool missing_is_error = false)
{
	auto r = fs.read_value(path);
	if (r)
		return *r;
	if (missing_is_error || r.error().kind != io::FsErrorKind::not_found)
		note(u, item, r.error());
	return std::nullopt;
}

std::vector<core::LoadedModule> read_modules(io::RootFs &fs, std::vector<Unreadable> &u)
{
	auto t = fs.read_text("proc/modules", {.max_bytes = 4 << 20, .allow_empty = true});
	if (!t) {
		if (t.error().kind != io::FsErrorKind::not_found)
			note(u, "proc_modules", t.error());
		return {};
	}
	auto m = core::parse_proc_modules(*t);
	if (!m) {
		u.push_back({"proc_modules", "proc/modules", "unreadable: " + m.error().message});
		return {};
	}
	return *m;
}

bool has_module(const std::vector<core::LoadedModule> &mods, std::string_view name)
{
	return std::any_of(mods.begin(), mods.end(), [&](const auto &m) { return m.name == name; });
}

std::vector<ModprobeFile> read_modprobe_d(io::RootFs &fs, std::vector<Unreadable> &u)
{
	// kmod's search order; a file name in an earlier directory hides the same
	// name in a later one; files are applied in name order.
	std::map<std::string, std::string> chosen; // basename -> rel path
	for (const char *dir :
	     {"etc/modprobe.d", "run/modprobe.d", "usr/local/lib/modprobe.d", "lib/modprobe.d", "usr/lib/modprobe.d"}) {
		auto names = fs.list_dir(dir);
		if (!names) {
			if (names.error().kind != io::FsErrorKind::not_found)
				note(u, "modprobe_d", names.error());
			continue;
		}
		for (const auto &n : *names)
			if (n.size() > 5 && n.compare(n.size() - 5, 5, ".conf") == 0 && !chosen.count(n))
				chosen[n] = std::string(dir) + "/" + n;
	}
	std::vector<ModprobeFile> out;
	for (const auto &[n, rel] : chosen) {
		auto t = fs.read_text(rel, {.max_bytes = 1 << 20, .allow_empty = true});
		if (!t) {
			note(u, "modprobe_d", t.error());
			continue;
		}
		out.push_back({rel, core::parse_modprobe_conf(*t, "/" + rel)});
	}
	return out;
}

void collect_driver(io::RootFs &fs, Driver &d, const std::vector<core::LoadedModule> &mods,
		    std::vector<ModprobeFile> &modprobe)
{
	auto &u = d.unreadable;
	d.kernel_release = value(fs, "proc/sys/kernel/osrelease", u, "kernel_release", true).value_or("");
	d.kernel_version_line = value(fs, "proc/version", u, "kernel_version", true).value_or("");
	auto cmd = fs.read_bytes("proc/cmdline");
	if (cmd) {
		d.cmdline = *cmd;
		while (!d.cmdline.empty() && (d.cmdline.back() == '\n' || d.cmdline.back() == '\0'))
			d.cmdline.pop_back();
	} else {
		note(u, "cmdline", cmd.error());
	}
	d.amdgpu_loaded = fs.exists("sys/module/amdgpu") || has_module(mods, "amdgpu");
	d.initstate = value(fs, "sys/module/amdgpu/initstate", u, "initstate");

	auto cmdline = core::parse_kernel_cmdline(d.cmdline);
	std::set<std::pair<std::string, std::string>> names(reported_params().begin(), reported_params().end());
	std::vector<core::ModprobeConfig> cfgs;
	for (const auto &f : modprobe)
		cfgs.push_back(f.config);
	for (const char *m : {"amdgpu", "ttm", "amdttm"}) {
		for (const auto &[n, s] : core::module_options(cfgs, m))
			names.insert({m, n});
		for (const auto &[n, a] : cmdline.module_params(m))
			names.insert({m, n});
	}
	std::map<std::string, std::optional<std::string>> live;
	for (const auto &[m, n] : names) {
		std::string mod_dir = "sys/module/" + m;
		if (!fs.exists(mod_dir))
			continue;
		// String parameters such as lockup_timeout print "" when unset.
		auto r = fs.read_value(mod_dir + "/parameters/" + n, {.allow_empty = true});
		if (r)
			live[m + "." + n] = *r;
		else if (r.error().kind == io::FsErrorKind::empty)
			live[m + "." + n] = "";
		else if (r.error().kind != io::FsErrorKind::not_found)
			note(u, m + "." + n, r.error()); // unreadable; not_found: no such parameter here
	}
	d.params = build_params(cmdline, modprobe, live);
	for (auto &p : d.params)
		if (p.source == "modprobe.d" && !p.source_file.empty() && p.source_file[0] != '/')
			p.source_file = "/" + p.source_file;

	auto pages = [&](const char *m) -> std::optional<std::uint64_t> {
		auto it = live.find(std::string(m) + ".pages_limit");
		if (it == live.end() || !it->second)
			return std::nullopt;
		auto v = core::parse_u64(*it->second);
		if (!v) {
			u.push_back({std::string(m) + ".pages_limit",
				     std::string("sys/module/") + m + "/parameters/pages_limit",
				     "unreadable: " + v.error().message});
			return std::nullopt;
		}
		return *v;
	};
	d.ttm_pages_limit = pages("ttm");
	d.amdttm_pages_limit = pages("amdttm");
	if (auto p = d.amdttm_pages_limit ? d.amdttm_pages_limit : d.ttm_pages_limit)
		d.ttm_limit_bytes = rules::ttm_pages_limit_bytes(*p);

	if (auto mi = fs.read_text("proc/meminfo", {.max_bytes = 1 << 20, .allow_empty = true})) {
		auto pos = mi->find("MemTotal:");
		if (pos != std::string::npos) {
			auto end = mi->find('\n', pos);
			std::string line =
				mi->substr(pos + 9, end == std::string::npos ? std::string::npos : end - pos - 9);
			auto kb = line.find("kB");
			if (auto v = core::parse_u64(line.substr(0, kb)); v)
				d.mem_total_bytes = *v * 1024;
			else
				u.push_back({"mem_total_bytes", "proc/meminfo", "unreadable: " + v.error().message});
		}
	} else if (mi.error().kind != io::FsErrorKind::not_found) {
		note(u, "mem_total_bytes", mi.error());
	}
}

void collect_rdnafix(io::RootFs &fs, Rdnafix &r, const std::string &release,
		     const std::vector<core::LoadedModule> &mods)
{
	auto &u = r.unreadable;
	if (!release.empty() && release.find('/') == std::string::npos && release != "." && release != "..") {
		for (const char *dir : {"updates/dkms", "updates", "extra", "kernel/extra", "misc"})
			for (const char *ext : {".ko", ".ko.xz", ".ko.zst", ".ko.gz"}) {
				std::string p = fmt::format("lib/modules/{}/{}/rdnafix{}", release, dir, ext);
				if (fs.exists(p))
					r.installed_paths.push_back("/" + p);
			}
	}
	r.installed = !r.installed_paths.empty();
	if (has_module(mods, "rdnafix")) {
		r.loaded = true;
		r.loaded_evidence = "proc/modules";
	} else if (fs.exists("sys/module/rdnafix")) {
		r.loaded = true;
		r.loaded_evidence = "sys/module/rdnafix";
	}
	if (auto params = fs.list_dir("sys/module/rdnafix/parameters")) {
		for (const auto &p : *params) {
			// String parameters (targets, exclude) print "\n" when empty.
			auto v = fs.read_value("sys/module/rdnafix/parameters/" + p, {.allow_empty = true});
			if (v)
				r.params[p] = *v;
			else if (v.error().kind == io::FsErrorKind::empty)
				r.params[p] = "";
			else
				note(u, "rdnafix.parameters." + p, v.error());
		}
	}
	const std::string base = "sys/kernel/rdnafix";
	if (!fs.exists(base))
		return;
	r.version = value(fs, base + "/version", u, "rdnafix.version", true);
	r.abi_version = value(fs, base + "/abi_version", u, "rdnafix.abi_version", true);
	r.amdgpu_state = value(fs, base + "/amdgpu", u, "rdnafix.amdgpu", true);
	r.dry_run = value(fs, base + "/dry_run", u, "rdnafix.dry_run", true);
	if (auto hooks = fs.list_dir(base + "/hooks")) {
		for (const auto &h : *hooks)
			if (auto v = value(fs, base + "/hooks/" + h, u, "rdnafix.hooks." + h, true))
				r.hooks[h] = *v;
	} else {
		note(u, "rdnafix.hooks", hooks.error());
	}
	static const std::vector<std::string> abi{"pci_id",
						  "gfx_target",
						  "generation",
						  "targeted",
						  "reason",
						  "noretry_requested",
						  "noretry_applied",
						  "fragment_size_requested",
						  "fragment_size_applied",
						  "mtype_sysmem",
						  "mtype_vram",
						  "pte_calls",
						  "pte_rewrites",
						  "pte_would_rewrite"};
	if (auto devs = fs.list_dir(base + "/devices")) {
		for (const auto &bdf : *devs) {
			RdnafixDevice d;
			d.pci_bdf = bdf;
			for (const auto &f : abi)
				if (auto v = value(fs, base + "/devices/" + bdf + "/" + f, u,
						   "rdnafix.devices." + bdf + "." + f, true))
					d.values[f] = *v;
			r.devices.push_back(std::move(d));
		}
	} else if (devs.error().kind != io::FsErrorKind::not_found) {
		note(u, "rdnafix.devices", devs.error());
	}
}

std::vector<KfdNodeInfo> collect_kfd(io::RootFs &fs, std::vector<Unreadable> &u)
{
	std::vector<KfdNodeInfo> out;
	const std::string base = "sys/class/kfd/kfd/topology/nodes";
	auto names = fs.list_dir(base);
	if (!names) {
		if (names.error().kind != io::FsErrorKind::not_found)
			note(u, "kfd_topology", names.error());
		return out;
	}
	for (const auto &n : *names) {
		auto id = core::parse_u64(n);
		if (!id || *id > 100000)
			continue;
		std::string dir = base + "/" + n;
		auto t = fs.read_text(dir + "/properties");
		if (!t) {
			note(u, "kfd_node_" + n, t.error());
			continue;
		}
		auto props = core::parse_kfd_properties(*t);
		if (!props) {
			u.push_back({"kfd_node_" + n, dir + "/properties", "unreadable: " + props.error().message});
			continue;
		}
		KfdNodeInfo k;
		k.node_id = int(*id);
		k.props = core::kfd_node_from(*props);
		if (k.props.is_gpu()) {
			if (auto g = fs.read_value(dir + "/gpu_id"))
				if (auto v = core::parse_u64(*g); v && *v <= 0xffffffffu)
					k.gpu_id = std::uint32_t(*v);
			if (auto banks = fs.list_dir(dir + "/mem_banks")) {
				std::uint64_t sum = 0;
				bool any = false;
				for (const auto &b : *banks) {
					auto bt = fs.read_text(dir + "/mem_banks/" + b + "/properties");
					if (!bt)
						continue;
					auto bank = core::parse_kfd_mem_bank(*bt);
					if (bank && (bank->heap_type == 1 || bank->heap_type == 2)) {
						sum += bank->size_in_bytes;
						any = true;
					}
				}
				if (any)
					k.local_mem_bytes = sum;
			}
		}
		out.push_back(k);
	}
	std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return a.node_id < b.node_id; });
	return out;
}

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
	auto configured_gids = [&](const std::string &name, std::optional<unsigned> primary) {
		std::vector<unsigned> out;
		if (primary)
			out.push_back(*primary);
		for (const auto &g : groups.groups)
			if (std::find(g.members.begin(), g.members.end(), name) != g.members.end() &&
			    std::find(out.begin(), out.end(), g.gid) == out.end())
				out.push_back(g.gid);
		return out;
	};

	Subject who;
	if (user) {
		a.subject = "user";
		a.user = *user;
		const auto *pw = passwd.by_name(*user);
		if (!pw) {
			u.push_back({"user", "etc/passwd",
				     fmt::format("unreadable: user '{}' is not in etc/passwd", *user)});
			auto gids = configured_gids(*user, std::nullopt);
			who.gids = gids;
		} else {
			a.uid = pw->uid;
			who.uid = pw->uid;
			who.gids = configured_gids(*user, pw->gid);
		}
		who.user = *user;
		for (unsigned g : who.gids)
			who.groups.push_back(gname(g));
		a.session_groups = who.groups;
		a.configured_groups = who.groups;
	} else {
		a.subject = "process";
		unsigned uid = ::geteuid();
		a.uid = uid;
		who.uid = uid;
		std::vector<gid_t> gl(size_t(std::max(0, ::getgroups(0, nullptr))) + 1);
		int n = ::getgroups(int(gl.size()), gl.data());
		gl.resize(size_t(std::max(0, n)));
		gl.push_back(::getegid());
		for (gid_t g : gl)
			if (std::find(who.gids.begin(), who.gids.end(), unsigned(g)) == who.gids.end())
				who.gids.push_back(unsigned(g));
		std::sort(who.gids.begin(), who.gids.end());
		const auto *pw = passwd.by_uid(uid);
		a.user = pw ? pw->name : "";
		who.user = a.user;
		for (unsigned g : who.gids)
			who.groups.push_back(gname(g));
		a.session_groups = who.groups;
		if (pw) {
			for (unsigned g : configured_gids(pw->name, pw->gid)) {
				a.configured_groups.push_back(gname(g));
				if (std::find(who.gids.begin(), who.gids.end(), g) == who.gids.end())
					a.relogin_groups.push_back(gname(g));
			}
		}
	}

	// Containers.
	if (fs.exists(".dockerenv")) {
		a.container = true;
		a.container_evidence = "/.dockerenv";
	} else if (fs.exists("run/.containerenv")) {
		a.container = true;
		a.container_evidence = "/run/.containerenv";
	} else if (auto c = fs.read_value("run/systemd/container")) {
		a.container = true;
		a.container_evidence = "/run/systemd/container: " + *c;
	}

	std::vector<std::string> paths{"dev/kfd"};
	for (const auto &d : devices)
		if (d.is_amd && !d.render_node.empty())
			paths.push_back("dev/dri/" + d.render_node);
	for (const auto &p : paths) {
		DevNode n;
		n.path = "/" + p;
		auto st = fs.stat(p);
		if (!st) {
			if (st.error().kind != io::FsErrorKind::not_found)
				note(u, n.path, st.error());
			judge_node(n, who);
			if (st.error().kind != io::FsErrorKind::not_found)
				n.verdict = st.error().reason();
			a.nodes.push_back(n);
			continue;
		}
		n.exists = true;
		n.stat_source = st->from_manifest ? "manifest" : "stat";
		n.type = st->type == io::FileType::char_device ? 'c' : st->type == io::FileType::block_device ? 'b' : 0;
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
		if (!n.gid && !n.group.empty())
			if (const auto *g = groups.by_name(n.group))
				n.gid = g->gid;
		judge_node(n, who);
		// On the live machine the kernel has the last word (ACLs from logind's
		// uaccess, capabilities): ask it for the running process.
		if (fs.is_live() && a.subject == "process") {
			bool ok = ::faccessat(AT_FDCWD, n.path.c_str(), R_OK | W_OK, AT_EACCESS) == 0;
			if (ok && !n.can_open) {
				n.can_open = true;
				n.verdict += " — but access() allows it (ACL)";
				n.missing_group.clear();
			} else if (!ok && n.can_open) {
				n.can_open = false;
				n.verdict += fmt::format(" — but access() refuses: {}", std::strerror(errno));
			}
		}
		a.nodes.push_back(n);
	}
}

Environment collect_environment(const std::optional<std::string> &file, const std::vector<Device> &devices)
{
	if (file) {
		std::string abs = std::filesystem::absolute(*file).lexically_normal().string();
		io::RootFs host("/");
		auto t = host.read_text(abs, {.max_bytes = 1 << 20, .allow_empty = true});
		if (!t) {
			Environment e;
			e.source = *file;
			e.unreadable.push_back({"environment", *file, t.error().reason()});
			return e;
		}
		return build_environment(core::parse_env_file(*t), *file, devices);
	}
	std::string bytes;
	for (char **e = environ; e && *e; ++e) {
		bytes += *e;
		bytes += '\0';
	}
	return build_environment(core::parse_environ(bytes), "process", devices);
}

} // namespace

Snapshot collect(const CollectOptions &o)
{
	Snapshot s;
	s.root = o.root;
	io::RootFs fs(o.root);
	if (const auto &err = fs.root_error()) {
		s.nothing_readable = true;
		s.nothing_readable_reason = fmt::format("root '{}' {}", o.root, err->reason());
		return s;
	}
	if (!fs.exists("sys") && !fs.exists("proc") && !fs.exists("dev") && !fs.exists("etc")) {
		s.nothing_readable = true;
		s.nothing_readable_reason =
			fmt::format("root '{}' has none of sys/, proc/, dev/, etc/: nothing to read", o.root);
		return s;
	}
	const bool live = o.live && fs.is_live();
	s.collector = live ? "live" : "root";

	auto mods = read_modules(fs, s.driver.unreadable);
	auto modprobe = read_modprobe_d(fs, s.driver.unreadable);
	collect_driver(fs, s.driver, mods, modprobe);
	collect_rdnafix(fs, s.rdnafix, s.driver.kernel_release, mods);
	auto kfd = collect_kfd(fs, s.driver.unreadable);

	std::vector<RawPciDevice> raws;
	if (live) {
		std::string err;
		auto r = raw_devices_from_udev(true, err);
		if (r)
			raws = std::move(*r);
		else
			s.driver.unreadable.push_back({"devices", "udev", "unreadable: " + err});
	} else {
		raws = raw_devices_from_sysfs(fs);
	}
	// libdrm's product names, from the root's copy of amdgpu.ids (the live path
	// only needs it where libdrm gave no name).
	std::optional<core::AmdgpuIds> ids;
	bool need_ids = std::any_of(raws.begin(), raws.end(), [](const RawPciDevice &r) {
		auto v = r.attrs.find("vendor");
		return v != r.attrs.end() && v->second.text && v->second.text->find("1002") != std::string::npos &&
		       !(r.libdrm && r.libdrm->marketing_name);
	});
	if (need_ids) {
		if (auto t = fs.read_text("usr/share/libdrm/amdgpu.ids", {.max_bytes = 4 << 20}))
			ids = core::parse_amdgpu_ids(*t);
		else if (t.error().kind != io::FsErrorKind::not_found)
			note(s.driver.unreadable, "amdgpu_ids", t.error());
	}
	s.devices = build_devices(raws, kfd, ids ? &*ids : nullptr);
	apply_noretry(s.devices, s.driver, s.rdnafix);
	collect_access(fs, s.access, s.devices, o.user);
	s.environment = collect_environment(o.env_file, s.devices);
	return s;
}

} // namespace rdnafix::machine
