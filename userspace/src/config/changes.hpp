#pragma once
// The changes `rdnactl config` and `rdnactl fix` ask for, as data: module
// options for the owned modprobe.d file and kernel command-line parameters
// for the boot loader (CmdlineChange, config/bootloader.hpp).
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

} // namespace rdnafix::config
