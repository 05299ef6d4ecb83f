// The judge: each match against THIS machine (snapshot, coverage report).
// Runtime / code-object signatures here; kernel-side ones in
// judge_kernel.cpp.  Pure: values in, Explanation out.
#include "explain/judge_support.hpp"

#include "software/model.hpp"

#include "machine/facts.hpp"

#include "core/gpudb.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rdnafix::explain {

namespace detail {

std::optional<core::GfxTarget> parse_gfx(std::string_view name)
{
	return gpudb::parse_gfx_name(std::string(name.substr(0, name.find(':'))));
}

Machine machine_facts(const machine::Snapshot &s, const coverage::Report *coverage)
{
	Machine m;
	m.snap = &s;
	m.coverage = coverage;
	for (const auto &d : s.devices) {
		if (!d.is_amd)
			continue;
		Gpu g;
		g.dev = &d;
		g.bdf = d.pci_bdf;
		g.gfx = d.gfx_target.value_or("");
		g.target = g.gfx.empty() ? std::nullopt : parse_gfx(g.gfx);
		g.label = fmt::format("{} ({}{}{})", g.bdf.empty() ? d.card : g.bdf,
				      g.gfx.empty() ? "gfx unknown" : g.gfx, d.generation ? ", " : "",
				      d.generation ? std::string(gpudb::display_name(*d.generation)) : "");
		for (const auto &o : s.environment.overrides) {
			if (o.node && d.kfd_node != o.node)
				continue;
			if (!o.node && d.kfd_node &&
			    s.environment.vars.count(fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", *d.kfd_node)))
				continue;
			OverrideHere h{o.name, o.value, std::nullopt, o.error};
			if (o.target && g.target)
				h.verdict = rules::assess_override(*g.target, *o.target);
			g.overrides.push_back(std::move(h));
		}
		const auto nr = rules::device_noretry(machine::noretry_facts(s, d));
		g.noretry = nr.value;
		g.noretry_rule = nr.explanation;
		m.gpus.push_back(std::move(g));
	}
	return m;
}

const Gpu *gpu_by_bdf(const Machine &m, std::string_view bdf)
{
	for (const auto &g : m.gpus)
		if (!bdf.empty() && g.bdf == bdf)
			return &g;
	return nullptr;
}

const Gpu *gpu_by_node(const Machine &m, unsigned node)
{
	for (const auto &g : m.gpus)
		if (g.dev->kfd_node && unsigned(*g.dev->kfd_node) == node)
			return &g;
	return nullptr;
}

void judge_overrides(const Gpu &g, Explanation *e, bool unsafe_only)
{
	for (const auto &o : g.overrides) {
		if (!o.error.empty()) {
			e->here.push_back(fmt::format("{}={} is not a valid override ({}); ROCr ignores it", o.name,
						      o.value, o.error));
			e->remedies.push_back(core::UnsetEnv{o.name, "invalid value"});
			continue;
		}
		if (!o.verdict)
			continue;
		const auto v = o.verdict->verdict;
		if (unsafe_only && v != rules::OverrideVerdict::unsafe)
			continue;
		e->here.push_back(fmt::format("{}={} on {}: {} — {}", o.name, o.value, g.label, rules::to_string(v),
					      o.verdict->reason));
		if (v == rules::OverrideVerdict::unsafe) {
			e->fix.push_back(fmt::format("unset {} (it runs code of another ISA on {}: wrong results and "
						     "faults)",
						     o.name, g.gfx));
			e->remedies.push_back(core::UnsetEnv{o.name, "unsafe override: code of another ISA"});
		}
	}
}

namespace {

std::string_view verdict_word(coverage::Verdict v)
{
	switch (v) {
	case coverage::Verdict::native:
		return "native";
	case coverage::Verdict::generic:
		return "generic";
	case coverage::Verdict::override_only:
		return "only with an override";
	case coverage::Verdict::missing:
		return "missing";
	case coverage::Verdict::no_code:
		return "no device code";
	}
	return "?";
}

} // namespace

void coverage_lines(const Machine &m, const std::string &gfx, Explanation *e)
{
	if (!m.coverage) {
		e->here.push_back(fmt::format("which installed library lacks {} was not checked (no code-object scan "
					      "in this run)",
					      gfx.empty() ? "the GPU's target" : gfx));
		return;
	}
	if (m.coverage->installs.empty()) {
		e->here.push_back("coverage: no installation with GPU code found on this machine (searched: the "
				  "environment's python, ROCM_PATH, /opt/rocm*, multiarch); the failing program's "
				  "libraries were not seen: `rdnactl coverage PATH` reads them");
		return;
	}
	std::size_t shown = 0, bad = 0;
	for (const auto &j : m.coverage->judgements) {
		if (j.install >= m.coverage->installs.size() ||
		    j.library >= m.coverage->installs[j.install].libraries.size())
			continue;
		const auto &inst = m.coverage->installs[j.install];
		const auto &lib = inst.libraries[j.library];
		for (const auto &d : j.devices) {
			if (!gfx.empty() && d.gfx != gfx)
				continue;
			if (d.verdict == coverage::Verdict::native || d.verdict == coverage::Verdict::generic ||
			    d.verdict == coverage::Verdict::no_code)
				continue;
			++bad;
			if (shown++ < 8)
				e->here.push_back(fmt::format("coverage: {} ({}): {} for {}{}{}", lib.name, inst.label,
							      verdict_word(d.verdict), d.gfx,
							      d.override_value.empty() ? ""
										       : " (HSA_OVERRIDE_GFX_VERSION=" +
												 d.override_value + ")",
							      d.reason.empty() ? "" : ": " + d.reason));
		}
	}
	if (bad > shown)
		e->here.push_back(fmt::format("coverage: {} more libraries without code for {}", bad - shown, gfx));
	if (bad == 0)
		e->here.push_back(fmt::format("coverage: every scanned library has code for {} ({} installation(s) "
					      "scanned): the failing program loads a library the scan did not see",
					      gfx.empty() ? "the GPUs" : gfx, m.coverage->installs.size()));
}

namespace {

// The fix for a GPU target without code: the ISA-safe override when one
// exists and the library has it, else a build with the target (into
// `pending`, see flush_code_fixes).
void code_fix(const Machine &m, const Gpu &g, const std::vector<std::string> &bundled, Explanation *e,
	      std::vector<CodeFix> &pending, bool here = true)
{
	if (!g.target)
		return;
	const auto safe = rules::safe_override_for(*g.target);
	const bool bundled_known = !bundled.empty();
	const bool has_safe =
		safe && (!bundled_known || std::any_of(bundled.begin(), bundled.end(), [&](const auto &b) {
			return b.substr(0, b.find(':')) == safe->name();
		}));
	const bool already = std::any_of(g.overrides.begin(), g.overrides.end(),
					 [&](const OverrideHere &o) { return safe && o.value == safe->dotted(); });
	// the installed libraries that the scan found without the safe target either: for them the
	// override cannot help, so it is not offered as the fix
	std::vector<std::string> useless;
	if (here && m.coverage)
		for (const auto &j : m.coverage->judgements) {
			if (j.install >= m.coverage->installs.size() ||
			    j.library >= m.coverage->installs[j.install].libraries.size())
				continue;
			for (const auto &d : j.devices)
				if (d.gfx == g.gfx && d.verdict == coverage::Verdict::missing)
					useless.push_back(m.coverage->installs[j.install].libraries[j.library].name);
		}
	bool offered = false;
	if (has_safe && !already && !useless.empty()) {
		e->here.push_back(fmt::format("HSA_OVERRIDE_GFX_VERSION={} would not help: {} {} no {} code either",
					      safe->dotted(), fmt::join(useless, ", "),
					      useless.size() == 1 ? "has" : "have", safe->name()));
	} else if (has_safe && !already) {
		offered = true;
		pending.push_back(CodeFix{g.gfx, safe->dotted(), safe->name(),
					  rules::isa_family_of(*g.target)
						  ? std::string(rules::isa_family_of(*g.target)->generic_name)
						  : "",
					  true, here});
		if (here) // a typed remedy only for a GPU of this machine
			e->remedies.push_back(
				core::SetEnv{"HSA_OVERRIDE_GFX_VERSION", safe->dotted(),
					     fmt::format("{} runs {} code (ISA-safe)", g.gfx, safe->name())});
	} else if (safe && bundled_known && !has_safe) {
		e->here.push_back(
			fmt::format("the ISA-safe override for {} would be {} ({}), but the library has no {} "
				    "code either",
				    g.gfx, safe->dotted(), safe->name(), safe->name()));
	}
	if (!offered)
		pending.push_back(CodeFix{g.gfx, "", "", "", false, here});
}

void judge_code_object(const Machine &m, Explanation *e)
{
	const auto &mt = e->match;
	std::vector<CodeFix> pending;
	std::vector<std::string> bundled, log_devices;
	if (mt.nobinary) {
		const auto &d = *mt.nobinary;
		bundled = d.bundled;
		log_devices = d.devices;
		e->decoded.push_back(fmt::format("devices in the log: {}", fmt::join(d.devices, ", ")));
		std::vector<std::string> procs;
		for (const auto &b : d.bundled)
			procs.push_back(b);
		e->decoded.push_back(fmt::format("code objects bundled: {}",
						 procs.empty() ? std::string("none listed")
							       : fmt::format("{}", fmt::join(procs, ", "))));
		for (const auto &miss : d.missing)
			e->decoded.push_back(fmt::format("{} has no code object in this library (bundled: {})", miss,
							 procs.empty() ? std::string("none")
								       : fmt::format("{}", fmt::join(procs, ", "))));
		if (mt.count > 1)
			e->decoded.push_back(
				fmt::format("the report was printed {} times (once per library loaded)", mt.count));
	}
	// targets the log lacks that are no GPU of this machine: the fix for the log's machine
	if (mt.nobinary)
		for (const auto &miss : mt.nobinary->missing) {
			const std::string proc = miss.substr(0, miss.find(':'));
			if (std::any_of(m.gpus.begin(), m.gpus.end(), [&](const Gpu &g) { return g.gfx == proc; }))
				continue;
			Gpu other;
			other.gfx = proc;
			other.target = parse_gfx(proc);
			other.label = proc;
			code_fix(m, other, bundled, e, pending, false);
		}
	if (m.gpus.empty()) {
		e->here.push_back("this machine shows no AMD GPU: judged from the log alone");
		flush_code_fixes(pending, e);
		return;
	}
	for (const auto &g : m.gpus) {
		if (!log_devices.empty()) {
			const bool in_log =
				std::any_of(log_devices.begin(), log_devices.end(), [&](const std::string &t) {
					if (t.substr(0, t.find(':')) == g.gfx)
						return true;
					return std::any_of(g.overrides.begin(), g.overrides.end(),
							   [&](const OverrideHere &o) {
								   const auto lt = parse_gfx(t);
								   return lt && o.verdict && lt->dotted() == o.value;
							   });
				});
			if (!in_log)
				e->here.push_back(
					fmt::format("{} is not among the devices of the log ({}): the log comes from "
						    "another machine or another environment",
						    g.label, fmt::join(log_devices, ", ")));
		}
		e->here.push_back(fmt::format("{}: {}", g.label,
					      g.overrides.empty() ? std::string("no HSA_OVERRIDE_GFX_VERSION set")
								  : fmt::format("{} set", g.overrides.front().name)));
		judge_overrides(g, e, false);
		coverage_lines(m, g.gfx, e);
		code_fix(m, g, bundled, e, pending);
	}
	flush_code_fixes(pending, e);
}

// The facts the built-in judges read from a match's captures: node,
// address, and one detail (ring, MES message, firmware file, reason).
void facts_into_match(const std::vector<knowledge::Fact> &facts, Match *m)
{
	for (const auto &f : facts) {
		if (f.name == "node") {
			if (const auto v = core::parse_u64(f.value); v && *v < 65536)
				m->node = unsigned(*v);
		} else if (f.name == "address") {
			if (const auto v = core::parse_u64(f.value))
				m->address = *v;
		} else if (m->detail.empty() && (f.name == "ring" || f.name == "msg" || f.name == "firmware" ||
						 f.name == "reason" || f.name == "path")) {
			m->detail = f.value;
		}
	}
}

// A capture named "arch" (rocBLAS, ollama): the GPU target a library lacks,
// with the targets it has ("available"), judged like a missing code object.
void judge_arch(const Machine &m, Explanation *e)
{
	std::string arch;
	std::vector<std::string> available;
	for (const auto &f : e->facts) {
		if (f.name == "arch")
			arch = f.value.substr(0, f.value.find(':'));
		else if (f.name == "available" || f.name == "supported") {
			std::string_view v = f.value;
			while (!v.empty()) {
				const auto comma = v.find(',');
				available.emplace_back(v.substr(0, comma));
				v = comma == std::string_view::npos ? std::string_view() : v.substr(comma + 1);
			}
		}
	}
	bool here = false;
	std::vector<CodeFix> pending;
	for (const auto &g : m.gpus) {
		if (!arch.empty() && g.gfx != arch)
			continue;
		here = true;
		judge_overrides(g, e, false);
		coverage_lines(m, g.gfx, e);
		code_fix(m, g, available, e, pending);
	}
	if (!here && !arch.empty()) {
		Gpu other;
		other.gfx = arch;
		other.target = parse_gfx(arch);
		other.label = arch;
		if (!m.gpus.empty())
			e->here.push_back(
				fmt::format("no GPU of this machine is {}: the log comes from another machine "
					    "or runs under an override",
					    arch));
		code_fix(m, other, available, e, pending, false);
	}
	flush_code_fixes(pending, e);
}

void judge_runtime_fault(const Machine &m, Explanation *e)
{
	const auto &mt = e->match;
	if (mt.node)
		e->decoded.push_back(fmt::format("KFD node {}{}", *mt.node,
						 mt.address ? fmt::format(", address 0x{:x}", *mt.address) : ""));
	if (!mt.detail.empty())
		e->decoded.push_back("reason: " + mt.detail);
	if (mt.count > 1)
		e->decoded.push_back(fmt::format("{} times in the log", mt.count));
	const Gpu *g = mt.node ? gpu_by_node(m, *mt.node) : nullptr;
	if (mt.node && !g && !m.gpus.empty())
		e->here.push_back(fmt::format("no GPU of this machine is KFD node {}: the log may come from another "
					      "machine (nodes here: {})",
					      *mt.node, [&] {
						      std::string s;
						      for (const auto &x : m.gpus)
							      if (x.dev->kfd_node)
								      s += (s.empty() ? "" : ", ") +
									   std::to_string(*x.dev->kfd_node) + "=" +
									   x.gfx;
						      return s.empty() ? std::string("none known") : s;
					      }()));
	if (g)
		e->here.push_back(fmt::format("node {} is {} here", *mt.node, g->label));
	for (const auto &x : m.gpus)
		if (!g || &x == g)
			judge_overrides(x, e, true);
	if (g && g->dev->apu.value_or(false))
		e->here.push_back(fmt::format("{} is an APU: buffers live in system memory (GTT) under the TTM ceiling",
					      g->label));
	e->fix.push_back("run the program with AMD_SERIALIZE_KERNEL=3 and AMD_LOG_LEVEL=1 to name the failing kernel");
	e->fix.push_back("read the kernel log of the same moment: rdnactl explain decodes its amdgpu page-fault block "
			 "(sudo dmesg | rdnactl explain -)");
}

// Keeps the first of identical lines (two GPUs of one family get the same fix).
void dedupe(std::vector<std::string> *v)
{
	std::vector<std::string> out;
	for (auto &s : *v)
		if (std::find(out.begin(), out.end(), s) == out.end())
			out.push_back(std::move(s));
	*v = std::move(out);
}

} // namespace

} // namespace detail

std::size_t Report::errors() const
{
	std::size_t n = std::size_t(std::count_if(explanations.begin(), explanations.end(), [](const Explanation &e) {
		return e.match.entry && e.match.entry->severity == Severity::error;
	}));
	for (const auto &o : omitted)
		n += o.entry && o.entry->severity == Severity::error ? o.matches : 0;
	return n;
}

std::size_t Report::harmless() const
{
	std::size_t n = explanations.size();
	for (const auto &o : omitted)
		n += o.matches;
	return n - errors();
}

Report judge(const std::vector<Match> &matches, const machine::Snapshot &snap, const coverage::Report *coverage,
	     const knowledge::Base &base)
{
	using namespace detail;
	using knowledge::Judge;
	Report r;
	const Machine m = machine_facts(snap, coverage);
	for (const auto &mt : matches) {
		Explanation e;
		e.match = mt;
		if (!mt.entry)
			continue;
		const knowledge::Entry &entry = *mt.entry;
		e.facts = knowledge::decode(entry, base.tables, mt.captures);
		facts_into_match(e.facts, &e.match);
		// the judges of faults and code objects say what they decoded in their own words
		const bool own_words = entry.judge == Judge::code_object || entry.judge == Judge::no_binary ||
				       entry.judge == Judge::kfd_fault || entry.judge == Judge::vm_fault;
		for (const auto &f : e.facts)
			if (!own_words)
				e.decoded.push_back(fmt::format("{}: {}", f.name, f.text));
		for (const auto &c : entry.causes) {
			const std::string text = knowledge::substitute(c.text, e.facts);
			if (c.when == knowledge::Condition::always)
				e.causes.push_back(text);
			else if (c.when == knowledge::Condition::gfx10 && holds(m, c.when))
				e.here.push_back(
					text + "; " +
					gfx10_evidence(m, e.match.fault.has_value())); // one line: fact and evidence
			else if (holds(m, c.when))
				e.here.push_back(text);
		}
		switch (entry.judge) {
		case Judge::code_object:
		case Judge::no_binary:
			judge_code_object(m, &e);
			break;
		case Judge::override_verdicts:
			judge_arch(m, &e);
			break;
		case Judge::kfd_fault:
			judge_runtime_fault(m, &e);
			break;
		case Judge::vm_fault:
			// a block the fault parser read; a line of a vm-fault entry the parser did not take
			// (a damaged status line) is judged as a kernel event
			if (e.match.fault)
				judge_vm_fault(m, &e);
			else
				judge_kernel_event(m, &e);
			break;
		case Judge::kernel_event:
			judge_kernel_event(m, &e);
			break;
		case Judge::oom:
			judge_oom(m, &e);
			break;
		case Judge::access:
			judge_access(m, &e);
			break;
		case Judge::none:
			break;
		}
		for (const auto &rm : entry.remedies)
			if (holds(m, rm.when))
				e.remedies.push_back(rm.change);
		dedupe(&e.here);
		dedupe(&e.fix);
		if (e.remedies.empty())
			e.remedies.push_back(core::NoChange{});
		r.explanations.push_back(std::move(e));
	}
	return r;
}

} // namespace rdnafix::explain
