#pragma once
// The changes `rdnactl config` and `rdnactl fix` ask for, as data: module
// options for the owned modprobe.d file, kernel command-line parameters for
// the boot loader (CmdlineChange, config/bootloader.hpp) and service settings.
#include "config/bootloader.hpp"

#include <optional>
#include <string>

namespace rdnafix::config {

// One module option: set (value) or unset (nullopt).  module "rdnafix",
// "amdgpu", "ttm" or "amdttm"; name as the module spells it ("noretry").
struct ModuleChange {
	std::string module, name;
	std::optional<std::string> value;
};

// A setting of a systemd service that rdnactl writes a drop-in for: today
// "validate.user", the user rdnafix-validate.service runs as
// (config/service_dropin.hpp).  Set (value) or unset (nullopt).
struct ServiceChange {
	std::string key;
	std::optional<std::string> value;
};

} // namespace rdnafix::config
