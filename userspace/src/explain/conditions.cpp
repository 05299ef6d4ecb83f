// The conditions of the knowledge base (`when` of causes and remedies,
// docs/knowledge.md) over the machine the judge sees.  Pure.
#include "explain/judge_support.hpp"

#include "software/model.hpp"

#include "core/gpudb.hpp"

#include <algorithm>

namespace rdnafix::explain::detail {

// Whether a condition of the data holds on this machine.
bool holds(const Machine &m, knowledge::Condition c)
{
	using knowledge::Condition;
	const auto any = [&](auto pred) { return std::any_of(m.gpus.begin(), m.gpus.end(), pred); };
	const auto gen = [&](gpudb::Generation x) {
		return any([&](const Gpu &g) { return g.dev->generation && *g.dev->generation == x; });
	};
	const auto &s = *m.snap;
	switch (c) {
	case Condition::always:
		return true;
	case Condition::amd_gpu:
		return !m.gpus.empty();
	case Condition::no_amd_gpu:
		return m.gpus.empty();
	case Condition::apu:
		return any([](const Gpu &g) { return g.dev->apu.value_or(false); });
	case Condition::dgpu:
		return any([](const Gpu &g) { return !g.dev->apu.value_or(true); });
	case Condition::gfx101x:
		return any([](const Gpu &g) { return g.gfx.starts_with("gfx101"); });
	case Condition::gfx103x:
		return any([](const Gpu &g) { return g.gfx.starts_with("gfx103"); });
	case Condition::gfx10:
		return holds(m, Condition::gfx101x) || holds(m, Condition::gfx103x);
	case Condition::gfx11:
		return any([](const Gpu &g) { return g.gfx.starts_with("gfx11"); });
	case Condition::gfx115x:
		return any([](const Gpu &g) { return g.gfx.starts_with("gfx115"); });
	case Condition::gfx12:
		return any([](const Gpu &g) { return g.gfx.starts_with("gfx12"); }) || gen(gpudb::Generation::rdna4);
	case Condition::override_set:
		return any([](const Gpu &g) { return !g.overrides.empty(); });
	case Condition::override_unsafe:
		return any([](const Gpu &g) {
			return std::any_of(g.overrides.begin(), g.overrides.end(), [](const OverrideHere &o) {
				return o.verdict && o.verdict->verdict == rules::OverrideVerdict::unsafe;
			});
		});
	case Condition::visible_devices_set:
		return !s.environment.visible.empty();
	case Condition::kfd_missing:
		return std::any_of(s.access.nodes.begin(), s.access.nodes.end(),
				   [](const auto &n) { return n.path == "/dev/kfd" && !n.exists; });
	case Condition::kfd_denied:
		return std::any_of(s.access.nodes.begin(), s.access.nodes.end(), [](const auto &n) {
			return n.path == "/dev/kfd" && n.kernel_allows_rw && !*n.kernel_allows_rw;
		});
	case Condition::noretry_0:
		return any([](const Gpu &g) { return g.noretry && *g.noretry == 0; });
	case Condition::multi_gpu:
		return m.gpus.size() > 1;
	case Condition::rdnafix_loaded:
		return s.rdnafix.loaded;
	case Condition::rdnafix_mtype: {
		// The module's parameters (live) or what modprobe.d asks for it.
		for (const char *k : {"mtype_sysmem", "mtype_vram"}) {
			auto it = s.rdnafix.params.find(k);
			if (it != s.rdnafix.params.end() && !it->second.empty() && it->second != "keep")
				return true;
		}
		for (const auto &f : s.boot.modprobe)
			for (const auto &e : f.config.entries)
				if (e.module == "rdnafix" && e.kind == core::ModprobeKind::options)
					for (const auto &p : e.params)
						if ((p.name == "mtype_sysmem" || p.name == "mtype_vram") &&
						    p.value.value_or("keep") != "keep")
							return true;
		return false;
	}
	}
	return false;
}

std::string gfx10_evidence(const Machine &m, bool decoded)
{
	const auto gfx10 = [](const Gpu &g) { return g.gfx.starts_with("gfx101") || g.gfx.starts_with("gfx103"); };
	for (const Gpu &g : m.gpus)
		for (const OverrideHere &o : g.overrides)
			if (gfx10(g) && o.verdict && o.verdict->verdict == rules::OverrideVerdict::unsafe)
				return "here the evidence points at HSA_OVERRIDE_GFX_VERSION=" + o.value +
				       ", which runs code of another ISA on " + g.gfx;
	if (m.coverage)
		for (const auto &j : m.coverage->judgements)
			for (const auto &d : j.devices)
				for (const Gpu &g : m.gpus)
					if (gfx10(g) && d.gfx == g.gfx && d.verdict == coverage::Verdict::missing)
						return "here the evidence points at missing code objects: nothing "
						       "installed has code " +
						       g.gfx + " can run";
	return decoded ? "here the evidence points at a bug in the program, a library or the kernel: the decoded "
			 "fault names the address and the client"
		       : "here the evidence points at a bug in the program, a library or the kernel: the decoded "
			 "amdgpu fault of the same moment (journalctl -k) names the address and the client";
}

} // namespace rdnafix::explain::detail
