#pragma once
// Helpers of the config tests: a temporary root (a fixture system built in a
// temp dir; never "/"), a listing of every file below it (to prove "nothing
// written"), and test planners that stand in for the BOOT planners.
#include "config/apply.hpp"

#include <map>
#include <string>

namespace rdnafix::test {

class TempRoot {
public:
	TempRoot(); // <tmp>/rdnafix-config-XXXXXX/root with etc/modprobe.d
	~TempRoot();
	TempRoot(const TempRoot &) = delete;
	TempRoot &operator=(const TempRoot &) = delete;

	[[nodiscard]] const std::string &root() const { return root_; }
	[[nodiscard]] const std::string &outer() const { return dir_; }
	void write(const std::string &rel, const std::string &content, unsigned mode = 0644) const;
	[[nodiscard]] std::string read(const std::string &rel) const; // "" when absent
	[[nodiscard]] bool exists(const std::string &rel) const;
	[[nodiscard]] unsigned mode(const std::string &rel) const;
	// path -> content and mode (symlinks as "-> target") of every file below
	// the root; directories are not listed.
	[[nodiscard]] std::map<std::string, std::string> tree() const;
	// A machine with `ram_gib` of RAM (proc/meminfo).
	void ram(unsigned long long ram_gib) const;

private:
	std::string dir_, root_;
};

// Test planners.  initramfs: the hook file etc/initramfs-tools/hooks/rdnafix
// (0755) when rdnafix is wanted, deleted otherwise, and one command that
// copies the owned file into <root>/boot/initrd.img-test (so a test sees
// that commands run after the files are written, and again after a
// roll-back).  `fail_initramfs`: a second command that prints "boom" and
// exits 4.  cmdline: etc/default/grub.d/rdnafix.cfg listing the changes,
// command "true".  `native`: native_way returns it (an immutable system).
struct TestPlanners {
	bool fail_initramfs = false;
	std::optional<std::string> native;
	bool edit_while_planning = false; // another program writes the owned file during planning
	int initramfs_calls = 0;
};
config::Planners planners(const std::string &root, TestPlanners &t);

// ApplyOptions for a temporary root: not requiring root, commands on the host.
config::ApplyOptions options(const std::string &root);

struct Run {
	int rc = 0;
	std::string out, err;
};
Run apply(const config::ApplyOptions &o, const std::vector<config::ModuleChange> &mods,
	  const std::vector<config::CmdlineChange> &cmdline, const config::Planners &p);
Run undo(const config::ApplyOptions &o);

} // namespace rdnafix::test
