// Reader: proc/modules, modprobe.d, the kernel version and command line, the
// amdgpu/ttm parameters with their provenance, the TTM limit and RAM size.
#include "machine/collect_internal.hpp"

#include "core/rules.hpp"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <map>
#include <set>

namespace rdnafix::machine {

namespace detail {

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

// Parameters the kernel registers root-only (mode 0600): amdgpu's vramlimit,
// gartsize, gttsize and moverate (drivers/gpu/drm/amd/amdgpu/amdgpu_drv.c:
// module_param_named(..., 0600), Linux 6.1 to 7.x; every other amdgpu, ttm and
// amdttm parameter rdnactl reads is 0444 or 0644, e.g. drivers/gpu/drm/ttm/
// ttm_tt.c: pages_limit 0644).  A non-root reader is refused those by design.
static bool kernel_root_only(std::string_view module, std::string_view name)
{
	return module == "amdgpu" &&
	       (name == "vramlimit" || name == "gartsize" || name == "gttsize" || name == "moverate");
}

std::map<std::string, std::string> read_module_params(io::RootFs &fs, const std::string &module,
						      std::vector<Unreadable> *u)
{
	std::map<std::string, std::string> out;
	const std::string dir = "sys/module/" + module + "/parameters";
	auto names = fs.list_dir(dir);
	if (!names)
		return out;
	for (const auto &n : *names) {
		auto v = fs.read_value(dir + "/" + n, {.allow_empty = true});
		if (v)
			out[n] = *v;
		else if (v.error().kind == io::FsErrorKind::empty)
			out[n] = "";
		else if (v.error().kind == io::FsErrorKind::permission_denied && kernel_root_only(module, n))
			continue; // root only by design, not a fault
		else if (u)
			note(*u, module + ".parameters." + n, v.error());
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
	std::set<std::string> root_only;
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
		else if (r.error().kind == io::FsErrorKind::permission_denied && kernel_root_only(m, n))
			root_only.insert(m + "." + n);
		else if (r.error().kind != io::FsErrorKind::not_found)
			note(u, m + "." + n, r.error()); // unreadable; not_found: no such parameter here
	}
	d.params = build_params(cmdline, modprobe, live);
	for (auto &p : d.params)
		p.root_only = root_only.count(p.module + "." + p.name) > 0;
	for (auto &p : d.params)
		if (p.source == ParamSource::modprobe_d && !p.source_file.empty() && p.source_file[0] != '/')
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
			if (auto v = core::parse_u64(line.substr(0, kb)); v && *v > UINT64_MAX / 1024)
				u.push_back(
					{"mem_total_bytes", "proc/meminfo",
					 fmt::format("unreadable: out of range: MemTotal {} kB is more than 2^64 bytes",
						     *v)});
			else if (v)
				d.mem_total_bytes = *v * 1024;
			else
				u.push_back({"mem_total_bytes", "proc/meminfo", "unreadable: " + v.error().message});
		}
	} else if (mi.error().kind != io::FsErrorKind::not_found) {
		note(u, "mem_total_bytes", mi.error());
	}
}

} // namespace detail

} // namespace rdnafix::machine
