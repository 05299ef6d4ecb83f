// `rdnactl status --json`: the report as JSON (schema_version 1).  The facts
// come from machine's per-record to_json (machine/snapshot_json.hpp); this
// file adds the verdicts of the assessment to those objects, the findings
// and the summary.
#include "render.hpp"

#include "machine/snapshot_json.hpp"

#include "rdnafix_version.hpp"

namespace rdnafix::status {

using nlohmann::ordered_json;

namespace {

ordered_json str_or_null(const std::string &s)
{
	return s.empty() ? ordered_json(nullptr) : ordered_json(s);
}

// The verdict keys of a device, before "unreadable" (the last key of every
// record in schema v1).
ordered_json device_json(const Device &d, const rules::DeviceNoretry &nr)
{
	ordered_json o = d;
	ordered_json unreadable = std::move(o["unreadable"]);
	o.erase("unreadable");
	o["noretry_effective"] = nr.value ? ordered_json(*nr.value) : ordered_json(nullptr);
	o["noretry_rule"] = str_or_null(nr.explanation);
	o["unreadable"] = std::move(unreadable);
	return o;
}

ordered_json node_json(const DevNode &n, const NodeAccess &v)
{
	ordered_json o = n;
	o["can_open"] = v.unknown ? ordered_json(nullptr) : ordered_json(v.can_open); // null: unknown
	o["verdict"] = v.verdict;
	o["missing_group"] = str_or_null(v.missing_group);
	return o;
}

ordered_json override_json(const OverrideVar &o, const std::vector<OverrideJudgement> &verdicts)
{
	ordered_json x = o;
	ordered_json vs = ordered_json::array();
	for (const auto &v : verdicts)
		vs.push_back({{"pci_bdf", v.device},
			      {"native_gfx_target", str_or_null(v.native)},
			      {"verdict", std::string(rules::to_string(v.verdict))},
			      {"reason", v.reason}});
	x["verdicts"] = vs;
	return x;
}

} // namespace

ordered_json judged_json(const Assessment &a)
{
	ordered_json judged = ordered_json::array();
	for (const auto &v : a.variables) {
		ordered_json o{{"name", v.name},
			       {"value", v.value},
			       {"verdict", std::string(verdict_word(v.verdict))},
			       {"status", nullptr},
			       {"family", nullptr},
			       {"does", nullptr},
			       {"sources", ordered_json::array()},
			       {"meant", v.near.empty() ? ordered_json() : ordered_json(v.near)}};
		if (v.entry) {
			o["status"] = std::string(core::var_status_word(v.entry->status));
			o["family"] = v.entry->family;
			o["does"] = v.entry->does;
			o["sources"] = v.entry->sources;
		}
		judged.push_back(o);
	}
	return judged;
}

void to_json(ordered_json &j, const Finding &f)
{
	j = {{"id", f.id},           {"severity", std::string(severity_name(f.severity))},
	     {"subject", f.subject}, {"finding", f.finding},
	     {"why", f.why},         {"fix", f.fix}};
}

ordered_json to_json(const Snapshot &s, const Assessment &a, const std::vector<Finding> &findings,
		     const LastValidation &v)
{
	ordered_json j;
	j["schema_version"] = kSchemaVersion;
	j["rdnactl_version"] = RDNAFIX_VERSION;
	j["root"] = s.root;
	j["collector"] = str_or_null(std::string(to_string(s.collector))); // null when nothing could be read
	auto c = summarize(findings);
	j["exit_code"] = s.nothing_readable ? 2 : exit_code_for(findings);
	j["summary"] = {{"errors", c.errors}, {"warnings", c.warnings}, {"info", c.info}};
	if (s.nothing_readable)
		j["error"] = s.nothing_readable_reason;

	ordered_json devs = ordered_json::array();
	for (size_t i = 0; i < s.devices.size(); ++i)
		devs.push_back(device_json(s.devices[i], a.noretry.at(i)));
	j["devices"] = devs;
	j["driver"] = s.driver;
	j["hardware"] = s.hw;
	j["rdnafix"] = s.rdnafix;
	j["configuration"] = configuration_json(s, a);

	ordered_json access = s.access;
	ordered_json nodes = ordered_json::array();
	for (size_t i = 0; i < s.access.nodes.size(); ++i)
		nodes.push_back(node_json(s.access.nodes[i], a.nodes.at(i)));
	access["nodes"] = nodes;
	j["access"] = access;
	if (s.wsl.kind != machine::WslKind::none)
		j["wsl"] = s.wsl;

	ordered_json env = s.environment;
	ordered_json ov = ordered_json::array();
	for (size_t i = 0; i < s.environment.overrides.size(); ++i)
		ov.push_back(override_json(s.environment.overrides[i], a.overrides.at(i)));
	env["overrides"] = ov;
	env["judged"] = judged_json(a);
	j["environment"] = env;
	j["coverage"] = coverage_json(a);
	if (s.kernel_log.source != machine::KernelLogSource::none)
		j["kernel_log"] = kernel_log_json(s);
	j["validation"] = validation_json(v);

	j["findings"] = findings;
	return j;
}

} // namespace rdnafix::status
