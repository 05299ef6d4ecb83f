// rdnafix rules: the value a module parameter takes when nothing sets it (it
// is removed from the kernel command line and no modprobe.d file sets it),
// on a given kernel and GPU.  Pure; each answer names its upstream source.
#pragma once

#include "core/types.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace rdnafix::rules {

struct ParamDefault {
	// What /sys/module/<module>/parameters/<name> then shows ("-1", "keep", "").
	std::string param_value;
	// The value the driver then uses for the GPU asked about, when that differs
	// from param_value ("-1" = auto): amdgpu.noretry -> "0" or "1",
	// amdgpu.vm_fragment_size on GFX10 -> "9".  nullopt: no GPU given, or not
	// derivable.
	std::optional<std::string> effective;
	bool certain = true;     // false where the point release is not pinned (noretry 6.18.y)
	std::string explanation; // one line with the rule and its upstream source
};

// `module` "amdgpu" | "rdnafix" | "ttm" | "amdttm"; `name` the parameter
// (dashes and underscores are equal, as the kernel compares them).  nullopt for
// a parameter this table does not know.
std::optional<ParamDefault> param_default(std::string_view module, std::string_view name,
					  const core::KernelVersion &kernel,
					  const std::optional<core::GcVersion> &gc = std::nullopt);

} // namespace rdnafix::rules
