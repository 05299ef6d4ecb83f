// default_planners(): the boot plans (config/initramfs.hpp,
// config/bootloader.hpp, config/immutable.hpp) behind apply_changes().
#include "config/apply.hpp"

#include "config/bootloader.hpp"
#include "config/immutable.hpp"
#include "config/initramfs.hpp"

namespace rdnafix::config {

Planners default_planners()
{
	Planners p;
	p.initramfs = [](const machine::Snapshot &s, bool want, bool changed) {
		return plan_initramfs(s, want, changed);
	};
	p.cmdline = [](const machine::Snapshot &s, const std::vector<CmdlineChange> &c) { return plan_cmdline(s, c); };
	p.native_way = [](const machine::Snapshot &s, const std::vector<std::string> &lines,
			  const std::vector<CmdlineChange> &c) { return native_way(s, lines, c); };
	return p;
}

} // namespace rdnafix::config
