#pragma once
// JSON of the snapshot's records: one nlohmann to_json per record (found by
// ADL), facts only, each enum through its to_string() spelling.  These are
// the objects of `rdnactl status --json` (schema_version 1); status adds its
// verdicts to them (status/render_json.cpp), and any verb can store them.
#include "machine/settings.hpp"
#include "machine/snapshot.hpp"

#include <nlohmann/json.hpp>

namespace rdnafix::machine {

// The conventions of every record: an absent value is null, an empty string is null.
template <class T> nlohmann::ordered_json json_opt(const std::optional<T> &v)
{
	return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}
nlohmann::ordered_json json_str_or_null(std::string_view s);

void to_json(nlohmann::ordered_json &j, const Unreadable &u);
void to_json(nlohmann::ordered_json &j, const DeviceHw &h);
void to_json(nlohmann::ordered_json &j, const HwFacts &h);
void to_json(nlohmann::ordered_json &j, const Device &d);
void to_json(nlohmann::ordered_json &j, const Param &p);
void to_json(nlohmann::ordered_json &j, const Driver &d);
void to_json(nlohmann::ordered_json &j, const RdnafixDevice &d);
void to_json(nlohmann::ordered_json &j, const RdnafixHookCounts &c);
void to_json(nlohmann::ordered_json &j, const Rdnafix &r);
void to_json(nlohmann::ordered_json &j, const DevNode &n);
void to_json(nlohmann::ordered_json &j, const Access &a);
void to_json(nlohmann::ordered_json &j, const Container &c);
void to_json(nlohmann::ordered_json &j, const UserNamespace &n);
void to_json(nlohmann::ordered_json &j, const Wsl &w);
void to_json(nlohmann::ordered_json &j, const OverrideVar &o);
void to_json(nlohmann::ordered_json &j, const VisibleVar &v);
void to_json(nlohmann::ordered_json &j, const Environment &e);
// The boot configuration's records (the `configuration` object of status).
void to_json(nlohmann::ordered_json &j, const ModuleFile &m);
void to_json(nlohmann::ordered_json &j, const DkmsBuild &d);
void to_json(nlohmann::ordered_json &j, const DkmsLog &l);
void to_json(nlohmann::ordered_json &j, const InitramfsListing &l);
void to_json(nlohmann::ordered_json &j, const InstalledKernel &k);
void to_json(nlohmann::ordered_json &j, const CmdlineVar &v);
void to_json(nlohmann::ordered_json &j, const SettingSource &v);
void to_json(nlohmann::ordered_json &j, const Setting &x);

} // namespace rdnafix::machine
