// `config show` (show.hpp): one row per managed key.
#include "config/show.hpp"

#include "config/conflicts.hpp"
#include "config/keys.hpp"
#include "config/owned_file.hpp"
#include "machine/collect.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

namespace rdnafix::config {

namespace {

struct Row {
	std::string module, name;
	std::optional<ValueSource> configured; // modprobe.d, the winning value
	bool owned = false;                    // ... and it is in the owned file
	std::optional<ValueSource> next;       // the next boot's value (nullopt: the module's default)
	bool next_from_cmdline = false;
	std::optional<ValueSource> now; // this boot's command line
	std::optional<std::string> live;
};

std::optional<std::string> live_value(const machine::Snapshot &s, const std::string &module, const std::string &name)
{
	auto from = [&](const std::map<std::string, std::string> &m) -> std::optional<std::string> {
		auto it = m.find(name);
		return it == m.end() ? std::nullopt : std::optional(it->second);
	};
	if (module == "rdnafix")
		return from(s.rdnafix.params);
	if (module == "amdgpu")
		return from(s.driver.amdgpu_all_params);
	const auto &pages = module == "ttm" ? s.driver.ttm_pages_limit : s.driver.amdttm_pages_limit;
	if (name == "pages_limit" && pages)
		return std::to_string(*pages);
	return std::nullopt;
}

nlohmann::json opt(const std::optional<std::string> &v)
{
	return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

} // namespace

int show_config(const ShowOptions &o, std::ostream &out, std::ostream &err)
{
	machine::CollectOptions c;
	c.root = o.root;
	c.live = o.root == "/";
	c.all_amdgpu_params = true;
	const machine::Snapshot s = machine::collect(c);
	if (s.nothing_readable) {
		fmt::print(err, "rdnactl config: error: cannot read the system below {}: {}\n", o.root,
			   s.nothing_readable_reason);
		return 2;
	}
	const std::string owned_path(machine::kOwnedModprobe);
	std::vector<Row> rows;
	std::vector<ModuleChange> owned_values;
	for (const auto &k : managed_keys()) {
		Row r;
		r.module = k.module;
		r.name = k.name;
		r.configured = modprobe_value(s, r.module, r.name);
		r.owned = r.configured && r.configured->source.rfind(owned_path + ":", 0) == 0;
		r.next = cmdline_next_value(s, r.module, r.name);
		r.next_from_cmdline = r.next.has_value();
		if (!r.next)
			r.next = r.configured;
		r.live = live_value(s, r.module, r.name);
		r.now = cmdline_now_value(s, r.module, r.name);
		if (r.owned)
			owned_values.push_back(ModuleChange{r.module, r.name, r.configured->value});
		rows.push_back(std::move(r));
	}
	const auto conflicts = find_conflicts(s, owned_values, {}, {});
	const bool remains = std::any_of(conflicts.begin(), conflicts.end(), [](const auto &x) { return x.remains; });
	const bool present = std::any_of(s.boot.owned.begin(), s.boot.owned.end(),
					 [&](const auto &f) { return f.path == owned_path && f.exists; });
	if (o.json) {
		nlohmann::json j{{"schema_version", 1}, {"file", "/" + owned_path}, {"present", present}};
		j["settings"] = nlohmann::json::array();
		for (const auto &r : rows)
			j["settings"].push_back(
				{{"key", r.module + "." + r.name},
				 {"module", r.module},
				 {"name", r.name},
				 {"configured", r.configured ? nlohmann::json(r.configured->value) : nullptr},
				 {"source", r.configured ? nlohmann::json(r.configured->source) : nullptr},
				 {"owned", r.owned},
				 {"next_boot", r.next ? nlohmann::json(r.next->value) : nullptr},
				 {"next_boot_source", r.next ? nlohmann::json(r.next->source) : nullptr},
				 {"live", opt(r.live)},
				 {"cmdline_now", r.now ? nlohmann::json(r.now->value) : nullptr}});
		j["conflicts"] = nlohmann::json::array();
		for (const auto &x : conflicts)
			j["conflicts"].push_back({{"key", x.key},
						  {"configured", opt(x.owned)},
						  {"next_boot", opt(x.next)},
						  {"source", x.source},
						  {"remains", x.remains},
						  {"why", x.why}});
		j["cmdline"] = s.driver.cmdline;
		out << j.dump(2) << "\n";
		return remains ? 1 : 0;
	}
	fmt::print(out, "Managed file: /{} ({})\n\n", owned_path, present ? "present" : "absent");
	fmt::print(out, "{:<24} {:<14} {:<36} {:<14} {}\n", "KEY", "CONFIGURED", "WHERE", "NEXT BOOT", "LIVE");
	for (const auto &r : rows) {
		std::string next = r.next ? r.next->value : "default";
		if (r.next_from_cmdline)
			next += " (cmdline)";
		fmt::print(out, "{:<24} {:<14} {:<36} {:<14} {}\n", r.module + "." + r.name,
			   r.configured ? r.configured->value : "-", r.configured ? r.configured->source : "-", next,
			   r.live ? (r.live->empty() ? "\"\"" : *r.live) : "-");
	}
	bool blank = false;
	for (const auto &r : rows) {
		if (!r.now || (r.next && r.next->value == r.now->value))
			continue;
		fmt::print(out, "{}this boot: {}.{}={} from proc/cmdline; the next boot uses {}\n", blank ? "" : "\n",
			   r.module, r.name, r.now->value,
			   r.next ? fmt::format("{} ({})", r.next->value, r.next->source) : "the module's default");
		blank = true;
	}
	if (!conflicts.empty())
		fmt::print(out, "\n");
	for (const auto &x : conflicts)
		fmt::print(out, "{}: {}: {}\n", x.remains ? "conflict" : "note", x.key, x.why);
	fmt::print(out, "\nChange with 'rdnactl config set KEY=VALUE', 'rdnactl config unset KEY'; "
			"'rdnactl config undo' reverts the last change.\n");
	return remains ? 1 : 0;
}

} // namespace rdnafix::config
