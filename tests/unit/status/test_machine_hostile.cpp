// A real captured machine (tests/fixtures/not-in-render-group) copied and
// damaged at test time: device directories that cannot be read, a malformed
// dev/.devnodes, device nodes that are not the kernel's character devices,
// groups that must never be proposed, user names that need shell quoting and
// numeric uids.  The real binary reads the copy (`status --json --root`).
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Catch::Matchers::ContainsSubstring;
using nlohmann::json;
using rdnafix::test::run_rdnactl;
using rdnafix::test::TempDir;

namespace {

// The fixture's root copied into `t` (readable by every user, for the runs as
// nobody); returns the copy's path.
fs::path copy_fixture(const TempDir &t, const std::string &name = "not-in-render-group")
{
	const fs::path dst = t.path() / "root";
	fs::copy(fs::path(RDNAFIX_FIXTURES) / name / "root", dst,
		 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
	fs::permissions(t.path(), fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
	return dst;
}

void replace_with_file(const fs::path &p)
{
	fs::remove_all(p);
	std::ofstream(p) << "not a directory\n";
}

void write(const fs::path &p, const std::string &text)
{
	std::ofstream out(p, std::ios::trunc);
	out << text;
	REQUIRE(out.good());
}

struct Status {
	int exit_code = -1;
	json j;
	std::string text; // stdout + stderr, for failure messages
};

Status run_status(const fs::path &root, const std::vector<std::string> &extra = {"--user", "bob"},
		  const std::vector<std::string> &prefix = {})
{
	std::vector<std::string> args{"status", "--json", "--root", root.string()};
	args.insert(args.end(), extra.begin(), extra.end());
	auto r = run_rdnactl(args, {}, prefix);
	Status s;
	s.exit_code = r.exit_code;
	s.text = r.out + r.err;
	s.j = json::parse(r.out, nullptr, false);
	return s;
}

std::vector<json> findings(const Status &s, const std::string &id)
{
	std::vector<json> out;
	if (s.j.is_object())
		for (const auto &f : s.j["findings"])
			if (f["id"] == id)
				out.push_back(f);
	return out;
}

bool has_unreadable(const Status &s, const std::string &section, const std::string &item)
{
	for (const auto &u : s.j[section]["unreadable"])
		if (u["item"] == item)
			return true;
	return false;
}

std::string all_findings(const Status &s)
{
	std::string out;
	if (s.j.is_object())
		for (const auto &f : s.j["findings"])
			out += f["id"].get<std::string>() + " " + f["subject"].get<std::string>() + ": " +
			       f["finding"].get<std::string>() + " | fix: " + f["fix"].get<std::string>() + "\n";
	return out;
}

} // namespace

TEST_CASE("unreadable sys/class/drm: the render node is unknown, not missing", "[hostile][unreadable]")
{
	TempDir t;
	const fs::path root = copy_fixture(t);
	// A file where the directory belongs: fails for root too (ENOTDIR).
	replace_with_file(root / "sys/class/drm");
	Status s = run_status(root);
	INFO(s.text << all_findings(s));
	REQUIRE(s.j.is_object());
	CHECK(has_unreadable(s, "driver", "drm_devices"));
	CHECK(findings(s, "RDNA-ACC-004").empty()); // before: "no render node" for a GPU that has one
	CHECK(findings(s, "RDNA-GPU-001").empty()); // the PCI list still finds the GPU
	auto unknown = findings(s, "RDNA-RDR-001");
	REQUIRE(unknown.size() == 1);
	CHECK_THAT(unknown[0]["finding"].get<std::string>(), ContainsSubstring("render node"));
	CHECK_THAT(unknown[0]["finding"].get<std::string>(), ContainsSubstring("sys/class/drm"));
	CHECK(unknown[0]["severity"] == "info");
}

TEST_CASE("unreadable device directories: whether there is an AMD GPU is unknown", "[hostile][unreadable]")
{
	auto check = [](const Status &s) {
		INFO(s.text << all_findings(s));
		REQUIRE(s.j.is_object());
		CHECK(findings(s, "RDNA-GPU-001").empty()); // before: "no AMD GPU"
		auto unknown = findings(s, "RDNA-RDR-001");
		REQUIRE_FALSE(unknown.empty());
		CHECK_THAT(unknown[0]["finding"].get<std::string>(), ContainsSubstring("AMD GPU"));
		CHECK(has_unreadable(s, "driver", "drm_devices"));
		CHECK(has_unreadable(s, "driver", "pci_devices"));
		CHECK_FALSE(findings(s, "RDNA-RDR-000").empty());
	};
	SECTION("files where the directories belong (ENOTDIR, as root)")
	{
		TempDir t;
		const fs::path root = copy_fixture(t);
		replace_with_file(root / "sys/class/drm");
		replace_with_file(root / "sys/bus/pci/devices");
		check(run_status(root));
	}
	SECTION("chmod 000 directories, read as nobody (setpriv)")
	{
		std::vector<std::string> prefix = rdnafix::test::drop_root_prefix();
		if (::geteuid() == 0 && prefix.empty())
			SKIP("running as root without setpriv: permission bits do not stop root");
		TempDir t;
		const fs::path root = copy_fixture(t);
		fs::permissions(root / "sys/class/drm", fs::perms::none);
		fs::permissions(root / "sys/bus/pci/devices", fs::perms::none);
		Status s = run_status(root, {"--user", "bob"}, prefix);
		check(s);
		bool eacces = false;
		for (const auto &u : s.j["driver"]["unreadable"])
			eacces = eacces || u["reason"].get<std::string>().find("EACCES") != std::string::npos;
		CHECK(eacces);
	}
}

TEST_CASE("unreadable KFD topology is an unreadable item", "[hostile][unreadable]")
{
	TempDir t;
	const fs::path root = copy_fixture(t);
	replace_with_file(root / "sys/class/kfd/kfd/topology/nodes");
	Status s = run_status(root);
	INFO(s.text << all_findings(s));
	REQUIRE(s.j.is_object());
	CHECK(has_unreadable(s, "driver", "kfd_topology"));
}

TEST_CASE("a malformed dev/.devnodes makes the nodes unknown, never 'join group root'", "[hostile][unreadable]")
{
	TempDir t;
	const fs::path root = copy_fixture(t);
	write(root / "dev/.devnodes", "dev/kfd c 235-0 0660 root render\n"
				      "dev/dri/card0 c 226:0 0660 root video\n"
				      "dev/dri/renderD128 c 226:128 0999 root render extra\n");
	Status s = run_status(root);
	INFO(s.text << all_findings(s));
	REQUIRE(s.j.is_object());
	CHECK(has_unreadable(s, "access", "dev_devnodes"));
	// Before: the placeholder files were judged as 0644 root:root nodes
	// ("usermod -aG root bob").
	CHECK(findings(s, "RDNA-ACC-002").empty());
	CHECK(findings(s, "RDNA-ACC-005").empty());
	CHECK(findings(s, "RDNA-RDR-001").size() == 2); // /dev/kfd and renderD128
	CHECK_THAT(all_findings(s), !ContainsSubstring("-aG root"));
}
