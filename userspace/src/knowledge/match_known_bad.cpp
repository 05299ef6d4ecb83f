// Known-bad versions: conditions parsed and checked against facts (pure).
#include "knowledge/known_bad.hpp"

#include "core/hwfacts.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace rdnafix::knowledge {

namespace {

using Op = VersionCondition::Op;

std::string_view trim(std::string_view s)
{
	while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
		s.remove_prefix(1);
	while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
		s.remove_suffix(1);
	return s;
}

// -1/0/1 by version, or plain text equality (0 / 2 for different) when the
// values are not versions.
std::optional<int> order(std::string_view a, std::string_view b)
{
	if (auto c = core::compare_versions(a, b))
		return c;
	return std::nullopt;
}

bool test(Op op, int c)
{
	switch (op) {
	case Op::lt:
		return c < 0;
	case Op::le:
		return c <= 0;
	case Op::gt:
		return c > 0;
	case Op::ge:
		return c >= 0;
	case Op::eq:
		return c == 0;
	case Op::ne:
		return c != 0;
	}
	return false;
}

} // namespace

std::string_view word(VersionKind k)
{
	switch (k) {
	case VersionKind::firmware:
		return "firmware";
	case VersionKind::kernel:
		return "kernel";
	case VersionKind::drm:
		return "drm";
	case VersionKind::rocm:
		return "rocm";
	case VersionKind::pytorch:
		return "pytorch";
	}
	return "";
}

bool parse_condition(std::string_view text, VersionCondition *out, std::string *error)
{
	static constexpr std::array<std::pair<std::string_view, Op>, 6> ops{
		{{"<=", Op::le}, {">=", Op::ge}, {"!=", Op::ne}, {"<", Op::lt}, {">", Op::gt}, {"=", Op::eq}}};
	for (const auto &[sym, op] : ops) {
		const auto at = text.find(sym);
		if (at == std::string_view::npos)
			continue;
		const auto fact = trim(text.substr(0, at)), value = trim(text.substr(at + sym.size()));
		const bool fact_ok = !fact.empty() && std::all_of(fact.begin(), fact.end(), [](char c) {
			return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_';
		});
		if (!fact_ok || value.empty() || value.find_first_of(" \t<>=!") != std::string_view::npos) {
			*error = "condition `" + std::string(text) +
				 "` is not of the form `fact op value` (fact: a-z 0-9 . _; op: < <= > >= = !=)";
			return false;
		}
		*out = {std::string(fact), op, std::string(value), std::string(text)};
		return true;
	}
	*error = "condition `" + std::string(text) + "` has no operator (< <= > >= = !=)";
	return false;
}

bool holds(const VersionCondition &c, const Facts &facts)
{
	if (const auto it = facts.find(c.fact); it != facts.end()) {
		if (const auto o = order(it->second, c.value))
			return test(c.op, *o);
		if (c.op == Op::eq)
			return it->second == c.value;
		if (c.op == Op::ne)
			return it->second != c.value;
		return false;
	}
	// only bounds are known
	const bool below = c.op == Op::lt || c.op == Op::le;
	const bool above = c.op == Op::gt || c.op == Op::ge;
	if (below)
		if (const auto it = facts.find(c.fact + ".max"); it != facts.end())
			if (const auto o = order(it->second, c.value))
				return test(c.op, *o);
	if (above)
		if (const auto it = facts.find(c.fact + ".min"); it != facts.end())
			if (const auto o = order(it->second, c.value))
				return test(c.op, *o);
	return false;
}

std::vector<const KnownBad *> match_known_bad(const std::vector<KnownBad> &table, const Facts &facts,
					      std::string_view gfx)
{
	std::vector<const KnownBad *> out;
	for (const auto &e : table) {
		if (!e.gfx.empty() && std::find(e.gfx.begin(), e.gfx.end(), gfx) == e.gfx.end())
			continue;
		if (std::all_of(e.when.begin(), e.when.end(), [&](const auto &c) { return holds(c, facts); }))
			out.push_back(&e);
	}
	return out;
}

} // namespace rdnafix::knowledge
