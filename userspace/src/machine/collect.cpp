// machine::collect: opens one RootFs and runs the readers in order.  Everything
// that is not a device record is read through RootFs (identical for the live
// and the --root path); devices come from collect_sysfs.cpp (--root) or
// collect_udev.cpp (live).
#include "machine/collect.hpp"

#include "machine/collect_internal.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::machine {

namespace detail {

void note(std::vector<Unreadable> &u, std::string item, const io::FsError &e)
{
	u.push_back({std::move(item), e.path, e.reason()});
}

std::optional<std::string> value(io::RootFs &fs, const std::string &path, std::vector<Unreadable> &u,
				 const std::string &item, bool missing_is_error)
{
	auto r = fs.read_value(path);
	if (r)
		return *r;
	if (missing_is_error || r.error().kind != io::FsErrorKind::not_found)
		note(u, item, r.error());
	return std::nullopt;
}

} // namespace detail

Snapshot collect(const CollectOptions &o)
{
	Snapshot s;
	s.root = o.root;
	io::RootFs fs(o.root);
	// The root named once, with the errno that stops every read of it (a
	// directory without search permission: EACCES, not "none of ...").
	auto unusable = [&](const io::FsError &err) {
		s.nothing_readable = true;
		s.nothing_readable_reason = fmt::format(
			"root '{}': {}", o.root, err.errno_value != 0 ? io::errno_text(err.errno_value) : err.detail);
		return s;
	};
	if (const auto &err = fs.root_error())
		return unusable(*err);
	bool any = false;
	std::optional<io::FsError> denied;
	for (const char *top : {"sys", "proc", "dev", "etc"}) {
		auto st = fs.stat(top);
		any = any || bool(st);
		if (!st && st.error().kind == io::FsErrorKind::permission_denied && !denied)
			denied = st.error();
	}
	if (!any && denied)
		return unusable(*denied);
	if (!any) {
		s.nothing_readable = true;
		s.nothing_readable_reason =
			fmt::format("root '{}' has none of sys/, proc/, dev/, etc/: nothing to read", o.root);
		return s;
	}
	const bool live = o.live && fs.is_live();
	s.collector = live ? CollectorKind::live : CollectorKind::root;

	auto mods = detail::read_modules(fs, s.driver.unreadable);
	auto modprobe = detail::read_modprobe_d(fs, s.driver.unreadable);
	detail::collect_driver(fs, s.driver, mods, modprobe);
	if (o.all_amdgpu_params)
		s.driver.amdgpu_all_params = detail::read_module_params(fs, "amdgpu");
	detail::collect_rdnafix(fs, s.rdnafix, s.driver.kernel_release, mods);
	detail::collect_boot(fs, s.boot, s.driver.kernel_release, modprobe);
	detail::collect_kernel_log(fs, s.kernel_log, live);
	auto kfd = detail::collect_kfd(fs, s.driver.unreadable);

	std::vector<RawPciDevice> raws;
	if (live) {
		std::string err;
		auto r = raw_devices_from_udev(true, err);
		if (r)
			raws = std::move(*r);
		else
			s.driver.unreadable.push_back({"devices", "udev", "unreadable: " + err});
	} else {
		raws = raw_devices_from_sysfs(fs, "0x03", &s.driver.unreadable);
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
			detail::note(s.driver.unreadable, "amdgpu_ids", t.error());
	}
	s.devices = build_devices(raws, kfd, ids ? &*ids : nullptr);
	attach_rdnafix(s.devices, s.rdnafix);
	detail::collect_hwfacts(fs, s);
	// Under sudo (live only; --user wins), access and environment are judged
	// for SUDO_USER.
	std::optional<std::string> user = o.user;
	std::optional<detail::SudoContext> sudo;
	if (live && !o.user) {
		sudo = detail::detect_sudo();
		if (sudo)
			user = sudo->user;
	}
	detail::collect_access(fs, s.access, s.devices, user);
	s.environment = detail::collect_environment(fs, o.env_file, o.pid, sudo, o.variables);
	for (const auto &n : o.variable_notes)
		s.environment.unreadable.push_back({"variables", n.file, n.what});
	detail::collect_platform(fs, s);
	return s;
}

} // namespace rdnafix::machine
