#include "sysinfo.hpp"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>

#include <sys/utsname.h>

namespace rdnafix::validate {

std::string kernel_release()
{
	struct utsname u {};
	if (::uname(&u) != 0)
		return "unknown";
	return u.release;
}

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

std::string utc_now_iso()
{
	const std::time_t t = std::time(nullptr);
	std::tm tm{};
	::gmtime_r(&t, &tm);
	char buf[32];
	std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

} // namespace rdnafix::validate
