// configured_settings(): modprobe.d, the running and the next command line, and
// the running module's value of every parameter rdnactl manages.
#include "machine/settings.hpp"

#include "machine/facts.hpp"

#include "core/parse.hpp"
#include "core/rules.hpp"

#include <algorithm>
#include <map>

namespace rdnafix::machine {

std::string_view to_string(SettingState s)
{
	switch (s) {
	case SettingState::in_effect:
		return "in-effect";
	case SettingState::pending_reboot:
		return "pending-reboot";
	case SettingState::not_applied:
		return "not-applied";
	case SettingState::overridden:
		return "overridden";
	case SettingState::module_not_loaded:
		return "module-not-loaded";
	}
	return "module-not-loaded";
}

namespace {

// "$NAME" / "${NAME}" removed from `value` (the words that are only that reference).
std::string without_self(const std::string &value, const std::string &name)
{
	std::string out = value;
	for (const std::string &ref : {"${" + name + "}", "$" + name}) {
		for (auto p = out.find(ref); p != std::string::npos; p = out.find(ref, p)) {
			auto end = p + ref.size();
			bool word_end = end == out.size() || out[end] == ' ' || out[end] == '\t';
			if (!word_end) {
				p = end;
				continue;
			}
			out.erase(p, ref.size());
		}
	}
	auto b = out.find_first_not_of(" \t");
	auto e = out.find_last_not_of(" \t");
	return b == std::string::npos ? std::string() : out.substr(b, e - b + 1);
}

bool same_value(const std::string &a, const std::string &b)
{
	return rules::param_values_equal(a, b).value_or(a == b);
}

// The last `module.name=` of the parts, with the part it is in.
std::map<std::string, SettingSource> params_of(const std::vector<CmdlinePart> &parts, std::string_view module)
{
	std::map<std::string, SettingSource> out;
	for (const auto &p : parts)
		for (const auto &[name, arg] : core::parse_kernel_cmdline(p.text).module_params(module))
			out[name] = SettingSource{arg.value.value_or(""), p.file, p.line};
	return out;
}

std::optional<std::string> live_value(const Snapshot &s, const std::string &module, const std::string &name)
{
	if (module == "rdnafix") {
		auto it = s.rdnafix.params.find(name);
		return it == s.rdnafix.params.end() ? std::nullopt : std::optional<std::string>(it->second);
	}
	if (const Param *p = find_param(s, module, name); p && p->live_value)
		return p->live_value;
	if (module == "amdgpu") {
		auto it = s.driver.amdgpu_all_params.find(name);
		if (it != s.driver.amdgpu_all_params.end())
			return it->second;
	}
	return std::nullopt;
}

SettingState state_of(const Snapshot &s, const Setting &x, bool next_known)
{
	const auto &cmd = next_known ? x.cmdline_next : x.cmdline_now;
	if (x.modprobe && cmd && !same_value(x.modprobe->value, cmd->value))
		return SettingState::overridden;
	const bool loaded = module_loaded(s, x.module);
	if (loaded && x.live && x.next_boot && same_value(*x.next_boot, *x.live))
		return SettingState::in_effect;
	bool changed = !x.next_boot; // set now, by nothing at the next boot
	if (x.cmdline_next)
		changed = !x.cmdline_now || !same_value(x.cmdline_next->value, x.cmdline_now->value);
	else if (x.cmdline_now)
		changed = true; // the command line sets it now, modprobe.d will at the next boot
	else if (x.modprobe && s.boot.boot_time_s)
		for (const auto &f : s.boot.modprobe)
			if (f.path == x.modprobe->file && f.mtime_ns &&
			    *f.mtime_ns > *s.boot.boot_time_s * 1000000000LL)
				changed = true;
	if (changed)
		return SettingState::pending_reboot;
	return loaded ? SettingState::not_applied : SettingState::module_not_loaded;
}

} // namespace

const SettingSource *next_boot_source(const Setting &x)
{
	if (x.cmdline_next)
		return &*x.cmdline_next;
	if (x.cmdline_now && x.next_boot && *x.next_boot == x.cmdline_now->value &&
	    (!x.modprobe || x.modprobe->value != x.cmdline_now->value))
		return &*x.cmdline_now;
	return x.modprobe ? &*x.modprobe : nullptr;
}

bool module_loaded(const Snapshot &s, std::string_view module)
{
	if (module == "rdnafix")
		return s.rdnafix.loaded;
	if (module == "amdgpu")
		return s.driver.amdgpu_loaded;
	if (module == "ttm" && s.driver.ttm_pages_limit)
		return true;
	if (module == "amdttm" && s.driver.amdttm_pages_limit)
		return true;
	return std::any_of(s.driver.params.begin(), s.driver.params.end(),
			   [&](const Param &p) { return p.module == module && p.live_value; });
}

std::vector<CmdlinePart> next_boot_cmdline(const BootConfig &b)
{
	std::vector<CmdlinePart> out;
	if (b.bootloader != BootloaderKind::grub) {
		for (const auto &v : b.cmdline_vars)
			if (v.variable.empty())
				out = {CmdlinePart{v.value, v.file, v.line}};
		return out;
	}
	for (const char *name : {"GRUB_CMDLINE_LINUX", "GRUB_CMDLINE_LINUX_DEFAULT"}) {
		std::vector<CmdlinePart> parts;
		for (const auto &v : b.cmdline_vars) {
			if (v.variable != name)
				continue;
			if (!v.appends_self)
				parts.clear();
			parts.push_back({v.appends_self ? without_self(v.value, name) : v.value, v.file, v.line});
		}
		out.insert(out.end(), parts.begin(), parts.end());
	}
	return out;
}

std::vector<Setting> configured_settings(const Snapshot &s)
{
	const bool next_known = s.boot.bootloader == BootloaderKind::grub || !s.boot.cmdline_vars.empty();
	const auto next_parts = next_boot_cmdline(s.boot);
	const auto now = core::parse_kernel_cmdline(s.driver.cmdline);
	std::vector<Setting> out;
	for (std::string_view mod : kSettingModules) {
		const std::string m(mod);
		std::map<std::string, Setting> by_name;
		auto at = [&](const std::string &name) -> Setting & {
			Setting &x = by_name[name];
			x.module = m;
			x.name = name;
			return x;
		};
		for (const auto &f : s.boot.modprobe)
			for (const auto &e : f.config.entries)
				if (e.kind == core::ModprobeKind::options && e.module == m)
					for (const auto &p : e.params) {
						Setting &x = at(p.name);
						if (x.modprobe)
							x.modprobe_others.push_back(*x.modprobe);
						x.modprobe = SettingSource{p.value.value_or(""), f.path, e.where.line};
					}
		for (const auto &[name, arg] : now.module_params(m))
			at(name).cmdline_now = SettingSource{arg.value.value_or(""), "proc/cmdline", 0};
		if (next_known)
			for (auto &[name, src] : params_of(next_parts, m))
				at(name).cmdline_next = src;
		for (auto &[name, x] : by_name) {
			if (x.cmdline_next)
				x.next_boot = x.cmdline_next->value;
			else if (!next_known && x.cmdline_now)
				x.next_boot = x.cmdline_now->value;
			else if (x.modprobe)
				x.next_boot = x.modprobe->value;
			x.live = live_value(s, m, name);
			x.owned = x.modprobe && x.modprobe->file == kOwnedModprobe;
			x.state = state_of(s, x, next_known);
			out.push_back(std::move(x));
		}
	}
	return out;
}

} // namespace rdnafix::machine
