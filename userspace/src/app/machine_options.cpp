#include "machine_options.hpp"

namespace rdnafix::app {

void add_machine_options(CLI::App &sub, MachineArgs &args)
{
	sub.add_option("--root", args.root,
		       "Read sys/, proc/, dev/, etc/, lib/modules/, usr/share/ below DIR instead of / "
		       "(a captured machine); devices are then read by a plain directory walk, not libudev/libdrm")
		->type_name("DIR");
	sub.add_option("--env", args.env_file,
		       "Audit the variables FILE sets (KEY=VALUE lines or a shell start-up file such as ~/.bashrc) "
		       "instead of this process's environment")
		->type_name("FILE");
	sub.add_option("--user", args.user,
		       "Judge device access for user NAME (groups from the root's etc/group) instead of this process "
		       "(under sudo: SUDO_USER)")
		->type_name("NAME");
}

void add_root_option(CLI::App &sub, std::string &root, const std::string &help)
{
	sub.add_option("--root", root, help)->type_name("DIR");
}

machine::CollectOptions collect_options(const MachineArgs &args)
{
	machine::CollectOptions c;
	if (!args.root.empty()) {
		c.root = args.root;
		c.live = false;
	}
	if (!args.env_file.empty())
		c.env_file = args.env_file;
	if (!args.user.empty())
		c.user = args.user;
	return c;
}

} // namespace rdnafix::app
