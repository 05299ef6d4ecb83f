// [[known_bad]] entries (docs/knowledge.md, "Known-bad versions") -> KnownBad,
// every problem with file:line; a broken entry is left out.  Pure.
#include "knowledge/parse_known_bad.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace rdnafix::knowledge {

namespace {

bool is_slug(std::string_view s)
{
	return s.size() >= 3 && s.size() <= 48 && std::all_of(s.begin(), s.end(), [](char c) {
		       return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
	       });
}

} // namespace

void parse_known_bad(const std::string &file, const toml::node &tables, Base *base, std::vector<Problem> *problems)
{
	const auto *arr = tables.as_array();
	if (!arr) {
		problems->push_back(
			{file, tables.source().begin.line, "`known_bad` must be an array of tables ([[known_bad]])"});
		return;
	}
	std::set<std::string> here;
	for (const auto &el : *arr) {
		const std::size_t line = el.source().begin.line;
		const auto *t = el.as_table();
		if (!t) {
			problems->push_back({file, line, "each [[known_bad]] must be a table"});
			continue;
		}
		std::size_t bad = 0;
		const auto complain = [&](const toml::node *n, const std::string &what) {
			problems->push_back({file, n ? n->source().begin.line : line, what});
			++bad;
		};
		KnownBad e;
		e.file = file;
		e.line = line;
		const auto str = [&](std::string_view key, bool required) -> std::string {
			const toml::node *n = t->get(key);
			if (!n) {
				if (required)
					complain(nullptr, fmt::format("{}: `{}` is missing",
								      e.id.empty() ? "known_bad" : e.id, key));
				return "";
			}
			if (auto v = n->value<std::string>()) {
				if (required && v->find_first_not_of(" \t\n") == std::string::npos)
					complain(n, fmt::format("{}: `{}` is empty", e.id.empty() ? "known_bad" : e.id,
								key));
				return *v;
			}
			complain(n, fmt::format("{}: `{}` must be a string", e.id.empty() ? "known_bad" : e.id, key));
			return "";
		};
		const auto strings = [&](std::string_view key, bool required) {
			std::vector<std::string> out;
			const toml::node *n = t->get(key);
			if (!n) {
				if (required)
					complain(nullptr, fmt::format("{}: `{}` is missing", e.id, key));
				return out;
			}
			const auto *a = n->as_array();
			if (!a) {
				complain(n, fmt::format("{}: `{}` must be an array of strings", e.id, key));
				return out;
			}
			for (const auto &x : *a) {
				if (auto v = x.value<std::string>())
					out.push_back(*v);
				else
					complain(&x, fmt::format("{}: `{}` must hold strings only", e.id, key));
			}
			if (required && out.empty())
				complain(n, fmt::format("{}: `{}` is empty", e.id, key));
			return out;
		};
		e.id = str("id", true);
		if (!e.id.empty() && !is_slug(e.id))
			complain(t->get("id"), fmt::format("id `{}` must be 3..48 characters of a-z, 0-9 and -", e.id));
		static const std::set<std::string> known{"id",   "kind",    "severity",   "title",  "gfx",
							 "when", "symptom", "workaround", "sources"};
		for (const auto &[k, v] : *t)
			if (!known.count(std::string(k.str())))
				complain(&v,
					 fmt::format("{}: unknown field `{}` (id, kind, severity, title, gfx, when, "
						     "symptom, workaround, sources)",
						     e.id, k.str()));
		const std::string kind = str("kind", true);
		bool kind_ok = false;
		for (auto k : {VersionKind::firmware, VersionKind::kernel, VersionKind::drm, VersionKind::rocm,
			       VersionKind::pytorch})
			if (word(k) == kind) {
				e.kind = k;
				kind_ok = true;
			}
		if (!kind.empty() && !kind_ok)
			complain(t->get("kind"),
				 fmt::format("{}: kind `{}` is not one of firmware, kernel, drm, rocm, pytorch", e.id,
					     kind));
		const std::string sev = str("severity", true);
		if (sev == "error")
			e.error = true;
		else if (!sev.empty() && sev != "warning")
			complain(t->get("severity"),
				 fmt::format("{}: severity `{}` is not one of error, warning", e.id, sev));
		e.title = str("title", true);
		if (e.title.size() > 80)
			complain(t->get("title"),
				 fmt::format("{}: title is {} characters (at most 80)", e.id, e.title.size()));
		e.symptom = str("symptom", true);
		e.workaround = str("workaround", true);
		e.gfx = strings("gfx", false);
		for (const auto &g : e.gfx)
			if (!g.starts_with("gfx") || g.size() < 6 || g.size() > 8)
				complain(t->get("gfx"),
					 fmt::format("{}: gfx `{}` is not a gfx target name (gfx1151)", e.id, g));
		for (const auto &w : strings("when", true)) {
			VersionCondition c;
			std::string err;
			if (parse_condition(w, &c, &err))
				e.when.push_back(c);
			else
				complain(t->get("when"), fmt::format("{}: {}", e.id, err));
		}
		e.sources = strings("sources", true);
		for (const auto &s : e.sources)
			if (!s.starts_with("https://"))
				complain(t->get("sources"),
					 fmt::format(
						 "{}: source `{}` is not an https:// address of an upstream reference",
						 e.id, s));
		if (bad)
			continue;
		if (!here.insert(e.id).second) {
			problems->push_back({file, line, fmt::format("{} is defined twice in this file", e.id)});
			continue;
		}
		auto it = std::find_if(base->known_bad.begin(), base->known_bad.end(),
				       [&](const KnownBad &x) { return x.id == e.id; });
		if (it != base->known_bad.end())
			*it = std::move(e);
		else
			base->known_bad.push_back(std::move(e));
	}
}

} // namespace rdnafix::knowledge
