// Other places that set a managed option, and which value the next boot
// uses (see conflicts.hpp for the rules).
#include "config/conflicts.hpp"

#include "core/parse.hpp"
#include "machine/settings.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace rdnafix::config {

namespace {

constexpr std::string_view kOwnedPath = "etc/modprobe.d/rdnafix.conf";

struct Found {
	std::string value, source;
};

std::string base(std::string_view path)
{
	auto slash = path.rfind('/');
	return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// As machine::configured_settings(): GRUB, or any command-line file found.
bool next_known(const machine::Snapshot &s)
{
	return s.boot.bootloader == machine::BootloaderKind::grub || !s.boot.cmdline_vars.empty();
}

// The value on the next boot's kernel command line: the boot loader's
// configuration (machine::next_boot_cmdline: GRUB's variables in
// grub-mkconfig's order, or etc/kernel/cmdline); when the boot loader is
// unknown, the running command line is taken to stay.
std::optional<Found> next_cmdline(const machine::Snapshot &s, const std::string &module, const std::string &name)
{
	std::optional<Found> out;
	if (!next_known(s)) {
		if (auto a = core::parse_kernel_cmdline(s.driver.cmdline).module_param(module, name))
			out = Found{a->value.value_or(""), "proc/cmdline (the boot loader is unknown: taken to stay)"};
		return out;
	}
	for (const auto &part : machine::next_boot_cmdline(s.boot))
		if (auto a = core::parse_kernel_cmdline(part.text).module_param(module, name))
			out = Found{a->value.value_or(""), fmt::format("{}:{}", part.file, part.line)};
	return out;
}

struct Setter {
	std::string value, file;
	unsigned line = 0;
	bool owned = false;
};

// Every modprobe.d value of module.name in kmod's order, with the owned
// file's content replaced by `owned_value`.
std::vector<Setter> modprobe_setters(const machine::Snapshot &s, const std::string &module, const std::string &name,
				     const std::optional<std::string> &owned_value)
{
	struct File {
		std::string name, path;
		const core::ModprobeConfig *cfg = nullptr;
	};
	std::vector<File> files;
	for (const auto &m : s.boot.modprobe)
		if (base(m.path) != base(kOwnedPath)) // /etc's rdnafix.conf hides the others
			files.push_back({base(m.path), m.path, &m.config});
	files.push_back({base(kOwnedPath), std::string(kOwnedPath), nullptr});
	std::stable_sort(files.begin(), files.end(), [](const File &a, const File &b) { return a.name < b.name; });
	std::vector<Setter> out;
	for (const auto &f : files) {
		if (!f.cfg) {
			if (owned_value)
				out.push_back({*owned_value, f.path, 0, true});
			continue;
		}
		for (const auto &e : f.cfg->entries)
			if (e.kind == core::ModprobeKind::options && e.module == module)
				for (const auto &p : e.params)
					if (p.name == name)
						out.push_back({p.value.value_or(""), f.path, e.where.line, false});
	}
	return out;
}

void check_key(const machine::Snapshot &s, const std::string &module, const std::string &name,
	       const std::optional<std::string> &owned, const std::vector<CmdlineChange> &cmdline,
	       std::vector<Conflict> &out)
{
	const std::string key = module + "." + name;
	Conflict c;
	c.key = key;
	c.owned = owned;
	const std::string want = owned ? fmt::format("{}={}", key, *owned) : fmt::format("{} unset", key);

	std::optional<Found> cl = next_cmdline(s, module, name);
	bool changed_now = false;
	for (const auto &ch : cmdline)
		if (core::parse_kernel_cmdline(ch.param + "=x").module_param(module, name)) {
			changed_now = true;
			cl = ch.value ? std::optional(Found{*ch.value, "this change"}) : std::nullopt;
		}
	if (cl) {
		c.next = cl->value;
		c.source = cl->source;
		c.remains = !owned || *owned != cl->value;
		c.why = c.remains ? fmt::format(
					    "the kernel command line of the next boot ({}) sets {}={} and wins over "
					    "modprobe.d: after the reboot {} will be {}, not what you configured ({}); "
					    "change it with 'rdnactl config set --cmdline {}=VALUE' or remove it with "
					    "'rdnactl config unset --cmdline {}'",
					    cl->source, key, cl->value, key, cl->value, want, key, key)
				  : fmt::format("the kernel command line ({}) also sets {}={}; it wins over modprobe.d "
						"and has the same value",
						cl->source, key, cl->value);
		out.push_back(std::move(c));
		return;
	}
	auto setters = modprobe_setters(s, module, name, owned);
	if (!changed_now && next_known(s)) {
		auto now = core::parse_kernel_cmdline(s.driver.cmdline).module_param(module, name);
		if (now) {
			Conflict info = c;
			info.next = setters.empty() ? std::nullopt : std::optional(setters.back().value);
			info.source = "proc/cmdline";
			info.why = fmt::format("the running kernel was started with {}={} (proc/cmdline), but the boot "
					       "loader's configuration no longer has it: the next boot uses {}",
					       key, now->value.value_or(""),
					       setters.empty() ? std::string("the module's default")
							       : fmt::format("{}={} from {}", key, setters.back().value,
									     setters.back().file));
			out.push_back(std::move(info));
		}
	}
	for (const auto &o : setters) {
		if (o.owned)
			continue;
		const Setter &winner = setters.back();
		Conflict x = c;
		x.next = winner.value;
		x.source = fmt::format("{}:{}", winner.file, winner.line);
		if (winner.owned) {
			if (o.value == *owned)
				continue;
			x.why = fmt::format("{}:{} sets {}={} too; {} is read after it (kmod reads the files in name "
					    "order and the last value wins), so {} is used",
					    o.file, o.line, key, o.value, kOwnedPath, *owned);
		} else {
			if (&o != &winner)
				continue;
			x.remains = true;
			x.why = owned ? fmt::format(
						"{}:{} sets {}={} and is read after {} (kmod reads the files in name "
						"order and the last value wins): after the reboot {} will be {}, not "
						"{}; remove that line",
						o.file, o.line, key, o.value, kOwnedPath, key, o.value, *owned)
				      : fmt::format("{}:{} still sets {}={}: after the reboot {} will be {}, not the "
						    "module's default; remove that line if you want the default",
						    o.file, o.line, key, o.value, key, o.value);
		}
		out.push_back(std::move(x));
	}
}

} // namespace

std::vector<Conflict> find_conflicts(const machine::Snapshot &s, const std::vector<ModuleChange> &owned,
				     const std::vector<ModuleChange> &unset, const std::vector<CmdlineChange> &cmdline)
{
	std::vector<Conflict> out;
	for (const auto &o : owned)
		check_key(s, o.module, o.name, o.value, cmdline, out);
	for (const auto &u : unset)
		if (std::none_of(owned.begin(), owned.end(),
				 [&](const auto &o) { return o.module == u.module && o.name == u.name; }))
			check_key(s, u.module, u.name, std::nullopt, cmdline, out);
	return out;
}

} // namespace rdnafix::config
