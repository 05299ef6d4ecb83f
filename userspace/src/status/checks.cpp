// evaluate(): runs every check_<area> and orders the findings; the helpers the
// checks share; the summary of unreadable items.
#include "checks.hpp"

#include "core/gpudb.hpp"
#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

std::string safe_override_for(std::string_view native)
{
	auto t = gpudb::parse_gfx_name(native);
	if (!t)
		return "";
	auto s = rules::safe_override_for(*t);
	return s ? s->dotted() : "";
}

std::string generic_name_of(std::string_view native)
{
	auto t = gpudb::parse_gfx_name(native);
	const rules::IsaFamily *f = t ? rules::isa_family_of(*t) : nullptr;
	return f ? std::string(f->generic_name) : "";
}

Severity sev(std::string_view id)
{
	for (const auto &c : catalogue())
		if (c.id == id)
			return c.severity;
	return Severity::info;
}

std::vector<const Device *> amd_devices(const Snapshot &s)
{
	std::vector<const Device *> v;
	for (const auto &d : s.devices)
		if (d.is_amd)
			v.push_back(&d);
	return v;
}

const machine::Unreadable *unreadable_item(const Snapshot &s, std::string_view item)
{
	for (const auto *list : {&s.driver.unreadable, &s.access.unreadable})
		for (const auto &u : *list)
			if (u.item == item)
				return &u;
	return nullptr;
}

void add_unknown(Ctx &c, std::string subject, std::string_view what, const machine::Unreadable &u)
{
	c.add("RDNA-RDR-001", std::move(subject), fmt::format("{}: unknown ({}: {})", what, u.path, u.reason),
	      "its input could not be read, so neither answer is given",
	      "run as root, or check the named path (in a container: bind-mount /sys and pass /dev/dri and "
	      "/dev/kfd)");
}

std::string dev_label(const Device &d)
{
	std::string l = d.pci_bdf.empty() ? d.card : d.pci_bdf;
	if (d.gfx_target)
		l += " (" + *d.gfx_target + ")";
	return l;
}

std::string where(const Param &p)
{
	if (p.source == machine::ParamSource::cmdline)
		return fmt::format("kernel command line ({}.{}={})", p.module, p.name, p.configured_value);
	if (p.source == machine::ParamSource::modprobe_d)
		return fmt::format("{}:{} (options {} {}={})", p.source_file, p.source_line, p.module, p.name,
				   p.configured_value);
	return "default";
}

std::string fix_param(const Param &p, std::string_view want)
{
	if (p.source == machine::ParamSource::cmdline)
		return fmt::format("rdnactl config set --cmdline {}.{}={}, then reboot", p.module, p.name, want);
	std::string fix = fmt::format("rdnactl config set {}.{}={}, then reboot", p.module, p.name, want);
	// kmod reads the files in name order: a later one would still win.
	const std::string base = p.source_file.substr(p.source_file.rfind('/') + 1);
	if (p.source == machine::ParamSource::modprobe_d && base > "rdnafix.conf")
		fix += fmt::format(" (and remove line {} of {}: it is read after rdnafix.conf and would win)",
				   p.source_line, p.source_file);
	return fix;
}

Remedy set_param(const Param *p, std::string_view module, std::string_view name, std::string_view want)
{
	if (p && p->source == machine::ParamSource::cmdline)
		return KernelParam{KernelParam::Action::add, fmt::format("{}.{}", module, name), std::string(want)};
	return ModuleOption{std::string(module), std::string(name), std::string(want), std::string(kOwnedConf)};
}

Remedy remove_param(const Param &p)
{
	if (p.source == machine::ParamSource::cmdline)
		return KernelParam{KernelParam::Action::remove, fmt::format("{}.{}", p.module, p.name), ""};
	return ModuleOption{p.module, p.name, std::nullopt, p.source_file};
}

std::string first_clause(std::string s)
{
	auto cut = s.find(": ");
	if (cut != std::string::npos && cut > 20)
		s.resize(cut);
	return s;
}

void check_unreadable(Ctx &c)
{
	size_t n = 0;
	std::string first;
	auto count = [&](const std::vector<Unreadable> &v) {
		for (const auto &u : v) {
			if (first.empty())
				first = u.path + ": " + u.reason;
			++n;
		}
	};
	for (const auto &d : c.s.devices)
		count(d.unreadable);
	count(c.s.driver.unreadable);
	count(c.s.rdnafix.unreadable);
	count(c.s.access.unreadable);
	count(c.s.environment.unreadable);
	if (n)
		c.add("RDNA-RDR-000", "",
		      fmt::format("{} item{} could not be read (first: {})", n, n == 1 ? "" : "s", first),
		      "the values shown as 'unreadable' are unknown; checks that need them were skipped",
		      "run as root, or check the named files");
}

} // namespace detail

std::vector<Finding> evaluate(const Snapshot &snap, const Assessment &a)
{
	detail::Ctx c{snap, a, {}};
	detail::check_devices(c);
	detail::check_driver(c);
	detail::check_memory(c);
	detail::check_gfx10_faults(c);
	detail::check_access(c);
	detail::check_overrides(c);
	detail::check_coverage(c);
	detail::check_libload(c);
	detail::check_environment(c);
	detail::check_rdnafix(c);
	detail::check_rdnafix_health(c);
	detail::check_amdgpu_module(c);
	detail::check_config(c);
	detail::check_builds(c);
	detail::check_security(c);
	detail::check_hwfacts(c);
	detail::check_versions(c);
	detail::check_platform(c);
	detail::check_unreadable(c);
	std::stable_sort(c.out.begin(), c.out.end(),
			 [](const Finding &a, const Finding &b) { return int(a.severity) > int(b.severity); });
	return c.out;
}

std::vector<Finding> evaluate(const Snapshot &snap)
{
	return evaluate(snap, assess(snap));
}

int exit_code_for(const std::vector<Finding> &findings)
{
	for (const auto &f : findings)
		if (f.severity != Severity::info)
			return 1;
	return 0;
}

Summary summarize(const std::vector<Finding> &findings)
{
	Summary c;
	for (const auto &x : findings)
		(x.severity == Severity::error ? c.errors : x.severity == Severity::warn ? c.warnings : c.info)++;
	return c;
}

} // namespace rdnafix::status
