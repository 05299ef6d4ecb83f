// The conditions of the knowledge base (`when` of causes and remedies,
// docs/knowledge.md) over the machine the judge sees.  Pure.
#include "explain/judge_support.hpp"

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
	}
	return false;
}

} // namespace rdnafix::explain::detail
