// `rdnactl env --json` (schema_version 1, docs/schema/env.json): the changes
// `rdnactl env` prints, each with its sh and fish line, and every set
// variable judged as in status's `environment.judged`.
#include "render.hpp"

#include "rdnafix_version.hpp"

namespace rdnafix::status {

using nlohmann::ordered_json;

namespace {

ordered_json line_or_null(const Export &e, Shell shell)
{
	std::string l = export_line(e, shell);
	return l.empty() ? ordered_json(nullptr) : ordered_json(std::move(l));
}

} // namespace

ordered_json env_json(const Snapshot &s, const Assessment &a, const std::vector<Export> &exports)
{
	ordered_json j;
	j["schema_version"] = 1;
	j["rdnactl_version"] = RDNAFIX_VERSION;
	j["root"] = s.root;
	j["exit_code"] = 0;
	j["source"] = s.environment.source;
	const auto &env = s.environment;
	j["sudo"] = env.sudo_user.empty() ? ordered_json(nullptr)
					  : ordered_json{{"user", env.sudo_user},
							 {"environ_read", env.sudo_environ_read},
							 {"dropped", env.sudo_dropped}};
	ordered_json changes = ordered_json::array();
	for (const auto &e : exports) {
		ordered_json sh = line_or_null(e, Shell::sh);
		changes.push_back({{"name", e.name},
				   {"action", e.unset ? "unset" : "set"},
				   {"value", e.unset ? ordered_json(nullptr) : ordered_json(e.value)},
				   {"why", e.comment},
				   {"check", e.check_id},
				   {"emitted", !sh.is_null()},
				   {"sh", sh},
				   {"fish", line_or_null(e, Shell::fish)}});
	}
	j["changes"] = changes;
	j["judged"] = judged_json(a);
	return j;
}

} // namespace rdnafix::status
