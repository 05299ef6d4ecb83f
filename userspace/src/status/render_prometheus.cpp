// `rdnactl status --format prometheus`: the report as Prometheus text
// exposition format 0.0.4, for node_exporter's textfile collector
// (docs/metrics.md lists every metric).  Pure: values in, text out.
//
// The format: every family once, "# HELP" and "# TYPE" before its samples,
// its samples together; a label value escapes backslash, double quote and
// line feed (\\, \", \n) and must be UTF-8.  Label values come from the
// machine (device names, hook names, environment values): hostile input,
// spelt by core::terminal_safe (controls and invalid bytes as visible
// escapes, a backslash doubled) and then escaped for the format, here, the
// one place.  terminal_safe is one-to-one, so two raw values that differ
// only in invalid bytes or control characters stay two series.
#include "render.hpp"

#include "core/text_safe.hpp"
#include "machine/facts.hpp"

#include "rdnafix_version.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <utility>

namespace rdnafix::status {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Family {
	std::string name, type, help;
	// Samples by label set, in first-seen order: a label set seen again adds
	// to the value (no duplicate series, by construction).
	std::vector<std::pair<Labels, double>> samples;
	void add(Labels labels, double value)
	{
		for (auto &[l, v] : samples)
			if (l == labels) {
				v += value;
				return;
			}
		samples.emplace_back(std::move(labels), value);
	}
};

std::string number(double v)
{
	if (std::isnan(v))
		return "NaN";
	if (std::isinf(v))
		return v > 0 ? "+Inf" : "-Inf";
	if (v == std::floor(v) && std::fabs(v) < 1e15)
		return fmt::format("{}", static_cast<long long>(v));
	return fmt::format("{}", v);
}

std::string render(const std::vector<Family> &families)
{
	std::string o;
	for (const auto &f : families) {
		if (f.samples.empty())
			continue;
		o += fmt::format("# HELP {} {}\n# TYPE {} {}\n", f.name, f.help, f.name, f.type);
		for (const auto &[labels, value] : f.samples) {
			o += f.name;
			if (!labels.empty()) {
				o += '{';
				for (size_t i = 0; i < labels.size(); ++i)
					o += fmt::format("{}{}=\"{}\"", i ? "," : "", labels[i].first,
							 prometheus_label_value(labels[i].second));
				o += '}';
			}
			o += ' ' + number(value) + '\n';
		}
	}
	return o;
}

double flag(bool b)
{
	return b ? 1 : 0;
}

// rdnafix is configured: a softdep names it, or a parameter of it is set
// (modprobe.d or a kernel command line).
bool rdnafix_configured(const Snapshot &s, const Assessment &a)
{
	for (const auto &src : s.boot.modprobe)
		for (const auto &e : src.config.entries) {
			if (e.module == "rdnafix" && e.kind == core::ModprobeKind::options)
				return true;
			for (const auto *list : {&e.pre, &e.post})
				for (const auto &m : *list)
					if (m == "rdnafix")
						return true;
		}
	for (const auto &x : a.settings)
		if (x.module == "rdnafix")
			return true;
	return false;
}

class Metrics {
public:
	Family &family(std::string name, std::string type, std::string help)
	{
		fams_.push_back({std::move(name), std::move(type), std::move(help), {}});
		return fams_.back();
	}
	std::string take() const { return render(fams_); }

private:
	std::vector<Family> fams_;
};

void status_metrics(Metrics &m, const Snapshot &s, const std::vector<Finding> &findings, std::int64_t now)
{
	m.family("rdnafix_status_info", "gauge",
		 "rdnactl version, collector and kernel release of this report (always 1)")
		.add({{"rdnactl_version", RDNAFIX_VERSION},
		      {"collector", std::string(to_string(s.collector))},
		      {"kernel_release", s.driver.kernel_release}},
		     1);
	m.family("rdnafix_status_success", "gauge",
		 "1 when rdnactl could read the machine, 0 when nothing was readable")
		.add({}, flag(!s.nothing_readable));
	m.family("rdnafix_status_exit_code", "gauge",
		 "Exit code of rdnactl status: 0 nothing to warn about, 1 a warning or error finding, 2 could not run")
		.add({}, s.nothing_readable ? 2 : exit_code_for(findings));
	m.family("rdnafix_status_collect_timestamp_seconds", "gauge",
		 "When rdnactl collected this report, seconds since 1970-01-01 UTC")
		.add({}, double(now));
}

void device_metrics(Metrics &m, const Snapshot &s, const Assessment &a)
{
	auto &info = m.family("rdnafix_gpu_info", "gauge",
			      "AMD GPU identity: PCI address and id, gfx target, generation, APU (always 1)");
	auto &vram = m.family("rdnafix_gpu_vram_total_bytes", "gauge", "VRAM of the GPU (mem_info_vram_total)");
	auto &gtt = m.family("rdnafix_gpu_gtt_total_bytes", "gauge", "GTT of the GPU (mem_info_gtt_total)");
	auto &noretry = m.family("rdnafix_gpu_noretry_effective", "gauge",
				 "noretry in effect for the GPU (1: page faults are not retried), as status judges it");
	for (size_t i = 0; i < s.devices.size(); ++i) {
		const Device &d = s.devices[i];
		if (!d.is_amd || d.pci_bdf.empty())
			continue;
		info.add({{"bdf", d.pci_bdf},
			  {"pci_id", machine::pci_id(d)},
			  {"gfx_target", d.gfx_target.value_or("")},
			  {"generation", d.generation ? std::string(gpudb::to_string(*d.generation)) : ""},
			  {"apu", d.apu ? (*d.apu ? "true" : "false") : ""},
			  {"name", d.marketing_name.value_or("")},
			  {"driver", d.driver}},
			 1);
		if (d.vram_total_bytes)
			vram.add({{"bdf", d.pci_bdf}}, double(*d.vram_total_bytes));
		if (d.gtt_total_bytes)
			gtt.add({{"bdf", d.pci_bdf}}, double(*d.gtt_total_bytes));
		if (const auto &nr = a.noretry.at(i); nr.value)
			noretry.add({{"bdf", d.pci_bdf}}, double(*nr.value));
	}
	m.family("rdnafix_amdgpu_loaded", "gauge", "1 when the amdgpu module is loaded")
		.add({}, flag(s.driver.amdgpu_loaded));
	if (s.driver.ttm_limit_bytes)
		m.family("rdnafix_ttm_limit_bytes", "gauge", "System memory TTM lets the GPUs map (pages_limit x 4096)")
			.add({}, double(*s.driver.ttm_limit_bytes));
}

void module_metrics(Metrics &m, const Snapshot &s, const Assessment &a)
{
	const auto &r = s.rdnafix;
	m.family("rdnafix_module_installed", "gauge", "1 when an rdnafix.ko is installed for a kernel")
		.add({}, flag(r.installed));
	m.family("rdnafix_module_configured", "gauge",
		 "1 when rdnafix is configured to load (a modprobe.d softdep or option, or a command-line parameter)")
		.add({}, flag(rdnafix_configured(s, a)));
	m.family("rdnafix_module_loaded", "gauge", "1 when the rdnafix module is loaded").add({}, flag(r.loaded));
	if (r.loaded)
		m.family("rdnafix_module_info", "gauge",
			 "Version and sysfs ABI of the loaded rdnafix module (always 1)")
			.add({{"version", r.version.value_or("")}, {"abi_version", r.abi_version.value_or("")}}, 1);
	if (r.dry_run)
		m.family("rdnafix_module_dry_run", "gauge",
			 "1 when rdnafix runs with dry_run=1 (counts, changes nothing)")
			.add({}, flag(*r.dry_run == "1"));
	auto &hooks = m.family("rdnafix_hook_active", "gauge",
			       "1 when the rdnafix hook is active, 0 when inactive or refusing every call");
	for (const auto &[name, state] : r.hooks)
		hooks.add({{"hook", name}}, flag(state == "active"));
}

void finding_metrics(Metrics &m, const std::vector<Finding> &findings)
{
	auto c = summarize(findings);
	auto &counts = m.family("rdnafix_findings", "gauge", "Number of findings of rdnactl status by severity");
	for (auto [sev, n] : {std::pair{Severity::error, c.errors}, std::pair{Severity::warn, c.warnings},
			      std::pair{Severity::info, c.info}})
		counts.add({{"severity", std::string(severity_name(sev))}}, n);
	auto &each = m.family("rdnafix_finding", "gauge",
			      "Findings of rdnactl status by check id, severity and subject (the number of them)");
	for (const auto &f : findings)
		each.add({{"id", f.id}, {"severity", std::string(severity_name(f.severity))}, {"subject", f.subject}},
			 1);
}

void validation_metrics(Metrics &m, const LastValidation &v)
{
	auto &result = m.family("rdnafix_validation_last_result", "gauge",
				"Result of the last rdnactl validate run on this stack: 1 for the result it had, 0 for "
				"the others (never: no run on this stack)");
	for (auto r : {ValidationResult::pass, ValidationResult::fail, ValidationResult::not_run,
		       ValidationResult::never, ValidationResult::unreadable})
		result.add({{"result", std::string(to_string(r))}}, flag(v.result == r));
	m.family("rdnafix_validation_databases_unreadable", "gauge",
		 "History databases that exist but could not be read (rdnactl status names the reason)")
		.add({}, double(v.unreadable.size()));
	if (v.run == 0)
		return;
	m.family("rdnafix_validation_last_run_info", "gauge",
		 "The last run on this stack: database, run id, device, why its cases did not run (always 1)")
		.add({{"database", v.database},
		      {"run", std::to_string(v.run)},
		      {"device", v.device},
		      {"not_run_reason", v.not_run}},
		     1);
	if (v.started_epoch)
		m.family("rdnafix_validation_last_timestamp_seconds", "gauge",
			 "When the last run on this stack started, seconds since 1970-01-01 UTC")
			.add({}, double(*v.started_epoch));
	auto &status = m.family("rdnafix_validation_case_status", "gauge",
				"Result of each case of the last run on this stack (always 1, the result in a label)");
	auto &flops = m.family("rdnafix_validation_case_flops_per_second", "gauge",
			       "Compute throughput of a case of the last run on this stack (GFLOP/s x 1e9)");
	auto &bytes = m.family("rdnafix_validation_case_bytes_per_second", "gauge",
			       "Memory throughput of a case of the last run on this stack (GB/s x 1e9)");
	auto &secs = m.family("rdnafix_validation_case_duration_seconds", "gauge",
			      "Wall time of a case of the last run on this stack");
	for (const auto &c : v.cases) {
		status.add({{"case", c.name}, {"status", validate::status_name(c.status)}}, 1);
		if (c.gflops)
			flops.add({{"case", c.name}}, *c.gflops * 1e9);
		if (c.gbs)
			bytes.add({{"case", c.name}}, *c.gbs * 1e9);
		if (c.seconds)
			secs.add({{"case", c.name}}, *c.seconds);
	}
}

} // namespace

std::string prometheus_label_value(std::string_view raw)
{
	std::string out;
	for (char ch : core::terminal_safe(raw)) {
		if (ch == '\\')
			out += "\\\\";
		else if (ch == '"')
			out += "\\\"";
		else
			out += ch; // terminal_safe leaves no line feed or other control
	}
	return out;
}

std::string render_prometheus(const Snapshot &s, const Assessment &a, const std::vector<Finding> &findings,
			      const LastValidation &v, std::int64_t collect_time_s)
{
	Metrics m;
	status_metrics(m, s, findings, collect_time_s);
	if (!s.nothing_readable) {
		device_metrics(m, s, a);
		module_metrics(m, s, a);
		finding_metrics(m, findings);
		validation_metrics(m, v);
	}
	return m.take();
}

} // namespace rdnafix::status
