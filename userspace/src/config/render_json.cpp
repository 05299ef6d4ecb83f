// The report of `config set|unset|undo --json`: one object.
//   {"schema_version":1, "rdnactl_version":"0.1.0", "action":"apply"|"undo", "root":"/", "dry_run":false,
//    "exit_code":0, "nothing_to_do":false, "rolled_back":false,
//    "transaction":"000003"|null,
//    "files":[{"path":"etc/modprobe.d/rdnafix.conf", "change":"write"|"delete",
//              "mode":"0644", "done":true, "diff":"--- a/...\n"}],
//    "commands":[{"argv":[...], "why":"...", "kind":"initramfs"|"bootloader",
//                 "state":"planned|ok|failed|skipped|rerun-ok|rerun-failed",
//                 "exit_code":0, "output":"..."}],
//    "conflicts":[{"key":"amdgpu.noretry", "configured":"1"|null, "next_boot":"0"|null,
//                  "source":"etc/default/grub:6 GRUB_CMDLINE_LINUX", "remains":true, "why":"..."}],
//    "errors":[...], "warnings":[...], "notes":[...], "refusal":null|"..."}
#include "config/diff.hpp"
#include "config/report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rdnafix_version.hpp"

namespace rdnafix::config {

namespace {

nlohmann::ordered_json opt(const std::optional<std::string> &v)
{
	return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

} // namespace

void render_json(const Report &r, std::ostream &out)
{
	nlohmann::ordered_json j;
	j["schema_version"] = 1;
	j["rdnactl_version"] = RDNAFIX_VERSION;
	j["action"] = r.action;
	j["root"] = r.root;
	j["dry_run"] = r.dry_run;
	j["exit_code"] = r.exit_code;
	j["nothing_to_do"] = r.nothing_to_do;
	j["rolled_back"] = r.rolled_back;
	j["transaction"] =
		r.journal_id.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.journal_id);
	j["files"] = nlohmann::ordered_json::array();
	for (const auto &f : r.files)
		j["files"].push_back({{"path", f.path},
				      {"change", f.after ? "write" : "delete"},
				      {"mode", fmt::format("{:04o}", f.mode)},
				      {"done", f.done},
				      {"diff", unified_diff(f.path, f.before, f.after)}});
	j["commands"] = nlohmann::ordered_json::array();
	for (const auto &c : r.commands)
		j["commands"].push_back({{"argv", c.command.argv},
					 {"why", c.command.why},
					 {"kind", to_string(c.command.kind)},
					 {"state", to_string(c.state)},
					 {"exit_code", c.exit_code},
					 {"output", c.output}});
	j["conflicts"] = nlohmann::ordered_json::array();
	for (const auto &c : r.conflicts)
		j["conflicts"].push_back({{"key", c.key},
					  {"configured", opt(c.owned)},
					  {"next_boot", opt(c.next)},
					  {"source", c.source},
					  {"remains", c.remains},
					  {"why", c.why}});
	j["errors"] = r.errors;
	j["warnings"] = r.warnings;
	j["notes"] = r.notes;
	j["refusal"] = opt(r.refusal);
	out << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

} // namespace rdnafix::config
