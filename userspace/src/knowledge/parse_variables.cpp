// [[variable]] rows -> core::VarEntry (docs/knowledge.md, "Variables").  Pure.
#include "knowledge/parse_variables.hpp"

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>

namespace rdnafix::knowledge {

namespace {

constexpr std::array<std::string_view, 12> kFamilies{"hsa",     "hip",       "rocm",    "miopen",
						     "rocblas", "hipblaslt", "pytorch", "triton",
						     "ollama",  "llama.cpp", "cuda",    "tensorflow"};

std::string joined(const auto &words)
{
	std::string s;
	for (const auto &w : words)
		s += (s.empty() ? "" : ", ") + std::string(w);
	return s;
}

// An environment name: [A-Za-z_][A-Za-z0-9_]*; a row may end it in "<N>"
// (a decimal node id) or "*" (any suffix).
bool env_name(std::string_view n)
{
	if (n.empty() || (n[0] >= '0' && n[0] <= '9'))
		return false;
	return std::all_of(n.begin(), n.end(), [](char c) {
		return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
	});
}

bool row_name(std::string_view n)
{
	if (n.ends_with("<N>"))
		n.remove_suffix(3);
	else if (n.ends_with("*"))
		n.remove_suffix(1);
	return env_name(n);
}

class Row {
public:
	Row(const std::string &file, std::size_t line, std::vector<Problem> *out) : file_(file), line_(line), out_(out)
	{
	}
	void bad(const toml::node *n, const std::string &what)
	{
		out_->push_back({file_, n ? n->source().begin.line : line_, ctx_ + ": " + what});
		++count_;
	}
	void name(const std::string &n) { ctx_ = n.empty() ? "variable" : n; }
	std::size_t count() const { return count_; }
	std::string str(const toml::table &t, std::string_view key, bool required)
	{
		const toml::node *n = t.get(key);
		if (!n) {
			if (required)
				bad(nullptr, fmt::format("`{}` is missing", key));
			return "";
		}
		const auto v = n->value<std::string>();
		if (!v) {
			bad(n, fmt::format("`{}` must be a string", key));
			return "";
		}
		if (required && v->find_first_not_of(" \t\n") == std::string::npos)
			bad(n, fmt::format("`{}` is empty", key));
		return *v;
	}
	std::vector<std::string> strings(const toml::table &t, std::string_view key, bool required)
	{
		std::vector<std::string> out;
		const toml::node *n = t.get(key);
		if (!n) {
			if (required)
				bad(nullptr, fmt::format("`{}` is missing", key));
			return out;
		}
		const auto *a = n->as_array();
		if (!a) {
			bad(n, fmt::format("`{}` must be an array of strings", key));
			return out;
		}
		for (const auto &el : *a) {
			if (const auto v = el.value<std::string>(); v && !v->empty())
				out.push_back(*v);
			else
				bad(&el, fmt::format("`{}` must hold non-empty strings only", key));
		}
		if (required && out.empty())
			bad(n, fmt::format("`{}` is empty", key));
		return out;
	}

private:
	std::string file_;
	std::size_t line_;
	std::vector<Problem> *out_;
	std::string ctx_ = "variable";
	std::size_t count_ = 0;
};

void repairs(Row &r, const toml::table &t, core::VarEntry *e)
{
	const toml::node *n = t.get("repair");
	if (!n)
		return;
	const auto *a = n->as_array();
	if (!a) {
		r.bad(n, "`repair` must be an array of tables ([[variable.repair]])");
		return;
	}
	for (const auto &el : *a) {
		const auto *rt = el.as_table();
		if (!rt) {
			r.bad(&el, "each [[variable.repair]] must be a table");
			continue;
		}
		for (const auto &[k, v] : *rt)
			if (k.str() != "kind" && k.str() != "name" && k.str() != "value" && k.str() != "note")
				r.bad(&v, fmt::format("repair: unknown field `{}` (kind, name, value, note)", k.str()));
		const std::string kind = r.str(*rt, "kind", true), name = r.str(*rt, "name", true),
				  note = r.str(*rt, "note", false);
		if (!name.empty() && !env_name(name))
			r.bad(rt->get("name"), fmt::format("repair: `{}` is not an environment variable name", name));
		if (kind == "set_env")
			e->repair.push_back(core::SetEnv{name, r.str(*rt, "value", true), note});
		else if (kind == "unset_env") {
			if (rt->get("value"))
				r.bad(rt->get("value"), "repair: unset_env takes no `value`");
			e->repair.push_back(core::UnsetEnv{name, note});
		} else if (!kind.empty())
			r.bad(rt->get("kind"), fmt::format("repair: kind `{}` is not one of set_env, unset_env", kind));
	}
}

std::optional<core::VarEntry> row(const std::string &file, const toml::table &t, std::size_t line,
				  std::vector<Problem> *problems)
{
	Row r(file, line, problems);
	core::VarEntry e;
	e.name = r.str(t, "name", true);
	r.name(e.name);
	e.origin = fmt::format("{}:{}", file, line);
	if (!e.name.empty() && !row_name(e.name))
		r.bad(t.get("name"), "the name must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*), "
				     "optionally ending in <N> (a node id) or * (any suffix)");
	static const std::set<std::string_view> known{"name",    "family",    "status",  "does",   "values", "versions",
						      "accepts", "slow_from", "instead", "repair", "sources"};
	for (const auto &[k, v] : t)
		if (!known.count(k.str()))
			r.bad(&v,
			      fmt::format("unknown field `{}` (the Variables section of docs/knowledge.md lists them)",
					  k.str()));
	e.family = r.str(t, "family", true);
	if (!e.family.empty() && std::find(kFamilies.begin(), kFamilies.end(), e.family) == kFamilies.end())
		r.bad(t.get("family"), fmt::format("family `{}` is not one of {}", e.family, joined(kFamilies)));
	bool status_known = false;
	if (const std::string s = r.str(t, "status", true); !s.empty()) {
		if (const auto st = core::var_status_from_word(s)) {
			e.status = *st;
			status_known = true;
		}
		if (!status_known) {
			std::vector<std::string_view> words;
			for (auto x : core::var_statuses())
				words.push_back(core::var_status_word(x));
			r.bad(t.get("status"), fmt::format("status `{}` is not one of {}", s, joined(words)));
		}
	}
	e.does = r.str(t, "does", true);
	e.values = r.str(t, "values", true);
	e.versions = r.str(t, "versions", true);
	e.instead = r.str(t, "instead", false);
	e.accepts = r.strings(t, "accepts", false);
	e.sources = r.strings(t, "sources", true);
	for (const auto &s : e.sources)
		for (std::string_view local : {"tests/", "userspace/", "docs/", "kmod/", "debian/", "../"})
			if (s.starts_with(local))
				r.bad(t.get("sources"),
				      fmt::format("source `{}` is a file of this repository; cite upstream", s));
	if (const toml::node *n = t.get("slow_from")) {
		const auto v = n->value<int64_t>();
		if (!v || *v < 0)
			r.bad(n, "`slow_from` must be a non-negative integer");
		else if (status_known && e.status != core::VarStatus::debug_slow)
			r.bad(n, "`slow_from` belongs to status debug-slow only");
		else
			e.slow_from = *v;
	}
	repairs(r, t, &e);
	if (r.count())
		return std::nullopt;
	return e;
}

} // namespace

void parse_variables(const std::string &file, const toml::table &root, core::VarTable *table,
		     std::vector<Problem> *problems)
{
	const toml::node *vars = root.get("variable");
	if (!vars)
		return;
	const auto *arr = vars->as_array();
	if (!arr) {
		problems->push_back(
			{file, vars->source().begin.line, "`variable` must be an array of tables ([[variable]])"});
		return;
	}
	std::set<std::string> here;
	for (const auto &el : *arr) {
		const std::size_t line = el.source().begin.line;
		const auto *t = el.as_table();
		if (!t) {
			problems->push_back({file, line, "each [[variable]] must be a table"});
			continue;
		}
		auto e = row(file, *t, line, problems);
		if (!e)
			continue;
		if (!here.insert(e->name).second) {
			problems->push_back({file, line, fmt::format("{} is defined twice in this file", e->name)});
			continue;
		}
		auto it = std::find_if(table->begin(), table->end(),
				       [&](const core::VarEntry &x) { return x.name == e->name; });
		if (it != table->end())
			*it = std::move(*e);
		else
			table->push_back(std::move(*e));
	}
}

} // namespace rdnafix::knowledge
