#pragma once
// Internal to the checks: the context each check_<area> adds findings to, and
// the small helpers they share.  One checks_<area>.cpp per area.
#include "model.hpp"

#include "machine/facts.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::status::detail {

// The ISA-safe override value for a native target name, "" if none.
std::string safe_override_for(std::string_view native);
// The catalogue severity of a check id.
Severity sev(std::string_view id);

struct Ctx {
	const Snapshot &s;
	const Assessment &a;
	std::vector<Finding> out;
	// The verdicts of a device / node of `s` (by its index in `s`).
	const rules::DeviceNoretry &noretry(const Device &d) const { return a.noretry[size_t(&d - s.devices.data())]; }
	const NodeAccess &access(const DevNode &n) const { return a.nodes[size_t(&n - s.access.nodes.data())]; }
	void add(std::string_view id, std::string subject, std::string finding, std::string why, std::string fix,
		 std::vector<Remedy> remedies = {NoChange{}}, std::optional<Severity> override_sev = std::nullopt)
	{
		out.push_back(Finding{std::string(id), override_sev ? *override_sev : sev(id), std::move(subject),
				      std::move(finding), std::move(why), std::move(fix), std::move(remedies)});
	}
};

std::vector<const Device *> amd_devices(const Snapshot &s);
// "0000:03:00.0 (gfx1031)"
std::string dev_label(const Device &d);
// Where a parameter is set, for messages.
std::string where(const Param &p);
// How to change a parameter to `want` where it is set (`p` may be absent:
// not set anywhere), as text and as data.
std::string fix_param(const Param &p, std::string_view want);
Remedy set_param(const Param *p, std::string_view module, std::string_view name, std::string_view want);
// The change that removes a parameter where it is set.
Remedy remove_param(const Param &p);
// One short line for a comment: the text up to its first ": " (when that is
// past the 20th character).
std::string first_clause(std::string s);

// The HSA_OVERRIDE_GFX_VERSION that `env` proposes when none is set: the
// ISA-safe value of the visible GPUs, when they agree (env_advice.cpp).
struct OverrideAdvice {
	std::string value;    // "10.3.0"
	std::string why;      // the one-line reason
	const Device *device; // the GPU whose RDNA-GPU-002 finding carries it
};
std::optional<OverrideAdvice> override_advice(const Snapshot &s);

void check_devices(Ctx &c);
void check_driver(Ctx &c);
void check_memory(Ctx &c);
void check_access(Ctx &c);
void check_overrides(Ctx &c);
void check_environment(Ctx &c);
void check_rdnafix(Ctx &c);
void check_unreadable(Ctx &c);

} // namespace rdnafix::status::detail
