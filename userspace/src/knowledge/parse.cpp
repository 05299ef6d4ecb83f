// Knowledge files (TOML, docs/knowledge.md) -> entries and tables, every
// problem with file:line.  TOML is read by toml++ (Debian's
// libtomlplusplus-dev); the fields are checked here.  Pure.
#include "knowledge/matcher.hpp"
#include "knowledge/model.hpp"
#include "knowledge/parse_known_bad.hpp"
#include "knowledge/parse_variables.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>
#include <toml++/toml.h>

namespace rdnafix::knowledge {

namespace {

template <typename E, std::size_t N> std::optional<E> from_word(const std::array<E, N> &all, std::string_view w)
{
	for (E e : all)
		if (word(e) == w)
			return e;
	return std::nullopt;
}

template <typename E, std::size_t N> std::string words_of(const std::array<E, N> &all)
{
	std::string s;
	for (E e : all)
		s += (s.empty() ? "" : ", ") + std::string(word(e));
	return s;
}

constexpr std::array kKinds{Kind::runtime, Kind::library, Kind::framework, Kind::application, Kind::kernel};
constexpr std::array kSeverities{Severity::error, Severity::warning, Severity::harmless};
constexpr std::array kDecoders{Decoder::text,       Decoder::integer,  Decoder::hex,       Decoder::bytes,
			       Decoder::gfx,        Decoder::gfx_list, Decoder::hip_error, Decoder::hsa_status,
			       Decoder::errno_name, Decoder::path,     Decoder::library};
constexpr std::array kConditions{Condition::always,
				 Condition::amd_gpu,
				 Condition::no_amd_gpu,
				 Condition::apu,
				 Condition::dgpu,
				 Condition::gfx101x,
				 Condition::gfx103x,
				 Condition::gfx10,
				 Condition::gfx11,
				 Condition::gfx115x,
				 Condition::gfx12,
				 Condition::override_set,
				 Condition::override_unsafe,
				 Condition::visible_devices_set,
				 Condition::kfd_missing,
				 Condition::kfd_denied,
				 Condition::noretry_0,
				 Condition::multi_gpu,
				 Condition::rdnafix_loaded,
				 Condition::rdnafix_mtype};
constexpr std::array kJudges{Judge::none,      Judge::code_object, Judge::no_binary,    Judge::override_verdicts,
			     Judge::kfd_fault, Judge::vm_fault,    Judge::kernel_event, Judge::oom,
			     Judge::access};

// The problems of one entry, then of one file.
class Reader {
public:
	Reader(std::string file, std::vector<Problem> *out) : file_(std::move(file)), out_(out) {}
	void bad(const toml::node *n, std::size_t fallback, const std::string &what)
	{
		out_->push_back({file_, n ? n->source().begin.line : fallback, what});
		++count_;
	}
	std::size_t count() const { return count_; }
	const std::string &file() const { return file_; }

	// A required (or optional) string field.
	std::optional<std::string> str(const toml::table &t, std::string_view key, std::size_t line, bool required,
				       const std::string &ctx)
	{
		const toml::node *n = t.get(key);
		if (!n) {
			if (required)
				bad(nullptr, line, fmt::format("{}: `{}` is missing", ctx, key));
			return std::nullopt;
		}
		if (auto v = n->value<std::string>()) {
			if (required && v->find_first_not_of(" \t\n") == std::string::npos)
				bad(n, line, fmt::format("{}: `{}` is empty", ctx, key));
			return v;
		}
		bad(n, line, fmt::format("{}: `{}` must be a string", ctx, key));
		return std::nullopt;
	}
	std::vector<std::string> strings(const toml::table &t, std::string_view key, std::size_t line, bool required,
					 const std::string &ctx)
	{
		std::vector<std::string> out;
		const toml::node *n = t.get(key);
		if (!n) {
			if (required)
				bad(nullptr, line, fmt::format("{}: `{}` is missing", ctx, key));
			return out;
		}
		const auto *a = n->as_array();
		if (!a) {
			bad(n, line, fmt::format("{}: `{}` must be an array of strings", ctx, key));
			return out;
		}
		for (const auto &el : *a) {
			if (auto v = el.value<std::string>())
				out.push_back(*v);
			else
				bad(&el, line, fmt::format("{}: `{}` must hold strings only", ctx, key));
		}
		if (required && out.empty())
			bad(n, line, fmt::format("{}: `{}` is empty", ctx, key));
		return out;
	}

private:
	std::string file_;
	std::vector<Problem> *out_;
	std::size_t count_ = 0;
};

// A field whose value is a word of a closed set (kind, severity, judge, when).
template <typename E, std::size_t N>
void closed(Reader &r, const toml::table &t, std::string_view key, std::size_t line, const std::string &ctx,
	    const std::array<E, N> &all, E *field, bool required)
{
	if (const auto w = r.str(t, key, line, required, ctx)) {
		if (auto v = from_word(all, *w))
			*field = *v;
		else
			r.bad(t.get(key), line,
			      fmt::format("{}: {} `{}` is not one of {}", ctx, key, *w, words_of(all)));
	}
}

bool is_id(std::string_view s)
{
	if (s.size() != 12 || !s.starts_with("RDNA-LOG-"))
		return false;
	return std::all_of(s.begin() + 9, s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "{name}" placeholders of a text.
std::vector<std::string> placeholders(std::string_view t)
{
	std::vector<std::string> out;
	for (std::size_t at = t.find('{'); at != std::string_view::npos; at = t.find('{', at + 1)) {
		const auto end = t.find('}', at);
		if (end == std::string_view::npos)
			break;
		const std::string_view name = t.substr(at + 1, end - at - 1);
		if (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
			    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
		    }))
			out.emplace_back(name);
	}
	return out;
}

std::optional<core::Remedy> remedy(Reader &r, const toml::table &t, std::size_t line, const std::string &ctx)
{
	const auto kind = r.str(t, "kind", line, true, ctx);
	if (!kind)
		return std::nullopt;
	const auto s = [&](std::string_view k, bool req = true) { return r.str(t, k, line, req, ctx).value_or(""); };
	if (*kind == "set_env")
		return core::SetEnv{s("name"), s("value"), s("note", false)};
	if (*kind == "unset_env")
		return core::UnsetEnv{s("name"), s("note", false)};
	if (*kind == "kernel_param") {
		const std::string action = s("action", false);
		if (!action.empty() && action != "add" && action != "remove") {
			r.bad(t.get("action"), line, ctx + ": `action` must be add or remove");
			return std::nullopt;
		}
		return core::KernelParam{action == "remove" ? core::KernelParam::Action::remove
							    : core::KernelParam::Action::add,
					 s("param"), s("value", false)};
	}
	if (*kind == "module_option")
		return core::ModuleOption{s("module"), s("name"), s("value"), s("file", false)};
	if (*kind == "join_group")
		return core::JoinGroup{t.get("group") ? s("group") : s("name"), ""};
	if (*kind == "install_package")
		return core::InstallPackage{core::InstallPackage::Kind::package, s("name")};
	r.bad(t.get("kind"), line,
	      fmt::format("{}: remedy kind `{}` is not one of set_env, unset_env, kernel_param, module_option, "
			  "join_group, install_package",
			  ctx, *kind));
	return std::nullopt;
}

// The named groups of a pattern (RE2's view), or an error.
std::vector<std::string> groups_of(const std::string &p, std::string *error)
{
	RE2::Options o;
	o.set_log_errors(false);
	const RE2 re(p, o);
	if (!re.ok()) {
		*error = re.error();
		return {};
	}
	std::vector<std::string> out;
	for (const auto &[name, _] : re.NamedCapturingGroups())
		out.push_back(name);
	return out;
}

std::optional<Entry> entry(Reader &r, const toml::table &t, std::size_t line)
{
	const std::size_t before = r.count();
	Entry e;
	e.origin = {r.file(), line};
	e.id = r.str(t, "id", line, true, "entry").value_or("");
	const std::string ctx = e.id.empty() ? std::string("entry") : e.id;
	if (!e.id.empty() && !is_id(e.id))
		r.bad(t.get("id"), line, fmt::format("id `{}` is not of the form RDNA-LOG-NNN", e.id));
	static const std::set<std::string> known{"id",           "kind",   "severity", "title",  "patterns", "follow",
						 "follow_lines", "group",  "not",      "decode", "meaning",  "fix",
						 "cause",        "remedy", "sources",  "judge",  "example"};
	for (const auto &[k, v] : t)
		if (!known.count(std::string(k.str())))
			r.bad(&v, line,
			      fmt::format("{}: unknown field `{}` (KNOWLEDGE FILES in rdnactl(1) lists the fields)",
					  ctx, k.str()));
	closed(r, t, "kind", line, ctx, kKinds, &e.kind, true);
	closed(r, t, "severity", line, ctx, kSeverities, &e.severity, true);
	closed(r, t, "judge", line, ctx, kJudges, &e.judge, false);
	e.title = r.str(t, "title", line, true, ctx).value_or("");
	if (e.title.size() > 80)
		r.bad(t.get("title"), line,
		      fmt::format("{}: title is {} characters (at most 80)", ctx, e.title.size()));
	e.meaning = r.str(t, "meaning", line, true, ctx).value_or("");
	e.fix = r.str(t, "fix", line, true, ctx).value_or("");
	e.example = r.str(t, "example", line, true, ctx).value_or("");
	e.patterns = r.strings(t, "patterns", line, true, ctx);
	e.follow = r.strings(t, "follow", line, false, ctx);
	e.exclude = r.strings(t, "not", line, false, ctx);
	e.sources = r.strings(t, "sources", line, true, ctx);
	for (const auto &s : e.sources)
		for (std::string_view local : {"tests/", "userspace/", "docs/", "kmod/", "debian/", "../"})
			if (s.starts_with(local))
				r.bad(t.get("sources"), line,
				      fmt::format("{}: source `{}` is a file of this repository; cite upstream", ctx,
						  s));
	if (const auto *n = t.get("follow_lines")) {
		const auto v = n->value<int64_t>();
		if (!v || *v < 1 || *v > 256)
			r.bad(n, line, ctx + ": `follow_lines` must be an integer 1..256");
		else
			e.follow_lines = unsigned(*v);
	}
	if (const auto *n = t.get("group")) {
		if (const auto v = n->value<bool>())
			e.group = *v;
		else
			r.bad(n, line, ctx + ": `group` must be true or false");
	}
	// patterns: RE2 accepts them, each needs a literal, the named groups need decoders
	std::set<std::string> names;
	const auto check_patterns = [&](const std::vector<std::string> &pats, std::string_view key) {
		for (const auto &p : pats) {
			std::string err;
			const auto g = groups_of(p, &err);
			if (!err.empty()) {
				r.bad(t.get(key), line, fmt::format("{}: RE2 refuses pattern `{}`: {}", ctx, p, err));
				continue;
			}
			names.insert(g.begin(), g.end());
			if (required_literals(p, &err).empty())
				r.bad(t.get(key), line,
				      fmt::format("{}: pattern `{}` has no literal of 4 or more characters that every "
						  "match contains (the prefilter needs one)",
						  ctx, p));
		}
	};
	check_patterns(e.patterns, "patterns");
	check_patterns(e.follow, "follow");
	for (const auto &p : e.exclude) {
		std::string err;
		if (groups_of(p, &err); !err.empty())
			r.bad(t.get("not"), line, fmt::format("{}: RE2 refuses pattern `{}`: {}", ctx, p, err));
	}
	if (const auto *n = t.get("decode")) {
		if (const auto *d = n->as_table()) {
			for (const auto &[k, v] : *d) {
				const std::string name(k.str());
				const auto w = v.value<std::string>();
				const auto dec = w ? from_word(kDecoders, *w) : std::nullopt;
				if (!dec) {
					r.bad(&v, line,
					      fmt::format("{}: decoder of `{}` must be one of {}", ctx, name,
							  words_of(kDecoders)));
					e.captures.push_back(
						{name, Decoder::text}); // one problem, not one per text using it
				} else if (!names.count(name))
					r.bad(&v, line,
					      fmt::format("{}: decode.{}: no pattern has a group (?P<{}>...)", ctx,
							  name, name));
				else
					e.captures.push_back({name, *dec});
			}
		} else {
			r.bad(n, line, ctx + ": `decode` must be a table (capture = \"decoder\")");
		}
	}
	for (const auto &n : names)
		if (!e.capture(n))
			r.bad(t.get("decode"), line,
			      fmt::format("{}: capture `{}` has no decoder (decode.{} = \"text\" | ...)", ctx, n, n));
	if (const auto *n = t.get("cause")) {
		if (const auto *a = n->as_array()) {
			for (const auto &el : *a) {
				const auto *ct = el.as_table();
				if (!ct) {
					r.bad(&el, line, ctx + ": each [[signature.cause]] must be a table");
					continue;
				}
				Cause c;
				closed(r, *ct, "when", line, ctx + " cause", kConditions, &c.when, true);
				c.text = r.str(*ct, "text", line, true, ctx + " cause").value_or("");
				e.causes.push_back(std::move(c));
			}
		} else {
			r.bad(n, line, ctx + ": `cause` must be an array of tables ([[signature.cause]])");
		}
	}
	if (std::none_of(e.causes.begin(), e.causes.end(), [](const Cause &c) { return c.when == Condition::always; }))
		r.bad(t.get("cause"), line, ctx + ": needs a [[signature.cause]] with when = \"always\"");
	if (const auto *n = t.get("remedy")) {
		if (const auto *a = n->as_array()) {
			for (const auto &el : *a) {
				if (const auto *rt = el.as_table()) {
					auto rem = remedy(r, *rt, el.source().begin.line, ctx + " remedy");
					Remedy x;
					closed(r, *rt, "when", line, ctx + " remedy", kConditions, &x.when, false);
					if (rem) {
						x.change = std::move(*rem);
						e.remedies.push_back(std::move(x));
					}
				} else {
					r.bad(&el, line, ctx + ": each [[signature.remedy]] must be a table");
				}
			}
		} else {
			r.bad(n, line, ctx + ": `remedy` must be an array of tables ([[signature.remedy]])");
		}
	}
	std::vector<const std::string *> texts{&e.title, &e.meaning, &e.fix};
	for (const auto &c : e.causes)
		texts.push_back(&c.text);
	for (const auto *s : texts)
		for (const auto &p : placeholders(*s))
			if (!e.capture(p))
				r.bad(nullptr, line, fmt::format("{}: text names {{{}}}, which is no capture", ctx, p));
	if (r.count() != before)
		return std::nullopt;
	return e;
}

void table(Reader &r, const toml::table &root, std::string_view key, std::map<long long, Code> *codes,
	   std::map<std::string, long long> *names)
{
	const toml::node *n = root.get(key);
	if (!n)
		return;
	const auto *a = n->as_array();
	if (!a) {
		r.bad(n, 0, fmt::format("`{}` must be an array of tables ([[{}]])", key, key));
		return;
	}
	for (const auto &el : *a) {
		const auto *t = el.as_table();
		const std::size_t line = el.source().begin.line;
		const toml::node *code_node = t ? t->get("code") : nullptr;
		const int64_t *v = code_node && code_node->as_integer() ? &code_node->as_integer()->get() : nullptr;
		const std::string name = t ? r.str(*t, "name", line, true, std::string(key)).value_or("") : "";
		if (!t || !v || name.empty()) {
			r.bad(&el, line, fmt::format("[[{}]] needs an integer `code` and a string `name`", key));
			continue;
		}
		const long long code = *v;
		(*codes)[code] = Code{name, r.str(*t, "text", line, false, std::string(key)).value_or("")};
		if (names) {
			(*names)[name] = code;
			for (const auto &al : r.strings(*t, "aliases", line, false, std::string(key)))
				(*names)[al] = code;
		}
	}
}

} // namespace

const Capture *Entry::capture(const std::string &name) const
{
	for (const auto &c : captures)
		if (c.name == name)
			return &c;
	return nullptr;
}

const Entry *Base::find(const std::string &id) const
{
	for (const auto &e : entries)
		if (e.id == id)
			return &e;
	return nullptr;
}

std::string to_text(const Problem &p)
{
	return p.line ? fmt::format("{}:{}: {}", p.file, p.line, p.what) : fmt::format("{}: {}", p.file, p.what);
}

void parse(const std::vector<SourceText> &files, Base *base, std::vector<Problem> *problems)
{
	for (const auto &f : files) {
		Reader r(f.name, problems);
		toml::table root;
		try {
			root = toml::parse(f.text, f.name);
		} catch (const toml::parse_error &err) {
			r.bad(nullptr, err.source().begin.line, std::string(err.description()));
			continue;
		}
		for (const auto &[k, v] : root)
			if (k.str() != "signature" && k.str() != "hip_error" && k.str() != "hsa_status" &&
			    k.str() != "errno" && k.str() != "known_bad" && k.str() != "variable")
				r.bad(&v, 0,
				      fmt::format("unknown top-level key `{}` (signature, hip_error, hsa_status, "
						  "errno, known_bad, variable)",
						  k.str()));
		table(r, root, "hip_error", &base->tables.hip_error, &base->tables.hip_names);
		table(r, root, "hsa_status", &base->tables.hsa_status, &base->tables.hsa_names);
		table(r, root, "errno", &base->tables.errno_codes, nullptr);
		if (const toml::node *kb = root.get("known_bad"))
			parse_known_bad(f.name, *kb, base, problems);
		parse_variables(f.name, root, &base->variables, problems);
		const toml::node *sigs = root.get("signature");
		if (!sigs)
			continue;
		const auto *arr = sigs->as_array();
		if (!arr) {
			r.bad(sigs, 0, "`signature` must be an array of tables ([[signature]])");
			continue;
		}
		std::set<std::string> here;
		for (const auto &el : *arr) {
			const auto *t = el.as_table();
			const std::size_t line = el.source().begin.line;
			if (!t) {
				r.bad(&el, line, "each [[signature]] must be a table");
				continue;
			}
			auto e = entry(r, *t, line);
			if (!e)
				continue;
			if (!here.insert(e->id).second) {
				r.bad(nullptr, line, fmt::format("{} is defined twice in this file", e->id));
				continue;
			}
			auto it = std::find_if(base->entries.begin(), base->entries.end(),
					       [&](const Entry &x) { return x.id == e->id; });
			if (it != base->entries.end())
				*it = std::move(*e);
			else
				base->entries.push_back(std::move(*e));
		}
	}
	std::sort(base->entries.begin(), base->entries.end(),
		  [](const Entry &a, const Entry &b) { return a.id < b.id; });
}

} // namespace rdnafix::knowledge
