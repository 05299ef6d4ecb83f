// `rdnactl status`: the report as text.
#include "render.hpp"

#include "machine/facts.hpp"

#include "core/text_safe.hpp"
#include "core/text_wrap.hpp"

#include "rdnafix_version.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

using machine::pci_id;

std::string TextStyle::head(const std::string &s) const
{
	return on ? "\033[1m" + s + "\033[0m" : s;
}

std::string TextStyle::sev(Severity v, const std::string &s) const
{
	if (!on)
		return s;
	const char *c = v == Severity::error ? "\033[1;31m" : v == Severity::warn ? "\033[1;33m" : "\033[36m";
	return c + s + "\033[0m";
}

namespace {

std::string gib(std::optional<std::uint64_t> b)
{
	if (!b)
		return "unknown";
	return fmt::format("{:.2f} GiB ({} bytes)", double(*b) / double(1ull << 30), *b);
}

// The text shown for an unset value: "?", "-", "none" or "unknown" by place
// (the report's wording, kept).
std::string or_unset(const std::string &s, const char *unset)
{
	return s.empty() ? std::string(unset) : s;
}

std::string unread_for(const std::vector<Unreadable> &u, const std::string &item)
{
	for (const auto &x : u)
		if (x.item == item)
			return x.reason;
	return "";
}

template <class T>
std::string show(const std::optional<T> &v, const std::vector<Unreadable> &u, const std::string &item,
		 const std::string &absent = "unknown")
{
	if (v)
		return fmt::format("{}", *v);
	std::string r = unread_for(u, item);
	return r.empty() ? absent : r;
}

// One section of the report at a time; `out` collects the lines.
class Text {
public:
	Text(const Snapshot &s, const Assessment &a, const LastValidation &v, const TextStyle &st)
	    : s_(s), a_(a), v_(v), st_(st)
	{
	}
	std::string take() { return std::move(o_); }

	void header();
	void devices();
	void hwdb(const machine::HwdbFacts &h);
	void driver();
	void rdnafix();
	void configuration();
	void access();
	void environment();
	void code_objects();
	void kernel_log();
	void validation();
	// Lines built elsewhere, made terminal-safe (summary lines carry their own styling).
	void lines(const std::vector<std::string> &ls)
	{
		for (const auto &l : ls)
			line(l);
	}
	void raw(const std::string &s) { o_ += s; }
	void head_line(const std::string &h) { head(h); }

private:
	// Every line is machine text (device names, paths, environment values):
	// terminal_safe makes control characters visible; only the styling that
	// `head`/`styled` add stays a terminal sequence.
	void line(const std::string &l) { o_ += core::terminal_safe(l) + "\n"; }
	void head(const std::string &h, const std::string &rest = "")
	{
		o_ += st_.head(core::terminal_safe(h)) + core::terminal_safe(rest) + "\n";
	}
	// A section's unreadable items: name, path and reason.
	void unreadable(const std::vector<Unreadable> &items)
	{
		for (const auto &u : items)
			line(fmt::format("  {:<15} {}: {}", u.item, u.path, u.reason));
	}
	const rules::DeviceNoretry &noretry(const Device &d) const
	{
		return a_.noretry[size_t(&d - s_.devices.data())];
	}

	const Snapshot &s_;
	const Assessment &a_;
	const LastValidation &v_;
	TextStyle st_;
	std::string o_;
};

void Text::header()
{
	head(fmt::format("rdnactl {} status", RDNAFIX_VERSION),
	     fmt::format(" — root {}{}", s_.root,
			 s_.collector == machine::CollectorKind::none
				 ? ""
				 : fmt::format(" ({} collector)", to_string(s_.collector))));
	// Nothing readable: run_status says why on stderr, once.
}

// A derived DRM version: "3.61", "3.49 .. 3.61", "3.49 or older", "3.64 or newer".
std::string derived_range(const machine::DrmVersion &v)
{
	if (v.minor_at_least && v.minor_at_most)
		return *v.minor_at_least == *v.minor_at_most
			       ? fmt::format("3.{}", *v.minor_at_least)
			       : fmt::format("3.{} .. 3.{}", *v.minor_at_least, *v.minor_at_most);
	return v.minor_at_most ? fmt::format("3.{} or older", *v.minor_at_most)
			       : fmt::format("3.{} or newer", v.minor_at_least.value_or(0));
}

void Text::devices()
{
	line("");
	head("Devices");
	if (s_.devices.empty())
		line("  no DRM or display devices found");
	for (const auto &d : s_.devices) {
		if (d.pci_bdf.empty()) {
			line(fmt::format("  {} (not a PCI device)", d.card.empty() ? d.render_node : d.card));
			continue;
		}
		std::string name = d.marketing_name ? *d.marketing_name : (d.is_amd ? "AMD GPU" : "non-AMD device");
		line(fmt::format("  {}  {}  [{}] rev {} class {} driver {}", d.pci_bdf, name, or_unset(pci_id(d), "?"),
				 d.revision ? fmt::format("{:02x}", *d.revision) : "?",
				 d.pci_class ? fmt::format("{:06x}", *d.pci_class) : "?", or_unset(d.driver, "none")));
		if (d.subsystem_vendor_id && d.subsystem_device_id)
			line(fmt::format("    subsystem       {:04x}:{:04x}", *d.subsystem_vendor_id,
					 *d.subsystem_device_id));
		line(fmt::format("    nodes           {} {}", or_unset(d.card, "-"), or_unset(d.render_node, "-")));
		if (!d.is_amd) {
			line("    vendor          not AMD (listed only)");
			for (const auto &u : d.unreadable)
				line(fmt::format("    {:<15} {}", u.item, u.reason));
			continue;
		}
		line(fmt::format("    gfx target      {}{}", d.gfx_target.value_or("unknown"),
				 d.gfx_target_source == machine::GfxTargetSource::unknown
					 ? ""
					 : fmt::format(" (from {})", to_string(d.gfx_target_source))));
		line(fmt::format("    GC version      {}", show(d.gc_version, d.unreadable, "gc_version")));
		line(fmt::format("    generation      {}{}{}",
				 d.generation ? gpudb::to_string(*d.generation) : "unknown",
				 d.apu ? (*d.apu ? ", APU" : ", discrete") : "",
				 d.codename.empty() ? "" : " (" + d.codename + ")"));
		if (d.marketing_name)
			line(fmt::format("    name source     {}", to_string(d.marketing_name_source)));
		if (d.hwdb)
			hwdb(*d.hwdb);
		line(fmt::format("    VRAM total      {}",
				 d.vram_total_bytes ? gib(d.vram_total_bytes)
						    : show(d.vram_total_bytes, d.unreadable, "vram_total_bytes")));
		line(fmt::format("    GTT total       {}",
				 d.gtt_total_bytes ? gib(d.gtt_total_bytes)
						   : show(d.gtt_total_bytes, d.unreadable, "gtt_total_bytes")));
		line(fmt::format("    KFD node        {}",
				 d.kfd_node ? fmt::format("{} (GPU index {})", *d.kfd_node, *d.kfd_gpu_index)
					    : "none"));
		if (const auto &nr = noretry(d); nr.value)
			line(fmt::format("    noretry         {} ({})", *nr.value, nr.explanation));
		if (const auto &v = d.hw.drm_version; v.source == machine::DrmVersionSource::derived)
			line(fmt::format("    DRM version     {} (derived from {})", derived_range(v), v.from));
		else if (v.source != machine::DrmVersionSource::none)
			line(fmt::format("    DRM version     {}.{}.{} ({})", v.major, v.minor, v.patch, v.from));
		if (!d.hw.firmware.empty()) {
			std::string fw;
			for (const char *k : {"mes", "mes_kiq", "mec", "smc"})
				if (const auto it = d.hw.firmware.find(k); it != d.hw.firmware.end())
					fw += fmt::format("{}{} {}", fw.empty() ? "" : ", ", k, it->second);
			line(fmt::format("    firmware        {}{}({} in fw_version)", fw, fw.empty() ? "" : " ",
					 d.hw.firmware.size()));
		}
		if (d.hw.iommu_group)
			line(fmt::format("    IOMMU group     {} ({})", *d.hw.iommu_group,
					 d.hw.iommu_group_type.value_or("type unknown")));
		for (const auto &u : d.unreadable)
			if (u.item != "vram_total_bytes" && u.item != "gtt_total_bytes" && u.item != "gc_version")
				line(fmt::format("    {:<15} {}", u.item, u.reason));
	}
}

// The udev hwdb properties (live path; line() makes the values terminal-safe), and
// where they disagree with rdnactl's own database.
void Text::hwdb(const machine::HwdbFacts &h)
{
	line(fmt::format("    udev hwdb       {} {} apu {}", h.gfx_target.value_or("-"), h.generation.value_or("-"),
			 h.apu.value_or("-")));
	for (const auto &x : h.differences) {
		if (x.key == "entry")
			line("    hwdb differs    udev has an entry for this PCI id, rdnactl's database has none");
		else
			line(fmt::format("    hwdb differs    {}: udev {}, rdnactl {}", x.key,
					 or_unset(x.hwdb, "absent"), or_unset(x.builtin, "absent")));
	}
	if (!h.differences.empty())
		line("                    (60-rdnafix.hwdb is from another rdnactl version, or edited: reinstall "
		     "rdnactl, then run systemd-hwdb update and udevadm trigger)");
}

void Text::driver()
{
	const auto &dr = s_.driver;
	line("");
	head("Driver");
	line(fmt::format("  kernel          {}", or_unset(dr.kernel_release, "unknown")));
	line(fmt::format("  amdgpu          {}{}", dr.amdgpu_loaded ? "loaded" : "not loaded",
			 dr.initstate ? " (initstate " + *dr.initstate + ")" : ""));
	for (const auto &p : dr.params) {
		const bool set = p.source != machine::ParamSource::default_value;
		std::string src = p.source == machine::ParamSource::cmdline ? "kernel command line"
				  : p.source == machine::ParamSource::modprobe_d
					  ? fmt::format("{}:{}", p.source_file, p.source_line)
					  : "default";
		std::string val = p.live_value  ? *p.live_value
				  : p.root_only ? "root only" // mode 0600 in the kernel: not a fault
						: (set ? "(not loaded)" : "-");
		std::string cfg = set ? fmt::format(" set to {}", p.configured_value) : "";
		line(fmt::format("  {:<28} {:<12} {}{}", p.module + "." + p.name, val, src, cfg));
		if (!p.overridden_file.empty())
			line(fmt::format("  {:<28} {:<12} overrides {}:{} ({})", "", "", p.overridden_file,
					 p.overridden_line, p.overridden_value));
	}
	line(fmt::format("  TTM limit       {}{}", gib(dr.ttm_limit_bytes),
			 dr.amdttm_pages_limit ? fmt::format(" (amdttm.pages_limit {})", *dr.amdttm_pages_limit)
			 : dr.ttm_pages_limit  ? fmt::format(" (ttm.pages_limit {})", *dr.ttm_pages_limit)
					       : ""));
	line(fmt::format("  RAM total       {}", gib(dr.mem_total_bytes)));
	unreadable(dr.unreadable);
}

void Text::rdnafix()
{
	const auto &r = s_.rdnafix;
	line("");
	head("rdnafix module");
	line(fmt::format("  installed       {}", r.installed ? r.installed_paths.front() : "no"));
	line(fmt::format("  loaded          {}",
			 r.loaded ? fmt::format("yes ({})", to_string(r.loaded_evidence)) : "no"));
	if (r.version)
		line(fmt::format("  version         {} (ABI {})", *r.version, r.abi_version.value_or("?")));
	if (r.amdgpu_state)
		line(fmt::format("  amdgpu state    {}", *r.amdgpu_state));
	if (r.dry_run)
		line(fmt::format("  dry_run         {}", *r.dry_run));
	for (const auto &x : rdnafix_hook_lines(r))
		line(x);
	for (const auto &[k, v] : r.params)
		line(fmt::format("  param {:<13} {}", k, v));
	for (const auto &d : r.devices) {
		line(fmt::format("  device {}", d.pci_bdf));
		// Beside amdgpu's own view of the same device.
		const Device *ad = nullptr;
		for (const auto &x : s_.devices)
			if (x.pci_bdf == d.pci_bdf)
				ad = &x;
		for (const auto &[k, v] : d.values) {
			std::string amd;
			if (ad && k == "gfx_target" && ad->gfx_target)
				amd = " (amdgpu/KFD: " + *ad->gfx_target + ")";
			if (ad && k == "noretry_applied" && noretry(*ad).value)
				amd = fmt::format(" (effective: {})", *noretry(*ad).value);
			if (ad && k == "generation" && ad->generation)
				amd = fmt::format(" (database: {})", gpudb::to_string(*ad->generation));
			line(fmt::format("    {:<24} {}{}", k, v, amd));
		}
	}
	unreadable(r.unreadable);
}

void Text::configuration()
{
	line("");
	head("Configuration");
	for (auto &l : configuration_lines(s_, a_))
		line(l);
}

void Text::access()
{
	const auto &acc = s_.access;
	line("");
	head("Access");
	line(fmt::format("  judged for      {}{}",
			 acc.subject == machine::AccessSubject::user ? "user " + acc.user : "this process",
			 acc.subject == machine::AccessSubject::process && !acc.user.empty() ? " (" + acc.user + ")"
											     : ""));
	auto join = [](const std::vector<std::string> &v) {
		std::string out;
		for (const auto &x : v)
			out += (out.empty() ? "" : ",") + x;
		return out.empty() ? std::string("-") : out;
	};
	line(fmt::format("  groups          {}", join(acc.session_groups)));
	if (!acc.relogin_groups.empty())
		line(fmt::format("  not yet active  {} (in /etc/group, not in this session: log in again)",
				 join(acc.relogin_groups)));
	if (acc.container.detected()) {
		std::string ev;
		for (const auto &m : acc.container.evidence)
			ev += (ev.empty() ? "" : ", ") + m.source + (m.value.empty() ? "" : "=" + m.value);
		line(fmt::format("  container       {}{} ({})", machine::to_string(acc.container.kind),
				 acc.container.rootless ? (*acc.container.rootless ? ", rootless" : ", rootful") : "",
				 ev));
	}
	if (const auto &w = s_.wsl; w.kind != machine::WslKind::none) {
		line(fmt::format("  WSL             {} ({})", machine::to_string(w.kind), w.evidence));
		line(fmt::format("  /dev/dxg        {}",
				 !w.dxg_exists ? std::string("missing")
					       : fmt::format("{} {}:{} {} {}:{}", w.dxg_type ? w.dxg_type : '?',
							     w.dxg_major.value_or(0), w.dxg_minor.value_or(0),
							     w.dxg_mode ? fmt::format("{:04o}", *w.dxg_mode) : "?",
							     w.dxg_owner, w.dxg_group)));
		line(fmt::format("  ROCm on WSL     librocdxg {}; rocr4wsl runtime {}", join(w.rocdxg),
				 w.rocr4wsl.empty() ? "-" : "installed"));
	}
	if (acc.userns.read && !acc.userns.initial()) {
		auto map = [](const std::vector<machine::IdMapRange> &v) {
			std::string out;
			for (const auto &r : v)
				out += fmt::format("{}{}->{}+{}", out.empty() ? "" : " ", r.inside, r.outside, r.count);
			return out.empty() ? std::string("(empty)") : out;
		};
		line(fmt::format("  user namespace  uid {}; gid {}; unmapped ids show as {}:{}",
				 map(acc.userns.uid_map), map(acc.userns.gid_map),
				 acc.userns.overflow_uid.value_or(65534), acc.userns.overflow_gid.value_or(65534)));
	}
	for (size_t i = 0; i < acc.nodes.size(); ++i) {
		const DevNode &n = acc.nodes[i];
		const NodeAccess &v = a_.nodes[i];
		if (!n.exists) {
			line(fmt::format("  {:<20} missing", n.path));
			continue;
		}
		line(fmt::format("  {:<20} {} {}:{} {}  {}: {}", n.path, n.mode ? fmt::format("{:04o}", *n.mode) : "?",
				 or_unset(n.owner, "?"), or_unset(n.group, "?"),
				 n.stat_source == machine::StatSource::manifest ? "(manifest)" : "",
				 v.unknown    ? "open unknown"
				 : v.can_open ? "can open"
					      : "CANNOT open",
				 v.verdict));
	}
	unreadable(acc.unreadable);
}

void Text::environment()
{
	const auto &e = s_.environment;
	line("");
	head("Environment", " (" + e.source + ")");
	if (e.vars.empty())
		line("  no relevant variables set");
	// Each variable with its verdict from the variables table.
	for (const auto &j : a_.variables) {
		std::string word(verdict_word(j.verdict));
		if (!j.near.empty())
			word += ", meant " + j.near;
		line(fmt::format("  {}={}  [{}]", j.name, j.value, word));
	}
	for (size_t i = 0; i < e.overrides.size(); ++i) {
		const OverrideVar &ov = e.overrides[i];
		// The reasons are the findings' text (RDNA-ENV-001..005): not repeated here.
		if (!ov.target)
			line(fmt::format("  {}: invalid (see its finding)", ov.name));
		for (const auto &v : a_.overrides[i])
			line(fmt::format("  {} on {} ({}): {}", ov.name, v.device, or_unset(v.native, "?"),
					 rules::to_string(v.verdict)));
	}
	unreadable(e.unreadable);
}

void Text::code_objects()
{
	line("");
	head("Code objects");
	for (auto &l : coverage_lines(a_))
		line(l);
}

void Text::kernel_log()
{
	if (s_.kernel_log.source == machine::KernelLogSource::none)
		return;
	line("");
	head("Kernel log (this boot)", " (" + s_.kernel_log.path + ")");
	for (const auto &l : kernel_log_lines(s_))
		line("  " + l);
}

void Text::validation()
{
	line("");
	head("Validation");
	for (const auto &l : validation_lines(v_))
		line(l);
}

} // namespace

std::string render_text(const Snapshot &s, const Assessment &a, const std::vector<Finding> &findings,
			const LastValidation &v, const TextOptions &o)
{
	const TextStyle st{o.colour};
	Text t(s, a, v, st);
	t.header();
	if (s.nothing_readable)
		return t.take();
	t.raw("\n");
	for (const auto &l : summary_lines(findings, st))
		t.raw(l + "\n"); // terminal-safe already, with its own styling
	if (!o.quiet) {
		if (o.verbose) {
			t.devices();
			t.driver();
			t.rdnafix();
			t.configuration();
			t.access();
			t.environment();
			t.code_objects();
			t.kernel_log();
			t.validation();
		} else {
			t.raw("\n" + render_brief(s, a, v, st));
		}
		if (!findings.empty()) {
			t.raw("\n");
			t.head_line("Details");
			t.lines(detail_lines(findings, o.verbose));
		}
		if (o.verbose) {
			t.raw("\n");
			t.head_line("Checks that found nothing");
			t.lines(pass_lines(findings, o.selection, o.not_run));
		}
	}
	std::string out = t.take();
	return o.width ? core::wrap_text(out, *o.width) : out;
}

std::string render_text(const Snapshot &s, const Assessment &a, const std::vector<Finding> &findings,
			const LastValidation &v, bool colour)
{
	TextOptions o;
	o.colour = colour;
	o.verbose = true;
	return render_text(s, a, findings, v, o);
}

} // namespace rdnafix::status
