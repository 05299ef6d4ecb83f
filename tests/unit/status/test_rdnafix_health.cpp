// rdnafix's counters, evidence and leaks (sysfs ABI v1 additions, issue 22)
// and which amdgpu the kernel uses (modules.dep, modules.builtin, amdgpu-dkms),
// end to end: the real binary on copies of the rdnafix-loaded fixture with
// the files the module and depmod write, changed per case.  The files are
// made by hand from docs/sysfs-abi.md and depmod's formats (no capture).
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <filesystem>

namespace fs = std::filesystem;
using Catch::Matchers::ContainsSubstring;
using rdnafix::test::read_file;
using rdnafix::test::run_rdnactl;
using rdnafix::test::TempDir;

namespace {

const std::string kRel = "6.12.117+deb12-amd64";
const std::string kInTree = "kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.xz";
const std::string kDkms = "updates/dkms/amdgpu.ko.xz";

struct Machine {
	TempDir dir;
	fs::path root;
	Machine()
	{
		root = dir.path() / "root";
		fs::copy(fs::path(RDNAFIX_FIXTURES) / "rdnafix-loaded/root", root,
			 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
		fs::remove_all(root / "var/lib/rdnafix"); // its validation history is not judged here
	}
	void write(const std::string &rel, const std::string &content) const { dir.write("root/" + rel, content); }
	void sysfs(const std::string &name, const std::string &content) const
	{
		write("sys/kernel/rdnafix/" + name, content);
	}
	// An installed kernel whose modules.dep names `amdgpu` (a path below lib/modules/<rel>).
	void depmod(const std::string &amdgpu) const
	{
		write("lib/modules/" + kRel + "/" + amdgpu, "");
		write("lib/modules/" + kRel + "/modules.dep",
		      "kernel/drivers/gpu/drm/drm_buddy.ko.xz:\n" + amdgpu +
			      ": kernel/drivers/gpu/drm/drm_buddy.ko.xz\nupdates/dkms/rdnafix.ko:\n");
	}
	nlohmann::json status() const
	{
		auto r = run_rdnactl({"status", "--root", root.string(), "--user", "grace", "--json"});
		INFO(r.err);
		return nlohmann::json::parse(r.out);
	}
	std::string text() const
	{
		return run_rdnactl(
			       {"status", "--root", root.string(), "--user", "grace", "--verbose", "--color", "never"})
			.out;
	}
};

// The findings with `id`: "subject: finding | fix".
std::vector<std::string> findings(const nlohmann::json &j, const std::string &id)
{
	std::vector<std::string> out;
	for (const auto &f : j.at("findings"))
		if (f.at("id") == id)
			out.push_back(f.at("subject").get<std::string>() + ": " + f.at("finding").get<std::string>() +
				      " | " + f.at("fix").get<std::string>());
	return out;
}

} // namespace

TEST_CASE("rdnafix: a hook that refuses every call is RDNA-MOD-008, not active", "[rdnafix-health]")
{
	Machine m;
	m.sysfs("hooks/get_vm_pte",
		"refusing: 12 call(s) seen, all refused (flags pointer not on the caller's stack)\n");
	auto f = findings(m.status(), "RDNA-MOD-008");
	REQUIRE(f.size() == 1);
	CHECK_THAT(f[0], ContainsSubstring("rdnafix hook get_vm_pte: hook get_vm_pte is refusing: 12 call(s)"));
	CHECK_THAT(f[0], ContainsSubstring("/sys/kernel/rdnafix/evidence"));
	CHECK(findings(m.status(), "RDNA-MOD-002").empty()); // refusing is not inactive

	SECTION("an older module that prints active while the calls file shows every call refused")
	{
		m.sysfs("hooks/get_vm_pte", "active\n");
		m.sysfs("calls", "pci_probe seen=2 refused=0\nget_vm_pte seen=40 refused=40\n");
		auto g = findings(m.status(), "RDNA-MOD-008");
		REQUIRE(g.size() == 1);
		CHECK_THAT(g[0], ContainsSubstring("refused all 40 call(s) it saw (calls: seen=40 refused=40)"));
	}
	SECTION("some calls accepted: not refusing")
	{
		m.sysfs("hooks/get_vm_pte", "active\n");
		m.sysfs("calls", "get_vm_pte seen=40 refused=39\n");
		CHECK(findings(m.status(), "RDNA-MOD-008").empty());
	}
}

TEST_CASE("rdnafix: missed calls (instance and recursion) are RDNA-MOD-009 with both counts", "[rdnafix-health]")
{
	Machine m;
	m.sysfs("missing", "pci_probe instance=0 recursion=0\nnoretry_set instance=3 recursion=0\n"
			   "get_vm_pte instance=0 recursion=7\n");
	m.sysfs("calls", "pci_probe seen=2 refused=0\nnoretry_set seen=5 refused=0\n");
	const auto j = m.status();
	auto f = findings(j, "RDNA-MOD-009");
	REQUIRE(f.size() == 2);
	CHECK_THAT(f[0], ContainsSubstring("hook get_vm_pte missed 7 call(s): instance=0"));
	CHECK_THAT(f[0], ContainsSubstring("recursion=7"));
	CHECK_THAT(f[1], ContainsSubstring("hook noretry_set missed 3 call(s): instance=3"));
	// The counters are in the JSON and in the verbose text under their hook.
	const auto &hc = j.at("rdnafix").at("hook_counts");
	CHECK(hc.at("noretry_set").at("seen") == 5);
	CHECK(hc.at("noretry_set").at("missed_instance") == 3);
	CHECK(hc.at("get_vm_pte").at("seen").is_null());
	CHECK(hc.at("get_vm_pte").at("missed_recursion") == 7);
	CHECK_THAT(m.text(), ContainsSubstring("  hook noretry_set    active\n    calls seen=5 refused=0; missed "
					       "instance=3 recursion=0\n"));
}

TEST_CASE("rdnafix: malformed counter lines are recorded as unreadable, not guessed", "[rdnafix-health]")
{
	Machine m;
	m.sysfs("missing", "get_vm_pte instance=lots recursion=0\nnoretry_set instance=2 recursion=0\n");
	const auto j = m.status();
	CHECK(findings(j, "RDNA-MOD-009").size() == 1); // the good line still counts
	bool noted = false;
	for (const auto &u : j.at("rdnafix").at("unreadable"))
		noted = noted || (u.at("item") == "rdnafix.missing" &&
				  u.at("reason").get<std::string>().find("instance=lots") != std::string::npos);
	CHECK(noted);
}

TEST_CASE("rdnafix: reads of the swapped noretry by other code are RDNA-MOD-010", "[rdnafix-health]")
{
	Machine m;
	m.sysfs("leaks", "0\n");
	CHECK(findings(m.status(), "RDNA-MOD-010").empty());
	m.sysfs("leaks", "2\ngfxhub_v3_0_setup_vmid_config read noretry=1 during 0000:03:00.0's swap (amdgpu's own 0)\n"
			 "mmhub_v3_0_setup_vmid_config read noretry=1 during 0000:03:00.0's swap (amdgpu's own 0)\n");
	const auto j = m.status();
	auto f = findings(j, "RDNA-MOD-010");
	REQUIRE(f.size() == 1);
	CHECK_THAT(f[0], ContainsSubstring("recorded 2 read(s) of amdgpu_noretry"));
	CHECK_THAT(f[0], ContainsSubstring("last: mmhub_v3_0_setup_vmid_config read noretry=1"));
	CHECK(j.at("rdnafix").at("leaks_total") == 2);
	CHECK(j.at("rdnafix").at("leaks").size() == 2);
}

TEST_CASE("rdnafix: built against another amdgpu than modprobe loads is RDNA-MOD-011 with the DKMS command",
	  "[rdnafix-health]")
{
	Machine m;
	m.depmod(kDkms);
	m.sysfs("evidence", "amdgpu_origin: in-tree\namdgpu_path: /lib/modules/" + kRel + "/" + kInTree +
				    "\nprototypes: pci_probe(struct pci_dev *)\npte_audit: -1 audit not run\n");
	const auto j = m.status();
	auto f = findings(j, "RDNA-MOD-011");
	REQUIRE(f.size() == 1);
	CHECK_THAT(f[0], ContainsSubstring("built against /lib/modules/" + kRel + "/" + kInTree +
					   " (in-tree) but modprobe loads /lib/modules/" + kRel + "/" + kDkms));
	CHECK_THAT(f[0], ContainsSubstring("dkms unbuild rdnafix/0.1.0 -k " + kRel +
					   " && dkms install rdnafix/0.1.0 -k " + kRel));
	CHECK(j.at("rdnafix").at("evidence").at("pte_audit") == "-1 audit not run");
	// amdgpu-dkms is what modprobe loads: RDNA-DRV-011, with the rebuild advice (rdnafix is installed).
	auto d = findings(j, "RDNA-DRV-011");
	REQUIRE(d.size() == 1);
	CHECK_THAT(d[0], ContainsSubstring("modprobe loads amdgpu from /lib/modules/" + kRel + "/" + kDkms));
	CHECK_THAT(d[0], ContainsSubstring("after every amdgpu-dkms upgrade rebuild rdnafix"));

	SECTION("built against the amdgpu modprobe loads: no RDNA-MOD-011")
	{
		m.sysfs("evidence", "amdgpu_origin: dkms\namdgpu_path: /lib/modules/" + kRel + "/" + kDkms + "\n");
		CHECK(findings(m.status(), "RDNA-MOD-011").empty());
	}
	SECTION("the in-tree amdgpu on both sides: neither RDNA-MOD-011 nor RDNA-DRV-011")
	{
		m.depmod(kInTree);
		const auto k = m.status();
		CHECK(findings(k, "RDNA-MOD-011").empty());
		CHECK(findings(k, "RDNA-DRV-011").empty());
	}
}

TEST_CASE("amdgpu built into the kernel is RDNA-DRV-010, and rdnafix's inactive hooks no RDNA-MOD-002",
	  "[rdnafix-health]")
{
	Machine m;
	m.write("lib/modules/" + kRel + "/modules.builtin",
		"kernel/drivers/gpu/drm/drm.ko\nkernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko\n");
	m.write("lib/modules/" + kRel + "/modules.dep", "kernel/drivers/gpu/drm/drm_buddy.ko.xz:\n");
	m.sysfs("amdgpu", "built-in\n");
	for (const char *h : {"pci_probe", "noretry_set", "vm_adjust_size", "get_vm_pte"})
		m.sysfs(std::string("hooks/") + h, "inactive: amdgpu is built into the kernel (CONFIG_DRM_AMDGPU=y)\n");
	const auto j = m.status();
	auto f = findings(j, "RDNA-DRV-010");
	REQUIRE(f.size() == 1);
	CHECK_THAT(f[0], ContainsSubstring("amdgpu is built into the kernel " + kRel + " (/lib/modules/" + kRel +
					   "/modules.builtin lists it)"));
	CHECK(findings(j, "RDNA-MOD-002").empty());
	CHECK(findings(j, "RDNA-DRV-011").empty());

	auto kc = run_rdnactl({"kernel-check", kRel, "--root", m.root.string(), "--json"});
	INFO(kc.err);
	CHECK(nlohmann::json::parse(kc.out).at("amdgpu_origin") == "built-in");
}

TEST_CASE("amdgpu-dkms added to DKMS but not built for the running kernel is RDNA-DRV-012", "[rdnafix-health]")
{
	Machine m;
	m.depmod(kInTree);
	m.write("var/lib/dkms/amdgpu/6.10.5-2084815.24.04/source/dkms.conf", "PACKAGE_NAME=amdgpu\n");
	const auto j = m.status();
	auto f = findings(j, "RDNA-DRV-012");
	REQUIRE(f.size() == 1);
	CHECK_THAT(f[0], ContainsSubstring("amdgpu-dkms 6.10.5-2084815.24.04 is added to DKMS"));
	CHECK_THAT(f[0], ContainsSubstring("running kernel " + kRel));
	CHECK_THAT(f[0], ContainsSubstring("dkms autoinstall -k " + kRel));
	// Built for it: no finding.
	m.write("lib/modules/" + kRel + "/" + kDkms, "");
	m.depmod(kDkms);
	CHECK(findings(m.status(), "RDNA-DRV-012").empty());
}

TEST_CASE("kernel-check names amdgpu-dkms's amdgpu for the kernel (text and JSON)", "[rdnafix-health]")
{
	Machine m;
	m.depmod(kDkms);
	m.write("var/lib/dkms/amdgpu/6.10.5-2084815.24.04/source/dkms.conf", "PACKAGE_NAME=amdgpu\n");
	auto t = run_rdnactl({"kernel-check", kRel, "--root", m.root.string()});
	CHECK_THAT(t.out, ContainsSubstring("amdgpu for " + kRel + ": /lib/modules/" + kRel + "/" + kDkms +
					    " (dkms: amdgpu-dkms 6.10.5-2084815.24.04), not the kernel's own"));
	auto j = nlohmann::json::parse(run_rdnactl({"kernel-check", kRel, "--root", m.root.string(), "--json"}).out);
	CHECK(j.at("amdgpu_module") == "/lib/modules/" + kRel + "/" + kDkms);
	CHECK(j.at("amdgpu_origin") == "dkms");
	CHECK(j.at("amdgpu_dkms") == nlohmann::json::array({"6.10.5-2084815.24.04"}));
}

TEST_CASE("explain: an aperture violation never points at rdnafix as cause or cure", "[rdnafix-health]")
{
	const fs::path log = fs::path(RDNAFIX_TOP) / "tests/explain/corpus/RDNA-LOG-004/ggml-org-whisper-cpp-3576.log";
	REQUIRE(fs::exists(log));
	const std::string words = "neither causes nor cures it";
	Machine m;
	auto loaded = run_rdnactl({"explain", log.string(), "--root", m.root.string(), "--no-coverage"});
	CHECK_THAT(loaded.out, ContainsSubstring("RDNA-LOG-004"));
	CHECK_THAT(loaded.out, ContainsSubstring(words));
	CHECK(loaded.out.find("mtype_sysmem/mtype_vram is set here") == std::string::npos); // keep, keep
	m.write("sys/module/rdnafix/parameters/mtype_sysmem", "uc\n");
	auto mtype = run_rdnactl({"explain", log.string(), "--root", m.root.string(), "--no-coverage"});
	CHECK_THAT(mtype.out, ContainsSubstring("mtype_sysmem/mtype_vram is set here"));
	// Without rdnafix the cause is not shown, and the fix never names rdnafix.
	auto plain = run_rdnactl({"explain", log.string(), "--root",
				  (fs::path(RDNAFIX_FIXTURES) / "rx6750xt-raphael/root").string(), "--no-coverage"});
	CHECK_THAT(plain.out, ContainsSubstring("RDNA-LOG-004"));
	CHECK(plain.out.find(words) == std::string::npos);
	CHECK(plain.out.find("rdnafix") == std::string::npos);
}
