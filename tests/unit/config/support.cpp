#include "support.hpp"

#include <catch2/catch_test_macros.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace rdnafix::test {

TempRoot::TempRoot()
{
	std::string tmpl = (fs::temp_directory_path() / "rdnafix-config-XXXXXX").string();
	REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
	dir_ = tmpl;
	::chmod(dir_.c_str(), 0755); // a setpriv'd child must reach the root
	root_ = dir_ + "/root";
	fs::create_directories(root_ + "/etc/modprobe.d");
	fs::create_directories(root_ + "/boot");
}

TempRoot::~TempRoot()
{
	std::error_code ec;
	fs::remove_all(dir_, ec);
}

void TempRoot::write(const std::string &rel, const std::string &content, unsigned mode) const
{
	const fs::path p = fs::path(root_) / rel;
	fs::create_directories(p.parent_path());
	std::ofstream(p) << content;
	::chmod(p.c_str(), mode);
}

std::string TempRoot::read(const std::string &rel) const
{
	std::ifstream in(fs::path(root_) / rel);
	std::stringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

bool TempRoot::exists(const std::string &rel) const
{
	return fs::exists(fs::symlink_status(fs::path(root_) / rel));
}

unsigned TempRoot::mode(const std::string &rel) const
{
	struct stat st {};
	if (::stat((fs::path(root_) / rel).c_str(), &st) != 0)
		return 0;
	return st.st_mode & 07777;
}

std::map<std::string, std::string> TempRoot::tree() const
{
	std::map<std::string, std::string> out;
	for (auto it = fs::recursive_directory_iterator(root_); it != fs::recursive_directory_iterator(); ++it) {
		const std::string rel = fs::relative(it->path(), root_).string();
		if (it->is_symlink())
			out[rel] = "-> " + fs::read_symlink(it->path()).string();
		else if (it->is_directory())
			continue; // directories a transaction created stay (empty) after its undo
		else
			out[rel] = read(rel) + "|mode=" + std::to_string(mode(rel));
	}
	return out;
}

void TempRoot::ram(unsigned long long ram_gib) const
{
	write("proc/meminfo", "MemTotal:       " + std::to_string(ram_gib * 1024 * 1024) + " kB\nMemFree: 1 kB\n");
}

config::Planners planners(const std::string &root, TestPlanners &t)
{
	config::Planners p;
	p.initramfs = [root, &t](const machine::Snapshot &, bool want, bool changed) {
		++t.initramfs_calls;
		if (t.edit_while_planning)
			std::ofstream(root + "/etc/modprobe.d/rdnafix.conf") << "options rdnafix noretry=-1\n";
		config::Plan plan;
		if (want)
			plan.files.push_back({"etc/initramfs-tools/hooks/rdnafix",
					      "#!/bin/sh\n. /usr/share/initramfs-tools/hook-functions\n"
					      "manual_add_modules rdnafix\n",
					      0755});
		else
			plan.files.push_back({"etc/initramfs-tools/hooks/rdnafix", std::nullopt, 0755});
		if (changed) {
			const std::string conf = root + "/etc/modprobe.d/rdnafix.conf";
			const std::string img = root + "/boot/initrd.img-test";
			plan.commands.push_back({{"sh", "-c",
						  "if [ -e '" + conf + "' ]; then cp '" + conf + "' '" + img +
							  "'; else : > '" + img + "'; fi; echo regenerated"},
						 "regenerate the test initramfs"});
			if (t.fail_initramfs)
				plan.commands.push_back(
					{{"sh", "-c", "echo boom >&2; exit 4"}, "a generator that fails"});
		}
		plan.notes.push_back("test planner note");
		return plan;
	};
	p.cmdline = [](const machine::Snapshot &, const std::vector<config::CmdlineChange> &changes) {
		config::Plan plan;
		std::string text = "# rdnactl test drop-in\n";
		for (const auto &c : changes)
			text += c.param + "=" + c.value.value_or("<removed>") + "\n";
		plan.files.push_back({"etc/default/grub.d/rdnafix.cfg", text, 0644});
		plan.commands.push_back({{"true"}, "update the boot loader"});
		return plan;
	};
	p.native_way = [&t](const machine::Snapshot &, const std::vector<std::string> &lines,
			    const std::vector<config::CmdlineChange> &) -> std::optional<std::string> {
		if (!t.native)
			return std::nullopt;
		std::string s = *t.native;
		for (const auto &l : lines)
			s += "\n  " + l;
		return s;
	};
	return p;
}

config::ApplyOptions options(const std::string &root)
{
	config::ApplyOptions o;
	o.root = root;
	o.require_root = false;
	o.chroot_commands = false;
	o.only_own_commands = false; // the test planners' commands are `sh -c ...` and `true`
	o.command_timeout_s = 60;
	o.invocation = "rdnactl config set (test)";
	return o;
}

Run apply(const config::ApplyOptions &o, const std::vector<config::ModuleChange> &mods,
	  const std::vector<config::CmdlineChange> &cmdline, const config::Planners &p)
{
	std::ostringstream out, err;
	Run r;
	r.rc = config::apply_changes(o, mods, cmdline, out, err, p);
	r.out = out.str();
	r.err = err.str();
	return r;
}

Run undo(const config::ApplyOptions &o)
{
	std::ostringstream out, err;
	Run r;
	r.rc = config::undo_last(o, out, err);
	r.out = out.str();
	r.err = err.str();
	return r;
}

} // namespace rdnafix::test
