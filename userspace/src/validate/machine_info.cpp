#include "machine_info.hpp"

#include <filesystem>
#include <climits>
#include <fstream>

#include <sys/utsname.h>

#include "core/parse.hpp"

namespace rdnafix::validate {

namespace {

std::string kernel_release()
{
	struct utsname u {};
	if (::uname(&u) != 0)
		return "unknown";
	return u.release;
}

// Every readable file in `dir` as {"name": "first line"}; {} when the
// directory does not exist (module not loaded).
nlohmann::json read_module_params(const std::string &dir)
{
	nlohmann::json out = nlohmann::json::object();
	std::error_code ec;
	for (const auto &e : std::filesystem::directory_iterator(dir, ec)) {
		if (!e.is_regular_file(ec))
			continue;
		std::ifstream f(e.path());
		std::string v;
		if (!f || !std::getline(f, v))
			continue; // write-only or unreadable parameter
		out[e.path().filename().string()] = v;
	}
	return out;
}

std::optional<int> int_param(const nlohmann::json &params, const char *name)
{
	if (!params.contains(name) || !params[name].is_string())
		return std::nullopt;
	const auto v = core::parse_i64(params[name].get<std::string>());
	if (!v || *v < INT_MIN || *v > INT_MAX)
		return std::nullopt;
	return int(*v);
}

} // namespace

RunMachineInfo read_run_machine_info()
{
	RunMachineInfo m;
	m.kernel_release = kernel_release();
	m.amdgpu_params = read_module_params("/sys/module/amdgpu/parameters");
	m.rdnafix_params = read_module_params("/sys/module/rdnafix/parameters");
	m.noretry_param = int_param(m.amdgpu_params, "noretry");
	return m;
}

} // namespace rdnafix::validate
