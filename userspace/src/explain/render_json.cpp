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

ordered_json entry_json(const SignatureInfo &s)
{
	return {{"id", s.id},
		{"title", s.title},
		{"severity", s.severity == Severity::harmless ? "harmless" : "error"},
		{"signature", s.signature},
		{"meaning", s.meaning},
		{"cause", s.cause},
		{"fix", s.fix},
		{"source", s.source}};
}

} // namespace

std::string render_entry_json(const SignatureInfo &s)
{
	return dump(entry_json(s));
}

std::string render_json(const Report &r)
{
	ordered_json j;
	j["schema_version"] = 1;
	j["rdnactl_version"] = RDNAFIX_VERSION;
	j["input"] = r.input;
	j["lines"] = r.lines;
	j["bytes"] = r.bytes;
	j["problems"] = r.problems;
	j["context"] = r.context;
	j["summary"] = {{"errors", r.errors()}, {"harmless", r.harmless()}};
	ordered_json list = ordered_json::array();
	for (const auto &e : r.explanations) {
		const auto &s = info(e.match.sig);
		ordered_json x;
		x["id"] = s.id;
		x["title"] = s.title;
		x["severity"] = s.severity == Severity::harmless ? "harmless" : "error";
		x["first_line"] = e.match.first_line;
		x["last_line"] = e.match.last_line;
		x["count"] = e.match.count;
		x["excerpt"] = e.match.excerpt;
		x["meaning"] = s.meaning;
		x["decoded"] = e.decoded;
		x["on_this_machine"] = e.here;
		x["fix"] = e.fix.empty() ? std::vector<std::string>{std::string(s.fix)} : e.fix;
		ordered_json rem = ordered_json::array();
		for (const auto &rm : e.remedies)
			rem.push_back(remedy_json(rm));
		x["remedies"] = rem;
		x["source"] = s.source;
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
		omitted.push_back({{"id", info(o.sig).id},
				   {"matches", o.matches},
				   {"occurrences", o.occurrences},
				   {"shown", {{"first", kKeep}, {"last", kKeep}}}});
	j["omitted"] = omitted;
	return dump(std::move(j));
}

} // namespace rdnafix::explain
