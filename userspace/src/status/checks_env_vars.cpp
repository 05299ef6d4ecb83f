// Checks driven by the variables table (docs/knowledge.md, "Variables";
// userspace/data/knowledge/variables.toml): variables that do nothing on ROCm
// (RDNA-ENV-014), made-up names with their repair (RDNA-ENV-019), deprecated
// ones (RDNA-ENV-020), values the reader ignores (RDNA-ENV-021) and relevant
// names the table lacks (RDNA-ENV-022).  The words come from the table; the
// checks choose the finding and the typed remedies.
#include "checks.hpp"

#include "core/env_vars.hpp"
#include "core/remedy.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

namespace {

// The row's repairs with "{value}" replaced by the value that is set.
std::vector<Remedy> repairs(const core::VarEntry &e, const std::string &value)
{
	std::vector<Remedy> out;
	for (const auto &r : e.repair) {
		if (const auto *s = std::get_if<SetEnv>(&r))
			out.push_back(SetEnv{s->name, core::with_value(s->value, value), s->note});
		else
			out.push_back(r);
	}
	return out;
}

// "unset A; export B=value" for a person, from the typed remedies.
std::string fix_of(const std::vector<Remedy> &rs)
{
	std::string out;
	for (const auto &r : rs) {
		std::string one;
		if (const auto *s = std::get_if<SetEnv>(&r))
			one = fmt::format("export {}={}", s->name, core::shell_word(s->value));
		else if (const auto *u = std::get_if<UnsetEnv>(&r))
			one = fmt::format("unset {}", u->name);
		if (!one.empty())
			out += (out.empty() ? "" : "; ") + one;
	}
	return out;
}

std::string first_source(const core::VarEntry &e)
{
	return e.sources.empty() ? std::string() : e.sources.front();
}

// "CUDA only", "another framework", "build time only", "no effect on ROCm".
std::string_view no_effect_kind(const core::VarEntry &e)
{
	if (e.status == core::VarStatus::build_time_only)
		return "build time only";
	if (e.family == "cuda")
		return "CUDA only";
	if (e.family == "tensorflow")
		return "another framework";
	return "no effect on ROCm";
}

void no_effect(Ctx &c, const VarJudgement &j)
{
	const core::VarEntry &e = *j.entry;
	const bool build = e.status == core::VarStatus::build_time_only;
	std::vector<Remedy> rs = repairs(e, j.value);
	std::string fix = !rs.empty() ? fix_of(rs)
			  : build     ? fmt::format("keep {} only where you build code", j.name)
				      : fmt::format("unset {}", j.name);
	if (!e.instead.empty())
		fix += fmt::format("; on ROCm: {}", e.instead);
	if (rs.empty())
		rs = build ? std::vector<Remedy>{NoChange{}}
			   : std::vector<Remedy>{
				     UnsetEnv{j.name, fmt::format("no effect on ROCm ({})", no_effect_kind(e))}};
	c.add("RDNA-ENV-014", j.name, fmt::format("{}={} has no effect here ({})", j.name, j.value, no_effect_kind(e)),
	      fmt::format("{} ({})", e.does, first_source(e)), fix, rs);
}

void made_up(Ctx &c, const VarJudgement &j)
{
	const core::VarEntry &e = *j.entry;
	std::vector<Remedy> rs;
	for (auto &r : repairs(e, j.value)) {
		// A variable the repair sets that is set already: an allocator
		// configuration gets the option appended, anything else is kept.
		if (auto *s = std::get_if<SetEnv>(&r); s && c.s.environment.vars.count(s->name)) {
			if (!s->name.ends_with("ALLOC_CONF"))
				continue;
			s->value = c.s.environment.vars.at(s->name) + "," + s->value;
		}
		rs.push_back(std::move(r));
	}
	if (rs.empty())
		rs.push_back(UnsetEnv{j.name, "no program reads it"});
	c.add("RDNA-ENV-019", j.name, fmt::format("{}={}: no program reads this variable", j.name, j.value),
	      fmt::format("{} ({})", e.does, first_source(e)), fix_of(rs), rs);
}

void deprecated(Ctx &c, const VarJudgement &j)
{
	const core::VarEntry &e = *j.entry;
	std::vector<Remedy> rs = repairs(e, j.value);
	std::string fix = rs.empty() ? std::string() : fix_of(rs);
	if (!e.instead.empty())
		fix += (fix.empty() ? "" : "; ") + fmt::format("instead: {}", e.instead);
	if (fix.empty())
		fix = fmt::format("unset {} unless an old release needs it", j.name);
	c.add("RDNA-ENV-020", j.name, fmt::format("{}={} is deprecated (read by: {})", j.name, j.value, e.versions),
	      fmt::format("{} ({})", e.does, first_source(e)), fix, rs.empty() ? std::vector<Remedy>{NoChange{}} : rs);
}

void ignored_value(Ctx &c, const VarJudgement &j)
{
	const core::VarEntry &e = *j.entry;
	std::vector<Remedy> rs = repairs(e, j.value);
	std::string accepted;
	for (const auto &a : e.accepts)
		accepted += (accepted.empty() ? "" : ", ") + (a == "<int>" ? std::string("a decimal integer") : a);
	c.add("RDNA-ENV-021", j.name,
	      fmt::format("{}={}: the value is not one its reader acts on (it acts on: {})", j.name, j.value, accepted),
	      fmt::format("{} Valid: {}. ({})", e.does, e.values, first_source(e)),
	      rs.empty() ? fmt::format("set {} to one of: {}; or unset it", j.name, accepted) : fix_of(rs),
	      rs.empty() ? std::vector<Remedy>{NoChange{}} : rs);
}

void unknown(Ctx &c, const VarJudgement &j)
{
	c.add("RDNA-ENV-022", j.name,
	      fmt::format("{}={} is not in rdnactl's variables table: its effect is not judged", j.name, j.value),
	      "the name looks like a ROCm, PyTorch or application variable (its prefix), but the table of the "
	      "variables guides copy does not have it; it is listed so that nothing set is hidden",
	      "check the name against the documentation of the program that should read it; a row in "
	      "/etc/rdnafix/knowledge.d/*.toml teaches rdnactl what it does");
}

} // namespace

void check_table_vars(Ctx &c)
{
	for (const auto &j : judge_variables(c.s.environment)) {
		switch (j.verdict) {
		case VarVerdict::no_effect:
		case VarVerdict::build_time_only:
			no_effect(c, j);
			break;
		case VarVerdict::not_real:
			made_up(c, j);
			break;
		case VarVerdict::deprecated:
			deprecated(c, j);
			break;
		case VarVerdict::value_ignored:
			ignored_value(c, j);
			break;
		case VarVerdict::unknown:
			unknown(c, j);
			break;
		default:
			break;
		}
	}
}

} // namespace detail

} // namespace rdnafix::status
