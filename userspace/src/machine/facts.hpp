#pragma once
// Lookups in a snapshot that every verb needs, and the facts a core rule takes
// from it, so that status and validate apply the same rule to the same values
// (e.g. core::rules::device_noretry(noretry_facts(snap, dev))).  No judgement.
#include "machine/snapshot.hpp"

#include "core/rules.hpp"

#include <string>
#include <string_view>

namespace rdnafix::machine {

// "1002:73df" (vendor:device, hex), "" when either is unknown.
std::string pci_id(const Device &d);

// The parameter module.name of the snapshot, nullptr when not reported.
const Param *find_param(const Snapshot &s, std::string_view module, std::string_view name);

// The inputs of core::rules::device_noretry for device `d` of `s` (views into
// `s`: use them while `s` lives).
rules::DeviceNoretryFacts noretry_facts(const Snapshot &s, const Device &d);

} // namespace rdnafix::machine
