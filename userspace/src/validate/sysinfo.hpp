#pragma once
// Facts about the machine recorded with each run (I/O only; no decisions).
#include <string>

#include <nlohmann/json.hpp>

namespace rdnafix::validate {

std::string kernel_release(); // uname -r
// Every readable file in `dir` (e.g. /sys/module/amdgpu/parameters) as
// {"name": "value"}; {} when the directory does not exist (module not loaded).
nlohmann::json read_module_params(const std::string &dir);
std::string utc_now_iso(); // "2026-11-20T23:59:00Z"

} // namespace rdnafix::validate
