// `rdnactl explain --json`: one document (schema_version 1).
#include "explain/model.hpp"

#include "core/text_safe.hpp"

#include "rdnafix_version.hpp"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <variant>

namespace rdnafix::explain {

using nlohmann::ordered_json;

namespace {

ordered_json remedy_json(const core::Remedy &r)
{
	ordered_json j{{"kind", std::string(core::to_string(core::kind_of(r)))}};
	std::visit(
		[&](const auto &x) {
			using T = std::decay_t<decltype(x)>;
			if constexpr (std::is_same_v<T, core::SetEnv>) {
				j["name"] = x.name;
				j["value"] = x.value;
				j["note"] = x.note;
			} else if constexpr (std::is_same_v<T, core::UnsetEnv>) {
				j["name"] = x.name;
				j["note"] = x.note;
			} else if constexpr (std::is_same_v<T, core::KernelParam>) {
				j["action"] = x.action == core::KernelParam::Action::add ? "add" : "remove";
				j["param"] = x.param;
				j["value"] = x.value;
			} else if constexpr (std::is_same_v<T, core::InstallPackage>) {
				j["package_kind"] = x.kind == core::InstallPackage::Kind::package ? "package" : "wheel";
				j["name"] = x.name;
			} else if constexpr (std::is_same_v<T, core::JoinGroup>) {
				j["group"] = x.group;
				j["user"] = x.user;
			}
		},
		r);
	return j;
}

// Log lines, file names and environment values may hold any bytes: every
// string of the document becomes valid UTF-8 (U+FFFD for the rest) before
// it is serialised.
void make_utf8_valid(ordered_json &j)
{
	if (j.is_string()) {
		j = core::utf8_valid(j.get_ref<const std::string &>());
	} else if (j.is_array()) {
		for (auto &e : j)
			make_utf8_valid(e);
	} else if (j.is_object()) {
		for (auto it = j.begin(); it != j.end(); ++it)
			make_utf8_valid(it.value());
	}
}

std::string dump(ordered_json j)
{
	make_utf8_valid(j);
	return j.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

// The lines of an entry's example (each checked against the entry when the knowledge is built).
std::size_t example_lines(std::string_view ex)
{
	std::size_t n = 0;
	while (!ex.empty()) {
		const auto nl = ex.find('\n');
		if (ex.substr(0, nl).find_first_not_of(" \t\r") != std::string_view::npos)
			++n;
		ex = nl == std::string_view::npos ? std::string_view() : ex.substr(nl + 1);
	}
	return n;
}

ordered_json entry_json(const knowledge::Entry &s)
{
	namespace kn = knowledge;
	ordered_json causes = ordered_json::array();
	for (const auto &c : s.causes)
		causes.push_back({{"when", kn::word(c.when)}, {"text", c.text}});
	ordered_json captures = ordered_json::object();
	for (const auto &c : s.captures)
		captures[c.name] = kn::word(c.decoder);
	ordered_json rem = ordered_json::array();
	for (const auto &rm : s.remedies) {
		auto x = remedy_json(rm.change);
		x["when"] = kn::word(rm.when);
		rem.push_back(std::move(x));
	}
	return {{"id", s.id},
		{"kind", kn::word(s.kind)},
		{"severity", kn::word(s.severity)},
		{"title", s.title},
		{"patterns", s.patterns},
		{"captures", captures},
		{"meaning", s.meaning},
		{"causes", causes},
		{"fix", s.fix},
		{"remedies", rem},
		{"judge", kn::word(s.judge)},
		{"sources", s.sources},
		{"example_lines", example_lines(s.example)},
		{"origin", fmt::format("{}:{}", s.origin.file, s.origin.line)}};
}

} // namespace

// One entry (`explain RDNA-LOG-NNN --json`): the identity keys, then the entry.
std::string render_entry_json(const knowledge::Entry &s)
{
	ordered_json j{{"schema_version", 1}, {"rdnactl_version", RDNAFIX_VERSION}};
	ordered_json body = entry_json(s);
	for (auto it = body.begin(); it != body.end(); ++it)
		j[it.key()] = std::move(it.value());
	return dump(std::move(j));
}

std::string render_catalogue_json(const std::vector<knowledge::Entry> &entries)
{
	ordered_json list = ordered_json::array();
	for (const auto &s : entries)
		list.push_back(entry_json(s));
	return dump({{"schema_version", 1},
		     {"rdnactl_version", RDNAFIX_VERSION},
		     {"count", entries.size()},
		     {"entries", std::move(list)}});
}

std::string render_json(const Report &r)
{
	ordered_json j;
	j["schema_version"] = 1;
	j["rdnactl_version"] = RDNAFIX_VERSION;
	j["exit_code"] = r.errors() > 0 ? 1 : 0; // run_explain's
	j["input"] = r.input;
	j["lines"] = r.lines;
	j["bytes"] = r.bytes;
	j["problems"] = r.problems;
	j["context"] = r.context;
	j["summary"] = {{"errors", r.errors()}, {"harmless", r.harmless()}};
	ordered_json list = ordered_json::array();
	for (const auto &e : r.explanations) {
		const auto &s = *e.match.entry;
		ordered_json x;
		x["id"] = s.id;
		x["kind"] = knowledge::word(s.kind);
		x["title"] = knowledge::substitute(s.title, e.facts);
		x["severity"] = knowledge::word(s.severity);
		x["first_line"] = e.match.first_line;
		x["last_line"] = e.match.last_line;
		x["count"] = e.match.count;
		x["excerpt"] = e.match.excerpt;
		x["meaning"] = knowledge::substitute(s.meaning, e.facts);
		ordered_json facts = ordered_json::object();
		for (const auto &f : e.facts)
			facts[f.name] = {{"value", f.value}, {"text", f.text}};
		x["facts"] = facts;
		x["decoded"] = e.decoded;
		x["causes"] = e.causes;
		x["on_this_machine"] = e.here;
		std::vector<std::string> fix{knowledge::substitute(s.fix, e.facts)}; // the entry's, then this machine's
		fix.insert(fix.end(), e.fix.begin(), e.fix.end());
		x["fix"] = fix;
		ordered_json rem = ordered_json::array();
		for (const auto &rm : e.remedies)
			rem.push_back(remedy_json(rm));
		x["remedies"] = rem;
		x["sources"] = s.sources;
		if (e.fault_status || (e.match.fault && e.match.fault->status)) {
			const auto &f = e.fault_status ? *e.fault_status : *e.match.fault->status;
			x["fault_status"] = {{"register", f.reg},
					     {"raw", fmt::format("0x{:08X}", f.raw)},
					     {"cid", f.cid},
					     {"client", f.client},
					     {"rw", f.write ? "write" : "read"},
					     {"vmid", f.vmid},
					     {"permission_faults", f.permission_faults},
					     {"mapping_error", f.mapping_error},
					     {"walker_error", f.walker_error},
					     {"more_faults", f.more_faults}};
		}
		if (e.match.nobinary)
			x["no_binary"] = {{"devices", e.match.nobinary->devices},
					  {"bundled", e.match.nobinary->bundled},
					  {"missing", e.match.nobinary->missing}};
		list.push_back(std::move(x));
	}
	j["explanations"] = list;
	ordered_json omitted = ordered_json::array();
	for (const auto &o : r.omitted)
		omitted.push_back({{"id", o.entry ? o.entry->id : std::string()},
				   {"matches", o.matches},
				   {"occurrences", o.occurrences},
				   {"shown", {{"first", kKeep}, {"last", kKeep}}}});
	j["omitted"] = omitted;
	ordered_json unknown = ordered_json::array();
	for (const auto &[n, l] : r.unrecognised)
		unknown.push_back({{"line", n}, {"text", l}});
	j["unrecognised"] = {{"lines", unknown}, {"count", r.unrecognised_count}};
	return dump(std::move(j));
}

} // namespace rdnafix::explain
