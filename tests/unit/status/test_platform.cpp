// WSL and containers (RDNA-WSL-001..007, RDNA-ACC-006..008): the real
// binary on copies of the captured trees tests/fixtures/wsl2,
// rootless-podman-overflow and docker-gid-mismatch, each changed where a
// check must change its answer.  Removing a check makes its case fail.
#include "support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

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

fs::path copy_fixture(const TempDir &t, const std::string &name)
{
	const fs::path dst = t.path() / "root";
	fs::copy(fs::path(RDNAFIX_FIXTURES) / name / "root", dst,
		 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
	return dst;
}

void write(const fs::path &p, const std::string &text)
{
	fs::create_directories(p.parent_path());
	std::ofstream out(p, std::ios::trunc);
	out << text;
	REQUIRE(out.good());
}

json status(const fs::path &root, const std::string &user, const std::string &env = "")
{
	std::vector<std::string> args{"status", "--json", "--root", root.string(), "--user", user};
	fs::path envf = root.parent_path() / "env";
	write(envf, env);
	args.push_back("--env");
	args.push_back(envf.string());
	auto r = run_rdnactl(args);
	INFO(r.out << r.err);
	REQUIRE((r.exit_code == 0 || r.exit_code == 1));
	return json::parse(r.out);
}

std::vector<std::string> ids(const json &j)
{
	std::vector<std::string> out;
	for (const auto &f : j["findings"])
		out.push_back(f["id"]);
	return out;
}

bool has(const json &j, const std::string &id)
{
	auto v = ids(j);
	return std::find(v.begin(), v.end(), id) != v.end();
}

const std::string kWslEnv = "WSL_DISTRO_NAME=Ubuntu-22.04\n";

} // namespace

TEST_CASE("WSL2 with /dev/dxg: WSL-001, no false 'no GPU', no module or boot remedy", "[platform][wsl]")
{
	TempDir t;
	auto root = copy_fixture(t, "wsl2");
	auto j = status(root, "alice", kWslEnv);
	CHECK(j["wsl"]["kind"] == "wsl2");
	CHECK(j["wsl"]["dxg"]["major"] == 10);
	CHECK(has(j, "RDNA-WSL-001"));
	CHECK_FALSE(has(j, "RDNA-GPU-001"));
	CHECK_FALSE(has(j, "RDNA-ACC-001"));
	CHECK_FALSE(has(j, "RDNA-DRV-001"));
	for (const auto &id : ids(j)) {
		CHECK(id.rfind("RDNA-CFG-", 0) != 0);
		CHECK(id.rfind("RDNA-MOD-", 0) != 0);
	}
	// A module option that would give RDNA-DRV-005 on a real kernel proposes nothing here.
	write(root / "etc/modprobe.d/amdgpu.conf", "options amdgpu gttsize=4096\n");
	auto j2 = status(root, "alice", kWslEnv);
	for (const auto &id : ids(j2))
		CHECK(id.rfind("RDNA-DRV-", 0) != 0);
	auto fix = run_rdnactl({"fix", "--dry-run", "--root", root.string(), "--user", "alice"});
	INFO(fix.out << fix.err);
	CHECK_THAT(fix.out + fix.err, !ContainsSubstring("modprobe.d/rdnafix.conf"));
}

TEST_CASE("WSL2 without /dev/dxg, WSL1", "[platform][wsl]")
{
	TempDir t;
	auto root = copy_fixture(t, "wsl2");
	fs::remove(root / "dev/dxg");
	write(root / "dev/.devnodes", "");
	auto j = status(root, "alice", kWslEnv);
	CHECK(has(j, "RDNA-WSL-002"));
	CHECK_FALSE(has(j, "RDNA-WSL-001"));
	CHECK_FALSE(has(j, "RDNA-GPU-001"));

	write(root / "proc/sys/kernel/osrelease", "4.4.0-19041-Microsoft\n");
	write(root / "proc/version", "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)\n");
	auto j1 = status(root, "alice", kWslEnv);
	CHECK(j1["wsl"]["kind"] == "wsl1");
	CHECK(has(j1, "RDNA-WSL-003"));
	CHECK_FALSE(has(j1, "RDNA-GPU-001"));
}

TEST_CASE("ROCm on WSL2: runtime library, HSA_ENABLE_DXG_DETECTION, shadowing, libdxcore", "[platform][wsl]")
{
	TempDir t;
	auto root = copy_fixture(t, "wsl2");
	CHECK_FALSE(has(status(root, "alice", kWslEnv), "RDNA-WSL-004"));
	fs::remove(root / "var/lib/dpkg/info/hsa-runtime-rocr4wsl-amdgpu.list");
	CHECK(has(status(root, "alice", kWslEnv), "RDNA-WSL-004"));

	write(root / "opt/rocm/lib/librocdxg.so.1", "");
	write(root / "opt/rocm/.info/version", "7.2.1\n");
	auto j = status(root, "alice", kWslEnv);
	CHECK_FALSE(has(j, "RDNA-WSL-004"));
	CHECK(has(j, "RDNA-WSL-005"));
	auto env = run_rdnactl(
		{"env", "--root", root.string(), "--user", "alice", "--env", (root.parent_path() / "env").string()});
	CHECK_THAT(env.out, ContainsSubstring("export HSA_ENABLE_DXG_DETECTION="));
	CHECK_FALSE(has(status(root, "alice", kWslEnv + "HSA_ENABLE_DXG_DETECTION=1\n"), "RDNA-WSL-005"));
	write(root / "opt/rocm/.info/version", "7.13.0\n");
	CHECK_FALSE(has(status(root, "alice", kWslEnv), "RDNA-WSL-005"));

	CHECK_FALSE(has(status(root, "alice", kWslEnv), "RDNA-WSL-006"));
	write(root / "usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1", "");
	CHECK(has(status(root, "alice", kWslEnv), "RDNA-WSL-006"));

	CHECK_FALSE(has(status(root, "alice", kWslEnv), "RDNA-WSL-007"));
	fs::remove(root / "usr/lib/wsl/lib/libdxcore.so");
	CHECK(has(status(root, "alice", kWslEnv), "RDNA-WSL-007"));
}

TEST_CASE("rootless distrobox: nodes owned by nogroup, membership of nogroup grants nothing", "[platform][container]")
{
	TempDir t;
	auto root = copy_fixture(t, "rootless-podman-overflow");
	auto j = status(root, "wayne", "DISTROBOX_ENTER_PATH=/usr/bin/distrobox-enter\n");
	CHECK(j["access"]["container_facts"]["kind"] == "distrobox");
	CHECK(j["access"]["container_facts"]["rootless"] == true);
	CHECK(j["access"]["container_facts"]["engine"] == "podman-4.9.3");
	CHECK(j["access"]["userns"]["gid_map"].size() == 3);
	CHECK(has(j, "RDNA-ACC-006"));
	int n = 0;
	for (const auto &f : j["findings"])
		if (f["id"] == "RDNA-ACC-007") {
			++n;
			CHECK_THAT(f["fix"].get<std::string>(), ContainsSubstring("keep-groups"));
		}
	CHECK(n == 2); // /dev/kfd and renderD128
	// Without the container and with the initial namespace the old verdict
	// stands (wayne is in nogroup): no RDNA-ACC-007.
	fs::remove(root / "run/.containerenv");
	write(root / "proc/self/uid_map", "0 0 4294967295\n");
	write(root / "proc/self/gid_map", "0 0 4294967295\n");
	CHECK_FALSE(has(status(root, "wayne"), "RDNA-ACC-007"));
}

TEST_CASE("Docker with the host's render gid unnamed in the image: --group-add <gid>", "[platform][container]")
{
	TempDir t;
	auto root = copy_fixture(t, "docker-gid-mismatch");
	auto j = status(root, "rocm-user");
	CHECK(j["access"]["container_facts"]["kind"] == "docker");
	int n = 0;
	for (const auto &f : j["findings"]) {
		CHECK(f["id"] != "RDNA-ACC-002");
		if (f["id"] == "RDNA-ACC-008") {
			++n;
			CHECK_THAT(f["fix"].get<std::string>(), ContainsSubstring("docker run ... --group-add 109"));
		}
	}
	CHECK(n == 2);
	// Outside a container the same tree gives the host's finding instead.
	fs::remove(root / ".dockerenv");
	auto h = status(root, "rocm-user");
	CHECK_FALSE(has(h, "RDNA-ACC-008"));
	CHECK(has(h, "RDNA-ACC-002"));
}
