// Each set variable judged with the variables table of the knowledge base
// (docs/knowledge.md, "Variables").  Pure.
#include "checks.hpp"
#include "model.hpp"

#include "core/parse.hpp"

namespace rdnafix::status {

namespace {

VarVerdict verdict_of(const core::VarEntry &e, std::string_view value)
{
	switch (e.status) {
	case core::VarStatus::effective:
		return core::value_accepted(e, value) ? VarVerdict::in_effect : VarVerdict::value_ignored;
	case core::VarStatus::debug_slow:
		if (!core::value_accepted(e, value))
			return VarVerdict::value_ignored;
		return core::is_slow(e, value) ? VarVerdict::slow : VarVerdict::in_effect;
	case core::VarStatus::no_effect_on_rocm:
		return VarVerdict::no_effect;
	case core::VarStatus::build_time_only:
		return VarVerdict::build_time_only;
	case core::VarStatus::not_a_real_variable:
		return VarVerdict::not_real;
	case core::VarStatus::deprecated:
		return VarVerdict::deprecated;
	case core::VarStatus::unverified:
		return VarVerdict::unverified;
	}
	return VarVerdict::unknown;
}

} // namespace

std::vector<VarJudgement> judge_variables(const machine::Environment &env)
{
	static const core::VarTable empty;
	const core::VarTable &t = env.table ? *env.table : empty;
	std::vector<VarJudgement> out;
	for (const auto &[name, value] : env.vars) {
		VarJudgement j{name, value, core::find_var(t, name), VarVerdict::unknown, ""};
		if (core::invalid_override_node(name, t)) {
			j.entry = nullptr; // a node id no GPU has is not the <N> row
			j.verdict = VarVerdict::misspelt;
		} else if (j.entry) {
			j.verdict = verdict_of(*j.entry, value);
			// PyTorch stops at the first allocation on a configuration it rejects.
			if (j.verdict == VarVerdict::in_effect && name.ends_with("_ALLOC_CONF") &&
			    name.starts_with("PYTORCH_") && !detail::check_alloc_conf(value).problems.empty())
				j.verdict = VarVerdict::value_rejected;
		} else if (auto real = core::near_miss(name, t)) {
			j.verdict = VarVerdict::misspelt;
			j.near = *real;
		}
		out.push_back(std::move(j));
	}
	return out;
}

} // namespace rdnafix::status
