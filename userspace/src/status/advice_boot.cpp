// Boot advice shared by the checks: the initramfs and headers commands of this
// distribution (from BootConfig: the generator found, os-release), the kernels
// that matter, and whether the initramfs or the boot predate the configuration.
#include "checks.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

namespace {

bool os_is(const machine::BootConfig &b, std::string_view id)
{
	if (b.os.id == id)
		return true;
	std::string_view like = b.os.id_like;
	while (!like.empty()) {
		auto sp = like.find(' ');
		if (like.substr(0, sp) == id)
			return true;
		like = sp == std::string_view::npos ? std::string_view() : like.substr(sp + 1);
	}
	return false;
}

} // namespace

std::string initramfs_command(const machine::BootConfig &b)
{
	switch (b.initramfs) {
	case machine::InitramfsGenerator::initramfs_tools:
		return "update-initramfs -u -k all";
	case machine::InitramfsGenerator::dracut:
		return "dracut -f --regenerate-all";
	case machine::InitramfsGenerator::mkinitcpio:
		return "mkinitcpio -P";
	case machine::InitramfsGenerator::none:
		break;
	}
	return "";
}

std::string regenerate_then_reboot(const machine::BootConfig &b, bool regenerate)
{
	std::string cmd = regenerate ? initramfs_command(b) : "";
	return cmd.empty() ? "reboot" : cmd + ", then reboot";
}

std::string headers_command(const machine::BootConfig &b, const std::string &release)
{
	if (os_is(b, "debian") || os_is(b, "ubuntu"))
		return "apt install linux-headers-" + release;
	if (os_is(b, "fedora") || os_is(b, "rhel"))
		return "dnf install kernel-devel-" + release;
	if (os_is(b, "arch"))
		return "pacman -S linux-headers (the headers of the linux package)";
	if (os_is(b, "suse"))
		return "zypper install kernel-default-devel";
	return "install the kernel headers of " + release;
}

std::optional<Remedy> headers_remedy(const machine::BootConfig &b, const std::string &release)
{
	if (os_is(b, "debian") || os_is(b, "ubuntu"))
		return InstallPackage{InstallPackage::Kind::package, "linux-headers-" + release};
	if (os_is(b, "fedora") || os_is(b, "rhel"))
		return InstallPackage{InstallPackage::Kind::package, "kernel-devel-" + release};
	return std::nullopt;
}

const machine::InstalledKernel *running_kernel(const machine::BootConfig &b)
{
	for (const auto &k : b.kernels)
		if (k.running)
			return &k;
	return nullptr;
}

const machine::InstalledKernel *default_kernel(const machine::BootConfig &b)
{
	for (const auto &k : b.kernels)
		if (k.default_boot)
			return &k;
	return nullptr;
}

bool initramfs_stale(const machine::BootConfig &b, const machine::InstalledKernel &k)
{
	return b.config_mtime_ns && k.initramfs_mtime_ns && *k.initramfs_mtime_ns < *b.config_mtime_ns;
}

bool configured_after_boot(const machine::BootConfig &b)
{
	return b.config_mtime_ns && b.boot_time_s && *b.config_mtime_ns > *b.boot_time_s * 1000000000LL;
}

bool rdnafix_configured(const Snapshot &s, const std::vector<machine::Setting> &settings)
{
	if (std::any_of(settings.begin(), settings.end(),
			[](const machine::Setting &x) { return x.module == "rdnafix" && x.next_boot; }))
		return true;
	for (const auto &f : s.boot.modprobe)
		for (const auto &e : f.config.entries)
			if (e.kind == core::ModprobeKind::softdep &&
			    std::find(e.pre.begin(), e.pre.end(), "rdnafix") != e.pre.end())
				return true;
	return false;
}

void drop(Ctx &c, std::string_view id, std::string_view subject)
{
	c.out.erase(std::remove_if(c.out.begin(), c.out.end(),
				   [&](const Finding &f) { return f.id == id && f.subject == subject; }),
		    c.out.end());
}

} // namespace detail

} // namespace rdnafix::status
