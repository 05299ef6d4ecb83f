// Reader: where this process runs.  The container (marker files of Docker,
// Podman, toolbox, Flatpak, systemd's container file, distrobox's and Snap's
// environment), the user namespace (proc/self/uid_map, gid_map and the
// overflow ids) and WSL (the kernel release, /dev/dxg, usr/lib/wsl/lib and
// the ROCm-on-WSL runtime files).  Facts only.
#include "machine/collect_internal.hpp"

#include "core/parse.hpp"
#include "core/parse_platform.hpp"

#include <algorithm>

namespace rdnafix::machine {

namespace detail {

namespace {

const std::string *env_of(const Environment &e, const std::string &name)
{
	auto it = e.platform.find(name);
	return it == e.platform.end() ? nullptr : &it->second;
}

ContainerKind kind_of_systemd(const std::string &v)
{
	if (v == "docker")
		return ContainerKind::docker;
	if (v == "podman")
		return ContainerKind::podman;
	if (v == "lxc" || v == "lxc-libvirt")
		return ContainerKind::lxc;
	if (v == "systemd-nspawn")
		return ContainerKind::systemd_nspawn;
	if (v == "flatpak")
		return ContainerKind::flatpak;
	return ContainerKind::other;
}

void collect_container(io::RootFs &fs, const Environment &env, Container &c, std::vector<Unreadable> &u)
{
	auto mark = [&](ContainerKind k, std::string source, std::string value = "") {
		if (c.kind == ContainerKind::none)
			c.kind = k;
		c.evidence.push_back({std::move(source), std::move(value)});
	};
	// The most specific first: toolbox and distrobox run on Podman, Flatpak
	// and Snap are no OCI engine at all.
	if (fs.exists(".flatpak-info"))
		mark(ContainerKind::flatpak, "/.flatpak-info");
	if (fs.exists("run/.toolboxenv"))
		mark(ContainerKind::toolbox, "/run/.toolboxenv");
	if (const auto *v = env_of(env, "DISTROBOX_ENTER_PATH"))
		mark(ContainerKind::distrobox, "$DISTROBOX_ENTER_PATH", *v);
	if (const auto *snap = env_of(env, "SNAP"); snap && env_of(env, "SNAP_NAME"))
		mark(ContainerKind::snap, "$SNAP", *snap);
	if (auto t = fs.read_text("run/.containerenv", {.max_bytes = 64 << 10, .allow_empty = true})) {
		auto kv = core::parse_containerenv(*t);
		c.engine = kv.count("engine") ? kv["engine"] : "";
		c.name = kv.count("name") ? kv["name"] : "";
		c.image = kv.count("image") ? kv["image"] : "";
		if (kv.count("rootless"))
			c.rootless = kv["rootless"] == "1";
		mark(c.engine.rfind("podman", 0) == 0 || c.engine.empty() ? ContainerKind::podman
									  : ContainerKind::other,
		     "/run/.containerenv", c.engine);
	} else if (t.error().kind != io::FsErrorKind::not_found) {
		note(u, "containerenv", t.error());
	}
	if (fs.exists(".dockerenv"))
		mark(ContainerKind::docker, "/.dockerenv");
	if (auto v = fs.read_value("run/systemd/container"))
		mark(kind_of_systemd(*v), "/run/systemd/container", *v);
	else if (const auto *e = env_of(env, "container"))
		mark(kind_of_systemd(*e), "$container", *e);
}

void collect_userns(io::RootFs &fs, UserNamespace &n, std::vector<Unreadable> &u)
{
	auto read_map = [&](const char *path, std::vector<IdMapRange> &out) {
		auto t = fs.read_text(path, {.max_bytes = 64 << 10, .allow_empty = true});
		if (!t) {
			if (t.error().kind != io::FsErrorKind::not_found)
				note(u, "userns", t.error());
			return false;
		}
		auto m = core::parse_id_map(*t);
		if (!m) {
			u.push_back({"userns", path, "unreadable: " + m.error().message});
			return false;
		}
		for (const auto &r : *m)
			out.push_back({r.inside, r.outside, r.count});
		return true;
	};
	// Both are read (an unreadable gid_map is reported even when uid_map is unreadable too).
	const bool uid_read = read_map("proc/self/uid_map", n.uid_map);
	const bool gid_read = read_map("proc/self/gid_map", n.gid_map);
	n.read = uid_read && gid_read;
	if (!n.read) {
		n.uid_map.clear();
		n.gid_map.clear();
	}
	for (auto [path, out] : {std::pair{"proc/sys/kernel/overflowuid", &n.overflow_uid},
				 std::pair{"proc/sys/kernel/overflowgid", &n.overflow_gid}})
		if (auto v = fs.read_value(path))
			if (auto x = core::parse_u64(*v); x && *x <= 0xffffffffu)
				*out = unsigned(*x);
}

bool contains_ci(std::string_view s, std::string_view what)
{
	return std::search(s.begin(), s.end(), what.begin(), what.end(),
			   [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; }) != s.end();
}

// Names in `dir` that start with `prefix`, as root-relative paths.
void find_libs(io::RootFs &fs, const std::string &dir, std::string_view prefix, std::vector<std::string> &out)
{
	auto names = fs.list_dir(dir);
	if (!names)
		return;
	for (const auto &n : *names)
		if (n.rfind(prefix, 0) == 0)
			out.push_back(dir + "/" + n);
}

void collect_wsl(io::RootFs &fs, const Driver &drv, const Environment &env, Wsl &w)
{
	const std::string &rel = drv.kernel_release;
	// WSL1 has no Linux kernel: its syscall layer reports "4.4.0-<build>-Microsoft";
	// WSL2's kernels are "<ver>-microsoft-standard[-WSL2]".
	if (rel.size() > 10 && rel.compare(rel.size() - 10, 10, "-Microsoft") == 0) {
		w.kind = WslKind::wsl1;
		w.evidence = "proc/sys/kernel/osrelease";
	} else if (contains_ci(rel, "microsoft")) {
		w.kind = WslKind::wsl2;
		w.evidence = "proc/sys/kernel/osrelease";
	} else if (contains_ci(drv.kernel_version_line, "microsoft")) {
		w.kind = WslKind::wsl2;
		w.evidence = "proc/version";
	}
	auto st = fs.stat("dev/dxg");
	if (st) {
		w.dxg_exists = true;
		w.dxg_type = st->type == io::FileType::char_device    ? 'c'
			     : st->type == io::FileType::block_device ? 'b'
								      : 0;
		if (w.dxg_type) {
			w.dxg_major = st->dev_major;
			w.dxg_minor = st->dev_minor;
		}
		w.dxg_mode = st->mode;
		w.dxg_owner = st->owner ? *st->owner : st->uid ? std::to_string(*st->uid) : "";
		w.dxg_group = st->group ? *st->group : st->gid ? std::to_string(*st->gid) : "";
	} else if (st.error().kind != io::FsErrorKind::not_found) {
		note(w.unreadable, "dev_dxg", st.error());
		w.dxg_error = st.error().reason();
	}
	w.interop =
		fs.exists("proc/sys/fs/binfmt_misc/WSLInterop") || fs.exists("proc/sys/fs/binfmt_misc/WSLInterop-late");
	for (const char *name : {"WSL_DISTRO_NAME", "WSL_INTEROP"})
		if (const auto *v = env_of(env, name))
			w.env[name] = *v;
	if (auto libs = fs.list_dir("usr/lib/wsl/lib"))
		w.wsl_libs = *libs;
	// A kernel built by the user may not say "microsoft": /dev/dxg with
	// the WSL interop or libraries still is WSL2.
	if (w.kind == WslKind::none && w.dxg_exists && (w.interop || !w.wsl_libs.empty())) {
		w.kind = WslKind::wsl2;
		w.evidence = "dev/dxg";
	}
	if (w.kind == WslKind::none)
		return;
	std::vector<std::string> dirs{"opt/rocm/lib", "usr/lib/x86_64-linux-gnu", "usr/lib", "usr/local/lib"};
	if (auto opt = fs.list_dir("opt"))
		for (const auto &d : *opt)
			if (d.rfind("rocm-", 0) == 0)
				dirs.push_back("opt/" + d + "/lib");
	for (const auto &d : dirs) {
		find_libs(fs, d, "librocdxg.so", w.rocdxg);
		find_libs(fs, d, "libhsa-runtime64.so", w.hsa_runtimes);
	}
	if (fs.exists("var/lib/dpkg/info/hsa-runtime-rocr4wsl-amdgpu.list"))
		w.rocr4wsl = "var/lib/dpkg/info/hsa-runtime-rocr4wsl-amdgpu.list";
	if (auto v = fs.read_value("opt/rocm/.info/version"))
		w.rocm_version = *v;
}

} // namespace

void collect_platform(io::RootFs &fs, Snapshot &s)
{
	collect_container(fs, s.environment, s.access.container, s.access.unreadable);
	collect_userns(fs, s.access.userns, s.access.unreadable);
	collect_wsl(fs, s.driver, s.environment, s.wsl);
}

} // namespace detail

} // namespace rdnafix::machine
