#pragma once
// Small pure rules the status component needs beyond core/rules.hpp: the
// ROCm support list and parameter-value comparison.  No I/O.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rdnafix::status {

// Is this gfx target on an official ROCm Linux support list (rocm-userspace.md §5)?
bool rocm_officially_supported(std::string_view gfx);
// Compare a configured module-parameter value with the value the kernel prints
// in /sys/module/<m>/parameters/<name>: numbers numerically, booleans Y/N vs
// 1/0/y/n.  nullopt when the two cannot be compared (e.g. string parameters).
std::optional<bool> param_values_equal(std::string_view configured, std::string_view live);

} // namespace rdnafix::status
