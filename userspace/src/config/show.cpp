// `config show` (show.hpp): one row per managed key.
#include "config/show.hpp"

#include "config/conflicts.hpp"
#include "config/keys.hpp"
#include "config/owned_file.hpp"
#include "config/service_dropin.hpp"
#include "io/atomic_file.hpp"
#include "machine/collect.hpp"
#include "machine/settings.hpp"

#include "rdnafix_version.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

namespace rdnafix::config {

namespace {

std::string where(const machine::SettingSource &src)
{
	// Root-relative in the snapshot; shown as the absolute path status prints.
	const std::string file = src.file.empty() || src.file.front() == '/' ? src.file : "/" + src.file;
	return src.line ? fmt::format("{}:{}", file, src.line) : file;
}

// The live value of a key no file or command line sets (configured_settings()
// lists only what is set somewhere).
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
	// ttm.* and amdttm.*: the parameter files status reads (page_pool_size too).
	for (const auto &p : s.driver.params)
		if (p.module == module && p.name == name && p.live_value)
			return p.live_value;
	const auto &pages = module == "ttm" ? s.driver.ttm_pages_limit : s.driver.amdttm_pages_limit;
	if (name == "pages_limit" && pages)
		return std::to_string(*pages);
	return std::nullopt;
}

nlohmann::ordered_json opt(const std::optional<std::string> &v)
{
	return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

struct Row {
	std::string key;
	const machine::Setting *set = nullptr; // nullopt: set nowhere
	std::optional<std::string> live;
	std::string next_source; // where next_boot comes from
};

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
	const auto settings = machine::configured_settings(s);
	std::vector<Row> rows;
	std::vector<ModuleChange> owned_values;
	for (const auto &k : managed_keys()) {
		Row r;
		r.key = fmt::format("{}.{}", k.module, k.name);
		for (const auto &st : settings)
			if (st.module == k.module && st.name == k.name)
				r.set = &st;
		r.live = r.set ? r.set->live : live_value(s, std::string(k.module), std::string(k.name));
		if (r.set && r.set->next_boot)
			r.next_source = r.set->cmdline_next ? where(*r.set->cmdline_next)
					: r.set->modprobe   ? where(*r.set->modprobe)
							    : "";
		if (r.set && r.set->owned && r.set->modprobe)
			owned_values.push_back(
				ModuleChange{std::string(k.module), std::string(k.name), r.set->modprobe->value});
		rows.push_back(std::move(r));
	}
	// validate.user: the drop-in of rdnafix-validate.service (read only).
	io::WriteError de;
	const auto dropin_file = io::RootWriter(o.root).read(kValidateDropin, &de);
	const ValidateDropin dropin = parse_validate_dropin(dropin_file ? dropin_file->content : "");
	const auto conflicts = find_conflicts(s, owned_values, {}, {});
	const bool remains = std::any_of(conflicts.begin(), conflicts.end(), [](const auto &x) { return x.remains; });
	const bool present = std::any_of(s.boot.owned.begin(), s.boot.owned.end(),
					 [&](const auto &f) { return f.path == owned_path && f.exists; });
	if (o.json) {
		nlohmann::ordered_json j{{"schema_version", 1},      {"rdnactl_version", RDNAFIX_VERSION},
					 {"root", o.root},           {"exit_code", remains ? 1 : 0},
					 {"file", "/" + owned_path}, {"present", present}};
		j["settings"] = nlohmann::ordered_json::array();
		for (const auto &r : rows) {
			const auto *st = r.set;
			j["settings"].push_back(
				{{"key", r.key},
				 {"configured",
				  st && st->modprobe ? nlohmann::ordered_json(st->modprobe->value) : nullptr},
				 {"source",
				  st && st->modprobe ? nlohmann::ordered_json(where(*st->modprobe)) : nullptr},
				 {"owned", st && st->owned},
				 {"next_boot", st ? opt(st->next_boot) : nullptr},
				 {"next_boot_source",
				  r.next_source.empty() ? nullptr : nlohmann::ordered_json(r.next_source)},
				 {"cmdline_now",
				  st && st->cmdline_now ? nlohmann::ordered_json(st->cmdline_now->value) : nullptr},
				 {"live", opt(r.live)},
				 {"state", st ? nlohmann::ordered_json(machine::to_string(st->state)) : nullptr}});
		}
		j["service"] = {{"key", kValidateUserKey},
				{"file", fmt::format("/{}", kValidateDropin)},
				{"present", dropin_file.has_value()},
				{"user", opt(dropin.user)},
				{"groups", dropin.groups},
				{"error", de.message.empty() ? nullptr : nlohmann::ordered_json(de.message)}};
		j["conflicts"] = nlohmann::ordered_json::array();
		for (const auto &x : conflicts)
			j["conflicts"].push_back({{"key", x.key},
						  {"configured", opt(x.owned)},
						  {"next_boot", opt(x.next)},
						  {"source", x.source},
						  {"remains", x.remains},
						  {"why", x.why}});
		out << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
		return remains ? 1 : 0;
	}
	fmt::print(out, "Managed file: /{} ({})\n\n", owned_path, present ? "present" : "absent");
	fmt::print(out, "{:<24} {:<14} {:<34} {:<18} {:<12} {}\n", "KEY", "CONFIGURED", "WHERE", "NEXT BOOT", "LIVE",
		   "STATE");
	for (const auto &r : rows) {
		const auto *st = r.set;
		std::string next = st && st->next_boot ? *st->next_boot : "default";
		if (st && st->cmdline_next && st->next_boot)
			next += " (cmdline)";
		fmt::print(out, "{:<24} {:<14} {:<34} {:<18} {:<12} {}\n", r.key,
			   st && st->modprobe ? st->modprobe->value : "-",
			   st && st->modprobe ? where(*st->modprobe) : "-", next,
			   r.live ? (r.live->empty() ? "\"\"" : *r.live) : "-",
			   st ? machine::to_string(st->state) : "-");
	}
	bool blank = false;
	for (const auto &r : rows) {
		const auto *st = r.set;
		if (!st || !st->cmdline_now || (st->next_boot && *st->next_boot == st->cmdline_now->value))
			continue;
		fmt::print(out, "{}this boot: {}={} from proc/cmdline; the next boot uses {}\n", blank ? "" : "\n",
			   r.key, st->cmdline_now->value,
			   st->next_boot ? fmt::format("{} ({})", *st->next_boot, r.next_source)
					 : "the module's default");
		blank = true;
	}
	if (!de.message.empty())
		fmt::print(out, "\n{:<24} cannot read /{}: {}\n", kValidateUserKey, kValidateDropin, de.message);
	else if (dropin.user)
		fmt::print(out, "\n{:<24} {} (/{}): {} runs as {}\n", kValidateUserKey, *dropin.user, kValidateDropin,
			   kValidateUnit, *dropin.user);
	else
		fmt::print(out, "\n{:<24} - ({} does not start without it)\n", kValidateUserKey, kValidateUnit);
	if (!conflicts.empty())
		fmt::print(out, "\n");
	for (const auto &x : conflicts)
		fmt::print(out, "{}: {}: {}\n", x.remains ? "conflict" : "note", x.key, x.why);
	fmt::print(out, "\nChange with 'rdnactl config set KEY=VALUE', 'rdnactl config unset KEY'; "
			"'rdnactl config undo' reverts the last change.\n");
	return remains ? 1 : 0;
}

} // namespace rdnafix::config
