#pragma once
// The changes `rdnactl config` and `rdnactl fix` ask for, as data: module
// options for the owned modprobe.d file and kernel command-line parameters
// for the boot loader.
#include <optional>
#include <string>

#if __has_include("config/bootloader.hpp")
#include "config/bootloader.hpp" // CmdlineChange
#else
namespace rdnafix::config {
// The boot-loader planner's input (config/bootloader.hpp once it is built):
// "amdgpu.noretry" set to a value, or removed (nullopt).
struct CmdlineChange {
	std::string param;
	std::optional<std::string> value;
};
} // namespace rdnafix::config
#endif

namespace rdnafix::config {

// One module option: set (value) or unset (nullopt).  module "rdnafix",
// "amdgpu", "ttm" or "amdttm"; name as the module spells it ("noretry").
struct ModuleChange {
	std::string module, name;
	std::optional<std::string> value;
};

} // namespace rdnafix::config
