// The real rdnactl binary, run as a user would, on this machine without any GPU
// runtime: clear "could not run" (exit 2), isolation results as exit 1, bad
// input as exit 2 with the option named, and the history command.
#include <catch2/catch_test_macros.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "isolation.hpp"

using namespace rdnafix::validate;
using rdnafix::io::ChildSpec;
using rdnafix::io::run_child;

namespace {

struct Out {
	int rc = -1;
	std::string text; // stdout + stderr
	double seconds = 0;
};

Out rdnactl(std::vector<std::string> args, double timeout = 120)
{
	ChildSpec spec{RDNACTL_PATH, std::move(args), timeout, 2};
	spec.output_tail_bytes = 1 << 22;
	const auto o = run_child(spec);
	REQUIRE(o.exited);
	return {o.exit_code, o.output_tail, o.seconds};
}

struct TempDir {
	std::string path;
	TempDir()
	{
		char tmpl[] = "/tmp/rdnafix-cli-test-XXXXXX";
		REQUIRE(::mkdtemp(tmpl));
		path = tmpl;
	}
	~TempDir() { std::filesystem::remove_all(path); }
};

} // namespace

TEST_CASE("validate without any GPU runtime: exit 2 and the probe report", "[cli]")
{
	const auto o = rdnactl({"validate", "--no-history"});
	INFO(o.text);
	REQUIRE(o.rc == 2);
	REQUIRE(o.text.find("cannot run the GPU cases") != std::string::npos);
	// either this build has no backend, or the report lists where it looked
	const bool no_backend = o.text.find("built without the GPU backend") != std::string::npos;
	const bool looked = o.text.find("looked in: ") != std::string::npos;
	REQUIRE((no_backend || looked));
	if (looked) { // the places are counted, listed with --verbose
		CHECK(o.text.find("/opt/rocm") == std::string::npos);
		const auto v = rdnactl({"validate", "--no-history", "--verbose"});
		CHECK(v.rc == 2);
		CHECK(v.text.find("/opt/rocm") != std::string::npos);
	}
}

TEST_CASE("validate: crash and pass cases in one run; JSON output; exit 1", "[cli]")
{
	const auto o = rdnactl({"validate", "--case", "selftest.segv", "--case", "selftest.pass", "--case",
				"selftest.abort", "--no-history", "--json"});
	INFO(o.text);
	REQUIRE(o.rc == 1);
	const auto j = nlohmann::json::parse(o.text);
	REQUIRE(j["cases"].size() == 3);
	REQUIRE(j["cases"][0]["status"] == "crash");
	REQUIRE(j["cases"][1]["status"] == "pass");
	REQUIRE(j["cases"][2]["status"] == "crash");
	REQUIRE(j["exit_code"] == 1);
	REQUIRE(j["kernel_release"].get<std::string>().size() > 0);
}

TEST_CASE("validate: a passing run exits 0 and prints the table", "[cli]")
{
	const auto o = rdnactl({"validate", "--case", "selftest.pass", "--no-history"});
	INFO(o.text);
	REQUIRE(o.rc == 0);
	REQUIRE(o.text.find("GFLOP/s") != std::string::npos);
	REQUIRE(o.text.find("selftest.pass") != std::string::npos);
	REQUIRE(o.text.find("1 passed, 0 failed, 0 skipped") != std::string::npos);
	REQUIRE(o.text.find("\033[K") == std::string::npos); // no progress line when stderr is not a TTY
}

TEST_CASE("validate --inject-error makes the case fail", "[cli][inject]")
{
	const auto o = rdnactl({"validate", "--case", "selftest.pass", "--inject-error", "--no-history"});
	INFO(o.text);
	REQUIRE(o.rc == 1);
	REQUIRE(o.text.find("selftest.pass: fail: 1 of ") != std::string::npos);
}

TEST_CASE("validate: a hang is reported within the timeout", "[cli]")
{
	const auto o = rdnactl({"validate", "--case", "selftest.hang-ignore-term", "--timeout", "1", "--kill-grace",
				"1", "--no-history"},
			       30);
	INFO(o.text);
	REQUIRE(o.rc == 1);
	REQUIRE(o.text.find("hang") != std::string::npos);
	REQUIRE(o.text.find("SIGKILL") != std::string::npos);
	REQUIRE(o.seconds < 10);
}

TEST_CASE("validate: bad input names the input and exits 2", "[cli]")
{
	auto o = rdnactl({"validate", "--case", "conv.nope", "--no-history"});
	REQUIRE(o.rc == 2);
	REQUIRE(o.text.find("unknown case 'conv.nope'") != std::string::npos);
	o = rdnactl({"validate", "--timeout", "-1"});
	REQUIRE(o.rc == 2);
	REQUIRE(o.text.find("--timeout") != std::string::npos);
	o = rdnactl({"validate", "--capacity-fraction", "2"});
	REQUIRE(o.rc == 2);
	REQUIRE(o.text.find("--capacity-fraction") != std::string::npos);
	o = rdnactl({"validate", "--quick", "--full"});
	REQUIRE(o.rc == 2);
	o = rdnactl({"validate", "--api", "opencl"});
	REQUIRE(o.rc == 2);
	REQUIRE(o.text.find("--api") != std::string::npos);
}

TEST_CASE("validate --list shows the cases and where they come from, not the selftests", "[cli]")
{
	const auto o = rdnactl({"validate", "--list"});
	REQUIRE(o.rc == 0);
	REQUIRE(o.text.find("conv.resnet50-conv2x-3x3.f32") != std::string::npos);
	REQUIRE(o.text.find("ResNet-50 conv2_x: 3x3 64->64, 56x56") != std::string::npos);
	REQUIRE(o.text.find("mem.managed.") != std::string::npos);
	REQUIRE(o.text.find("selftest") == std::string::npos);
}

TEST_CASE("validate --case torch.conv2d without torch is a skip with the reason", "[cli][torch]")
{
	const auto o = rdnactl({"validate", "--case", "torch.conv2d", "--no-history", "--json"});
	INFO(o.text);
	REQUIRE(o.rc == 0);
	const auto j = nlohmann::json::parse(o.text);
	const auto &c = j["cases"][0];
	if (c["status"] != "skip")
		SKIP("python3 here can import torch: " << c.dump());
	const std::string reason = c["reason"];
	const bool ok = reason.find("torch not importable") != std::string::npos ||
			reason.find("python3 not found") != std::string::npos ||
			reason.find("is_available() is False") != std::string::npos;
	REQUIRE(ok);
}

TEST_CASE("validate records history and `rdnactl history` lists it", "[cli][history]")
{
	TempDir d;
	const std::string db = d.path + "/sub/history.db";
	auto o = rdnactl({"history", "--history-db", db}); // named but missing: an error, nothing created
	REQUIRE(o.rc == 2);
	REQUIRE(o.text.find("no history database at " + db) != std::string::npos);
	o = rdnactl({"validate", "--case", "selftest.pass", "--history-db", db});
	INFO(o.text);
	REQUIRE(o.rc == 0);
	REQUIRE(o.text.find("recorded as run 1 in " + db) != std::string::npos);
	o = rdnactl({"validate", "--case", "selftest.segv", "--case", "selftest.pass", "--history-db", db});
	REQUIRE(o.rc == 1);
	o = rdnactl({"history", "--history-db", db, "--json"});
	INFO(o.text);
	REQUIRE(o.rc == 0); // same kernel: nothing to compare
	const auto j = nlohmann::json::parse(o.text);
	REQUIRE(j["runs"].size() == 2);
	REQUIRE(j["runs"][1]["cases"][0]["status"] == "crash");
	REQUIRE(j["regressions"].empty());
	o = rdnactl({"history", "--history-db", db});
	REQUIRE(o.text.find("no regressions\n") != std::string::npos);
}

TEST_CASE("kernel-log lines written while a case runs are attached to it, decoded", "[cli][kmsg][root]")
{
	if (::geteuid() != 0)
		SKIP("writing /dev/kmsg needs root");
	const auto o =
		rdnactl({"validate", "--case", "selftest.pass", "--case", "selftest.kmsg", "--no-history", "--json"});
	INFO(o.text);
	REQUIRE(o.rc == 0);
	const auto j = nlohmann::json::parse(o.text);
	REQUIRE_FALSE(j["cases"][0].contains("kernel_log")); // nothing written during the first case
	const auto &kl = j["cases"][1]["kernel_log"];
	REQUIRE(kl.size() >= 1);
	bool found = false;
	for (const auto &e : kl)
		if (e["kind"] == "fault-status" && e["decoded"]["client"] == "TCP" &&
		    e["decoded"]["permission_faults"] == 3 && e["decoded"]["vmid"] == 7)
			found = true;
	REQUIRE(found);
	const auto t = rdnactl({"validate", "--case", "selftest.kmsg", "--no-history"});
	REQUIRE(t.text.find(
			"decoded: GCVM_L2_PROTECTION_FAULT_STATUS=0x00701031: client TCP (0x8), read access, vmid 7") !=
		std::string::npos);
}

TEST_CASE("without permission to read the kernel log the result says so", "[cli][kmsg][root]")
{
	std::ifstream restrict_file("/proc/sys/kernel/dmesg_restrict");
	int restrict_v = 0;
	restrict_file >> restrict_v;
	if (::geteuid() != 0 || restrict_v != 1 || ::access("/usr/bin/setpriv", X_OK) != 0)
		SKIP("needs root, kernel.dmesg_restrict=1 and setpriv to run rdnactl as an unprivileged user");
	// The case child re-executes rdnactl, which the unprivileged user must be able to reach:
	// run a copy from a world-readable directory, so a checkout below a private directory
	// (e.g. one made by mktemp -d) does not decide the outcome.
	namespace fs = std::filesystem;
	char tmpl[] = "/tmp/rdnafix-kmsg-XXXXXX";
	REQUIRE(::mkdtemp(tmpl) != nullptr);
	const fs::path dir = tmpl;
	fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
				     fs::perms::others_read | fs::perms::others_exec);
	const fs::path exe = dir / "rdnactl";
	fs::copy_file(RDNACTL_PATH, exe);
	ChildSpec spec{"/usr/bin/setpriv",
		       {"--reuid=65534", "--regid=65534", "--clear-groups", "--", exe.string(), "validate", "--case",
			"selftest.pass", "--no-history", "--json"},
		       60,
		       2};
	spec.output_tail_bytes = 1 << 20;
	const auto o = run_child(spec);
	fs::remove_all(dir);
	INFO(o.output_tail);
	if (!o.exited || o.output_tail.find("\"cases\"") == std::string::npos)
		SKIP("the unprivileged user cannot execute a copy of rdnactl in /tmp here");
	const auto j = nlohmann::json::parse(o.output_tail);
	REQUIRE(j["cases"][0]["status"] == "pass");
	const std::string note = j["cases"][0]["kernel_log_note"];
	REQUIRE(note.find("kernel log not captured: cannot open /dev/kmsg: operation not permitted (EPERM)") == 0);
}

namespace {

// Runs a private copy of rdnactl (so that its case worker, `<copy> __child
// worker`, is told apart from any other) on a case that ignores SIGTERM,
// sends rdnactl `sig` after 1 s, and reports rdnactl's status and whether the
// worker outlived it.  (A background job of sh starts with SIGQUIT and
// SIGINT ignored, which rdnactl keeps: env gives them back their defaults.)
std::string signal_rdnactl(const char *sig)
{
	TempDir d;
	const std::string exe = d.path + "/rdnactl";
	std::filesystem::copy_file(RDNACTL_PATH, exe);
	ChildSpec spec{"/bin/sh",
		       {"-c", "ulimit -c 0; env --default-signal=QUIT,INT " + exe +
				      " validate --case selftest.hang-ignore-term --timeout 60 --no-history & p=$!; "
				      "sleep 1; pgrep -f '^" +
				      exe + " __child' >/dev/null && echo worker-started; kill -" + sig +
				      " $p; wait $p; echo rdnactl-status=$?; sleep 0.5; pgrep -f '^" + exe +
				      " __child' >/dev/null && echo child-alive || echo child-gone; pkill -KILL -f '^" +
				      exe + " __child'; true"},
		       30,
		       2};
	const auto o = run_child(spec);
	REQUIRE(o.seconds < 10);
	return o.output_tail;
}

} // namespace

TEST_CASE("SIGTERM to rdnactl also ends the case child it is waiting for", "[cli][isolation]")
{
	const auto out = signal_rdnactl("TERM");
	INFO(out);
	REQUIRE(out.find("worker-started") != std::string::npos);
	REQUIRE(out.find("rdnactl-status=143") != std::string::npos); // died of SIGTERM
	REQUIRE(out.find("child-gone") != std::string::npos);
}

TEST_CASE("SIGQUIT to rdnactl also ends the case child it is waiting for", "[cli][isolation]")
{
	const auto out = signal_rdnactl("QUIT");
	INFO(out);
	REQUIRE(out.find("worker-started") != std::string::npos);
	REQUIRE(out.find("rdnactl-status=131") != std::string::npos); // died of SIGQUIT
	REQUIRE(out.find("child-gone") != std::string::npos);
}

TEST_CASE("SIGKILL to rdnactl ends the case child too (PR_SET_PDEATHSIG)", "[cli][isolation]")
{
	const auto out = signal_rdnactl("KILL");
	INFO(out);
	REQUIRE(out.find("worker-started") != std::string::npos);
	REQUIRE(out.find("rdnactl-status=137") != std::string::npos);
	REQUIRE(out.find("child-gone") != std::string::npos);
}
