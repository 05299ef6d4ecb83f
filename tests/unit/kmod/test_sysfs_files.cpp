// kmod/rdnafix_sysfs_files.h is the one list of the files under
// /sys/kernel/rdnafix.  docs/sysfs-abi.md must describe exactly those files,
// and the captured machine tests/fixtures/rdnafix-loaded must hold exactly
// those files (it is read here, never written).
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "policy_c.h"
#include "rdnafix_policy.h"

namespace fs = std::filesystem;

namespace {

using Names = std::vector<std::string>;

Names to_names(const char *const *p, unsigned n)
{
	return Names(p, p + n);
}

Names root_files()
{
	unsigned n = 0;
	const char *const *p = rdnafix_sysfs_root_files(&n);
	return to_names(p, n);
}

Names hook_files()
{
	unsigned n = 0;
	const char *const *p = rdnafix_sysfs_hook_files(&n);
	return to_names(p, n);
}

Names dev_files()
{
	unsigned n = 0;
	const char *const *p = rdnafix_sysfs_dev_files(&n);
	return to_names(p, n);
}

std::set<std::string> as_set(const Names &v)
{
	std::set<std::string> s(v.begin(), v.end());
	CHECK(s.size() == v.size()); // no name twice
	return s;
}

// The files docs/sysfs-abi.md describes, from its "What:" lines and, for
// hooks/<name>, from the "<name> is one of:" list that follows.
struct DocFiles {
	Names root, hooks, devices;
};

DocFiles read_doc(const std::string &path)
{
	std::ifstream in(path);
	REQUIRE(in);
	DocFiles d;
	const std::regex what(R"(^What:\s+/sys/kernel/rdnafix/(\S*)$)");
	bool in_hook_names = false;
	std::string line;
	while (std::getline(in, line)) {
		std::smatch m;
		if (std::regex_match(line, m, what)) {
			const std::string rel = m[1];
			const std::string dev = "devices/<BDF>/";
			if (rel == "hooks/<name>" || rel == dev)
				continue;
			if (rel.rfind(dev, 0) == 0)
				d.devices.push_back(rel.substr(dev.size()));
			else if (rel.find('/') == std::string::npos)
				d.root.push_back(rel);
			else
				FAIL("unexpected path in a What: line: " << rel);
			continue;
		}
		if (line.find("<name> is one of:") != std::string::npos) {
			in_hook_names = true;
			continue;
		}
		if (in_hook_names) {
			std::smatch w;
			if (line.find("Value is one of:") != std::string::npos ||
			    !std::regex_search(line, w, std::regex(R"(^\s+([a-z_]+)\s)"))) {
				in_hook_names = false;
				continue;
			}
			d.hooks.push_back(w[1]);
		}
	}
	return d;
}

// The entries of @dir, split into regular files and directories.
void list_dir(const fs::path &dir, std::set<std::string> &files, std::set<std::string> &dirs)
{
	REQUIRE(fs::is_directory(dir));
	for (const auto &e : fs::directory_iterator(dir)) {
		if (e.is_directory())
			dirs.insert(e.path().filename().string());
		else
			files.insert(e.path().filename().string());
	}
}

} // namespace

TEST_CASE("sysfs file lists: names as the module and rdnactl expect them", "[sysfs]")
{
	CHECK(root_files() == Names{"version", "abi_version", "amdgpu", "dry_run", "pte_prototype",
				    "pte_refused_pointer", "pte_refused_entry_value", "pte_refused_return_value",
				    "not_covered", "nmissed", "missing", "calls", "evidence", "leaks", "leak_readers"});
	CHECK(hook_files() == Names{"pci_probe", "noretry_set", "vm_adjust_size", "get_vm_pte", "pci_remove"});
	const Names dev = dev_files();
	CHECK(dev.size() == 14);
	CHECK(dev.front() == "pci_id");
	CHECK(dev.back() == "pte_would_rewrite");
	for (const Names &list : {root_files(), hook_files(), dev})
		for (const std::string &n : list) {
			INFO("file '" << n << "'");
			CHECK(std::regex_match(n, std::regex("[a-z][a-z0-9_]*")));
		}
	as_set(root_files());
	as_set(hook_files());
	as_set(dev);

	// the kind column names one of the module's four show functions
	const std::vector<std::pair<std::string, std::string>> kinds = {
#define RDNAFIX_DEV_FILE(name, kind) {#name, #kind},
#include "rdnafix_sysfs_files.h"
	};
	REQUIRE(kinds.size() == dev.size());
	for (std::size_t i = 0; i < kinds.size(); i++) {
		INFO("file '" << kinds[i].first << "' kind '" << kinds[i].second << "'");
		CHECK(kinds[i].first == dev[i]);
		CHECK(std::set<std::string>{"str", "int", "mtype", "u64"}.count(kinds[i].second) == 1);
	}

	// the list compiled as C (as in the kernel) gives the same names
	REQUIRE(c_sysfs_dev_file_count() == dev.size());
	for (unsigned i = 0; i < dev.size(); i++)
		CHECK(std::string(c_sysfs_dev_file(i)) == dev[i]);
}

TEST_CASE("docs/sysfs-abi.md describes exactly the files of the list", "[sysfs][docs]")
{
	const DocFiles doc = read_doc(std::string(RDNAFIX_TOP) + "/docs/sysfs-abi.md");
	CHECK(as_set(doc.root) == as_set(root_files()));
	CHECK(as_set(doc.hooks) == as_set(hook_files()));
	CHECK(as_set(doc.devices) == as_set(dev_files()));
}

TEST_CASE("fixture rdnafix-loaded holds exactly the files of the list", "[sysfs][fixtures]")
{
	const fs::path top = fs::path(RDNAFIX_TOP) / "tests/fixtures/rdnafix-loaded/root/sys/kernel/rdnafix";
	std::set<std::string> files, dirs;
	list_dir(top, files, dirs);
	CHECK(files == as_set(root_files()));
	CHECK(dirs == std::set<std::string>{"devices", "hooks"});

	std::set<std::string> hooks, hook_dirs;
	list_dir(top / "hooks", hooks, hook_dirs);
	CHECK(hooks == as_set(hook_files()));
	CHECK(hook_dirs.empty());

	std::set<std::string> none, bdfs;
	list_dir(top / "devices", none, bdfs);
	CHECK(none.empty());
	REQUIRE_FALSE(bdfs.empty());
	for (const std::string &bdf : bdfs) {
		INFO("devices/" << bdf);
		std::set<std::string> dev, sub;
		list_dir(top / "devices" / bdf, dev, sub);
		CHECK(dev == as_set(dev_files()));
		CHECK(sub.empty());
	}
}
