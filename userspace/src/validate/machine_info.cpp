// The run's view of the machine Snapshot (see machine_info.hpp).  The only
// reading is machine::collect(); everything else here is pure.
#include "machine_info.hpp"

#include <climits>

#include "core/parse.hpp"
#include "core/rules.hpp"
#include "machine/collect.hpp"
#include "machine/facts.hpp"

namespace rdnafix::validate {

namespace {

template <class T> void put(nlohmann::json &j, const char *key, const std::optional<T> &v)
{
	j[key] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <class T> void get(const nlohmann::json &j, const char *key, std::optional<T> &v)
{
	if (j.contains(key) && !j.at(key).is_null())
		v = j.at(key).get<T>();
}

std::optional<int> as_int(const std::string &s)
{
	const auto v = core::parse_i64(s);
	if (!v || *v < INT_MIN || *v > INT_MAX)
		return std::nullopt;
	return int(*v);
}

} // namespace

void to_json(nlohmann::json &j, const RunDevice &d)
{
	j = nlohmann::json::object();
	j["pci_bdf"] = d.pci_bdf;
	put(j, "gfx_target", d.gfx_target);
	put(j, "noretry_effective", d.noretry_effective);
	put(j, "rdnafix_noretry_applied", d.rdnafix_noretry_applied);
}

void from_json(const nlohmann::json &j, RunDevice &d)
{
	d = RunDevice{};
	d.pci_bdf = j.value("pci_bdf", "");
	get(j, "gfx_target", d.gfx_target);
	get(j, "noretry_effective", d.noretry_effective);
	get(j, "rdnafix_noretry_applied", d.rdnafix_noretry_applied);
}

RunMachineInfo run_machine_info(const machine::Snapshot &snap)
{
	RunMachineInfo m;
	m.kernel_release = snap.driver.kernel_release.empty() ? "unknown" : snap.driver.kernel_release;
	for (const auto &[k, v] : snap.driver.amdgpu_all_params)
		m.amdgpu_params[k] = v;
	for (const auto &[k, v] : snap.rdnafix.params)
		m.rdnafix_params[k] = v;
	if (auto it = snap.driver.amdgpu_all_params.find("noretry"); it != snap.driver.amdgpu_all_params.end())
		m.noretry_param = as_int(it->second);
	for (const auto &d : snap.devices) {
		if (!d.is_amd)
			continue;
		RunDevice r;
		r.pci_bdf = d.pci_bdf;
		r.gfx_target = d.gfx_target;
		r.noretry_effective = rules::device_noretry(machine::noretry_facts(snap, d)).value;
		r.rdnafix_noretry_applied = d.rdnafix_noretry_applied;
		m.devices.push_back(std::move(r));
	}
	return m;
}

RunMachineInfo read_run_machine_info()
{
	machine::CollectOptions o;
	o.all_amdgpu_params = true;
	const auto snap = machine::collect(o);
	RunMachineInfo m = run_machine_info(snap);
	m.stack = collect_stack(snap);
	return m;
}

} // namespace rdnafix::validate
