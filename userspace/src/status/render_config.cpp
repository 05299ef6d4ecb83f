// The Configuration part of `rdnactl status`: what is configured for the
// modules rdnactl manages against what is in effect (machine/settings.hpp),
// the initramfs and boot loader the next boot uses, the installed kernels and
// their rdnafix modules, Secure Boot, lockdown and taint.  JSON object and
// text lines; pure.
#include "checks.hpp"
#include "kernel_builds.hpp"
#include "render.hpp"

#include "machine/snapshot_json.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

using machine::json_opt;
using machine::json_str_or_null;
using nlohmann::ordered_json;

namespace {

// The kernel whose initramfs the report shows: the running one, else the default.
const machine::InstalledKernel *shown_kernel(const machine::BootConfig &b)
{
	const auto *k = detail::running_kernel(b);
	return k ? k : detail::default_kernel(b);
}

const machine::ConfigFile *owned_conf(const machine::BootConfig &b)
{
	for (const auto &f : b.owned)
		if (f.path == machine::kOwnedModprobe)
			return &f;
	return nullptr;
}

std::string yes_no(const std::optional<bool> &v, const char *yes, const char *no)
{
	return v ? (*v ? yes : no) : "unknown";
}

} // namespace

ordered_json configuration_json(const Snapshot &s, const Assessment &a)
{
	const auto &b = s.boot;
	ordered_json j;
	const auto *own = owned_conf(b);
	j["file"] = "/" + std::string(machine::kOwnedModprobe);
	j["present"] = own && own->exists;
	j["settings"] = a.settings;
	ordered_json ir;
	ir["generator"] = json_str_or_null(to_string(b.initramfs));
	const auto *k = shown_kernel(b);
	ir["kernel"] = k ? ordered_json(k->release) : ordered_json(nullptr);
	ir["image"] = k && !k->initramfs_image.empty() ? ordered_json("/" + k->initramfs_image) : ordered_json(nullptr);
	ir["older_than_config"] = k && detail::initramfs_stale(b, *k);
	ir["listed"] = k && k->initramfs_listing ? ordered_json(*k->initramfs_listing) : ordered_json(nullptr);
	j["initramfs"] = ir;
	j["boot_loader"] = {{"kind", json_str_or_null(to_string(b.bootloader))},
			    {"evidence", json_str_or_null(b.bootloader_evidence)},
			    {"cmdline_vars", b.cmdline_vars},
			    {"problems", b.cmdline_problems}};
	j["kernels"] = b.kernels;
	for (std::size_t i = 0; i < b.kernels.size(); ++i) {
		const KernelBuild kb = kernel_build(b.kernels[i]);
		auto &kj = j["kernels"][i];
		kj["rdnafix_built"] = kb.built();
		kj["rdnafix_version"] = kb.module && !kb.module->version.empty() ? ordered_json(kb.module->version)
										 : ordered_json(nullptr);
		kj["rdnafix_problem"] = json_str_or_null(missing_text(kb));
		kj["rdnafix_dkms"] = json_str_or_null(dkms_text(b, kb));
	}
	j["os"] = {{"id", json_str_or_null(b.os.id)},
		   {"version_id", json_str_or_null(b.os.version_id)},
		   {"pretty_name", json_str_or_null(b.os.pretty_name)}};
	j["immutable"] = json_str_or_null(to_string(b.immutable));
	j["secure_boot"] = json_opt(b.secure_boot);
	j["lockdown"] = json_opt(b.lockdown);
	j["mok_key"] = b.mok_key.empty() ? ordered_json(nullptr) : ordered_json("/" + b.mok_key);
	j["mok_enrolled"] = json_opt(b.mok_enrolled);
	j["tainted"] = json_opt(b.tainted);
	j["rdnafix_taint"] = json_opt(b.rdnafix_taint);
	j["unreadable"] = b.unreadable;
	return j;
}

std::vector<std::string> configuration_lines(const Snapshot &s, const Assessment &a)
{
	const auto &b = s.boot;
	std::vector<std::string> out;
	auto line = [&](std::string l) { out.push_back(std::move(l)); };
	const auto *own = owned_conf(b);
	line(fmt::format("  owned file      /{} ({})", machine::kOwnedModprobe,
			 own && own->exists ? "present" : "absent"));
	if (a.settings.empty())
		line("  settings        none (no rdnafix, amdgpu, ttm or amdttm parameter is set)");
	for (const auto &x : a.settings) {
		const machine::SettingSource *src = machine::next_boot_source(x);
		std::string where = !src        ? "-"
				    : src->line ? fmt::format("/{}:{}", src->file, src->line)
						: "/" + src->file;
		line(fmt::format("  {:<28} {:<12} {:<17} {} (running: {})", x.module + "." + x.name,
				 x.next_boot.value_or("(unset)"), to_string(x.state), where,
				 x.live                                ? *x.live
				 : machine::module_loaded(s, x.module) ? "unknown"
								       : "not loaded"));
		for (const auto &o : x.modprobe_others)
			line(fmt::format("  {:<28} {:<12} overrides /{}:{}", "", o.value, o.file, o.line));
	}
	const auto *k = shown_kernel(b);
	std::string img = "none found";
	if (k && !k->initramfs_image.empty()) {
		img = "/" + k->initramfs_image;
		if (detail::initramfs_stale(b, *k))
			img += " (older than the configuration)";
		if (const auto &l = k->initramfs_listing)
			img += l->ok ? fmt::format("; amdgpu {}, rdnafix.ko {}, rdnafix.conf {}",
						   l->amdgpu ? "in" : "not in", l->rdnafix ? "in" : "not in",
						   l->conf ? "in" : "not in")
				     : "; not listed: " + l->error;
	}
	line(fmt::format("  initramfs       {}{}",
			 b.initramfs == machine::InitramfsGenerator::none ? "no generator found"
									  : std::string(to_string(b.initramfs)),
			 k ? ", " + img : ""));
	line(fmt::format("  boot loader     {}",
			 b.bootloader == machine::BootloaderKind::unknown
				 ? "unknown"
				 : fmt::format("{} ({})", to_string(b.bootloader), b.bootloader_evidence)));
	for (const auto &v : b.cmdline_vars)
		line(fmt::format("    /{}:{} {}=\"{}\"", v.file, v.line, v.variable.empty() ? "cmdline" : v.variable,
				 v.value));
	for (const auto &kk : b.kernels) {
		const KernelBuild kb = kernel_build(kk);
		std::string mods;
		for (const auto &m : kk.rdnafix_modules)
			mods += fmt::format(
				"{}/{} ({}{}{})", mods.empty() ? "" : ", ", m.path,
				m.signature == machine::SignatureState::unknown ? "signature unknown"
										: to_string(m.signature),
				m.signer.empty() ? "" : ": " + m.signer,
				m.built_for.empty() || m.built_for == kk.release ? "" : "; built for " + m.built_for);
		std::string why = missing_text(kb);
		if (auto d = dkms_text(b, kb); !d.empty())
			why += "; " + d;
		const std::string origin = amdgpu_origin(kk);
		line(fmt::format("  kernel {}{}{}{}{}: rdnafix built: {}{}{}", kk.release,
				 kk.running ? ", running" : "", kk.default_boot ? ", default" : "",
				 kk.headers ? ", headers" : ", no headers", kk.image.empty() ? ", no image" : "",
				 built_text(kb), kb.built() ? " " + mods : " (" + why + ")",
				 origin == "built-in" ? "; amdgpu built in"
				 : origin == "dkms" || origin == "updates" || origin == "extra"
					 ? fmt::format("; amdgpu /{} ({})", kk.amdgpu_module, origin)
					 : ""));
	}
	line(fmt::format("  secure boot     {}; lockdown {}{}", yes_no(b.secure_boot, "on", "off"),
			 b.lockdown.value_or("unknown"),
			 b.mok_key.empty() ? ""
					   : fmt::format("; DKMS key /{} {}", b.mok_key,
							 yes_no(b.mok_enrolled, "enrolled", "not enrolled"))));
	if (b.tainted || b.rdnafix_taint)
		line(fmt::format("  taint           kernel {}{}", b.tainted ? std::to_string(*b.tainted) : "unknown",
				 b.rdnafix_taint ? "; rdnafix " + (b.rdnafix_taint->empty() ? "none" : *b.rdnafix_taint)
						 : ""));
	for (const auto &u : b.unreadable)
		line(fmt::format("  {:<15} {}: {}", u.item, u.path, u.reason));
	return out;
}

} // namespace rdnafix::status

namespace rdnafix::status {

std::vector<std::string> configuration_brief_lines(const Snapshot &s, const Assessment &a)
{
	const auto &b = s.boot;
	std::vector<std::string> out;
	size_t in_effect = 0;
	for (const auto &x : a.settings) {
		if (x.state == machine::SettingState::in_effect) {
			++in_effect;
			continue;
		}
		out.push_back(fmt::format("  {}.{}={} {} (running: {})", x.module, x.name,
					  x.next_boot.value_or("(unset)"), to_string(x.state),
					  x.live                                ? *x.live
					  : machine::module_loaded(s, x.module) ? "unknown"
										: "not loaded"));
	}
	std::string head = a.settings.empty() ? "nothing configured for amdgpu, ttm or rdnafix"
					      : fmt::format("{} setting(s) in effect", in_effect);
	if (const auto *k = shown_kernel(b); k && detail::initramfs_stale(b, *k))
		head += fmt::format("; initramfs /{} older than the configuration", k->initramfs_image);
	if (b.bootloader != machine::BootloaderKind::unknown)
		head += fmt::format("; boot loader {}", to_string(b.bootloader));
	if (b.secure_boot && *b.secure_boot)
		head += "; Secure Boot on";
	out.insert(out.begin(), "  " + head);
	for (const auto &u : b.unreadable)
		out.push_back(fmt::format("  {:<15} {}: {}", u.item, u.path, u.reason));
	return out;
}

} // namespace rdnafix::status
