// Removal notes (config/bootloader_notes.hpp).
#include "config/bootloader_notes.hpp"

#include "config/cmdline_tokens.hpp"
#include "config/grub_dropin.hpp"

#include "core/parse.hpp"
#include "core/rules_defaults.hpp"

#include <fmt/format.h>

namespace rdnafix::config::detail {

namespace {

// The word for `param` the next boot would carry without rdnactl's own
// drop-in: the boot loader's configuration, else the running command line.
std::optional<std::string> current_word(const machine::Snapshot &s, const std::string &param)
{
	std::optional<std::string> found;
	for (const auto &v : s.boot.cmdline_vars) {
		if (v.file == kGrubDropin)
			continue;
		auto ws = words_for(v.value, param);
		if (!ws.empty())
			found = ws.back();
	}
	if (!found) {
		auto ws = words_for(s.driver.cmdline, param);
		if (!ws.empty())
			found = ws.back();
	}
	return found;
}

struct NextKernel {
	std::string release;
	core::KernelVersion version;
};

// The kernel the next boot runs by default, with the best version we know.
std::optional<NextKernel> next_kernel(const machine::Snapshot &s)
{
	std::string rel = s.driver.kernel_release;
	bool running = true;
	for (const auto &k : s.boot.kernels)
		if (k.default_boot) {
			rel = k.release;
			running = k.running;
		}
	if (rel.empty())
		return std::nullopt;
	if (running)
		if (auto pv = core::parse_proc_version(s.driver.kernel_version_line); pv && pv->upstream)
			return NextKernel{rel, *pv->upstream};
	if (auto v = core::parse_kernel_release(rel); v)
		return NextKernel{rel, *v};
	return std::nullopt;
}

bool same_value(std::string_view name, const std::string &removed, const rules::ParamDefault &d)
{
	const std::string &now = d.effective ? *d.effective : d.param_value;
	if (name == "noretry" && d.effective) {
		auto v = core::parse_i64(removed);
		return v && ((*v != 0) == (now == "1"));
	}
	return removed == now;
}

std::string note_for(const machine::Snapshot &s, const CmdlineChange &c)
{
	const std::string param = normalize_param(c.param);
	const auto dot = param.find('.');
	const std::string module = param.substr(0, dot), name = param.substr(dot + 1);
	auto word = current_word(s, param);
	std::string head = word ? fmt::format("removing {} from the kernel command line", *word)
				: fmt::format("{} is not on the kernel command line; keeping it off", c.param);
	std::string removed = word && word->find('=') != std::string::npos ? word->substr(word->find('=') + 1) : "";

	std::vector<core::ModprobeConfig> configs;
	for (const auto &m : s.boot.modprobe)
		configs.push_back(m.config);
	for (const auto &[n, setting] : core::module_options(configs, module))
		if (n == name)
			return fmt::format("{}: {} then comes from {} line {}: {}={}", head, c.param,
					   setting.where.file, setting.where.line, c.param, setting.value);

	auto kernel = next_kernel(s);
	if (!kernel)
		return fmt::format("{}: {} then takes the kernel's default (the kernel version is unknown)", head,
				   c.param);
	std::vector<std::string> parts;
	bool any_gpu = false;
	for (const auto &d : s.devices) {
		if (!d.is_amd || !d.gc_version)
			continue;
		auto gc = core::parse_gc_version(*d.gc_version);
		if (!gc)
			continue;
		auto def = rules::param_default(module, name, kernel->version, *gc);
		if (!def)
			break;
		any_gpu = true;
		std::string part = fmt::format("{} (GC {}): {}", d.pci_bdf, *d.gc_version, def->explanation);
		if (word && !removed.empty() && same_value(name, removed, *def)) {
			part += fmt::format(": the same value as now, so removing it changes nothing here");
			if (name == "noretry" && module == "amdgpu")
				part += fmt::format("; to turn retry faults off, set {}={} instead", c.param,
						    removed == "0" ? "1" : "0");
			else
				part += "; set the value you want explicitly instead";
		}
		parts.push_back(std::move(part));
	}
	if (!any_gpu) {
		auto def = rules::param_default(module, name, kernel->version, std::nullopt);
		if (!def)
			return fmt::format("{}: {} then takes the kernel's built-in default (modinfo -p {})", head,
					   c.param, module);
		parts.push_back(def->explanation);
	}
	std::string out = fmt::format("{}: on kernel {} (the default boot kernel)", head, kernel->release);
	for (const auto &p : parts)
		out += "; " + p;
	return out;
}

} // namespace

std::vector<std::string> removal_notes(const machine::Snapshot &s, const std::vector<CmdlineChange> &changes)
{
	std::vector<std::string> out;
	for (const auto &c : changes)
		if (!c.value)
			out.push_back(note_for(s, c));
	return out;
}

} // namespace rdnafix::config::detail
