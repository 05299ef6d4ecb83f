// default_planners(): the BOOT planners (config/initramfs.hpp,
// config/bootloader.hpp, config/immutable.hpp) behind apply_changes().
// A build without them (only while they are being written) has empty
// functions, and apply_changes() then refuses with a message saying so.
#include "config/apply.hpp"

#if __has_include("config/initramfs.hpp") && __has_include("config/bootloader.hpp") &&                                 \
							   __has_include("config/immutable.hpp")
#define RDNAFIX_HAVE_BOOT_PLANNERS 1
#include "config/bootloader.hpp"
#include "config/immutable.hpp"
#include "config/initramfs.hpp"
#endif

namespace rdnafix::config {

Planners default_planners()
{
	Planners p;
#ifdef RDNAFIX_HAVE_BOOT_PLANNERS
	p.initramfs = [](const machine::Snapshot &s, bool want, bool changed) {
		return plan_initramfs(s, want, changed);
	};
	p.cmdline = [](const machine::Snapshot &s, const std::vector<CmdlineChange> &c) { return plan_cmdline(s, c); };
	p.native_way = [](const machine::Snapshot &s, const std::vector<std::string> &lines,
			  const std::vector<CmdlineChange> &c) { return native_way(s, lines, c); };
#endif
	return p;
}

} // namespace rdnafix::config
