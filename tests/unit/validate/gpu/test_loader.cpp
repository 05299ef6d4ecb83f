// Loader: where rdnactl looks for a GPU runtime, and what it says when it
// finds nothing, a broken library, or a runtime without a device.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>

#include "gpu_cases.hpp"
#include "loader.hpp"
#include "test_util.hpp"

using namespace rdnafix::gpu;

namespace {
bool has(const std::string &text, const std::string &what)
{
	return text.find(what) != std::string::npos;
}

SearchConfig only_dir(const std::string &dir)
{
	SearchConfig c;
	c.explicit_dir = dir;
	c.only_explicit = true;
	return c;
}
} // namespace

TEST_CASE("no HIP runtime: the report says so and lists every place looked")
{
	gputest::TempDir dir;
	ProbeResult r = probe(Api::hip, only_dir(dir.path));
	REQUIRE(r.state == ProbeState::no_runtime);
	std::string text = r.describe();
	CHECK(has(text, "no HIP runtime found"));
	CHECK(has(text, "looked in:"));
	for (const char *n : {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so",
			      "libhiprtc.so.7", "libhiprtc.so.6", "libamd_comgr.so.3", "libamd_comgr.so.2"})
		CHECK(has(text, dir.path + "/" + n + ": not found"));
	auto runtime_attempts = std::count_if(r.attempts.begin(), r.attempts.end(),
					      [](const LoadAttempt &a) { return a.what == "runtime"; });
	CHECK(runtime_attempts == 4);
	CHECK(r.runtime_path.empty());
}

TEST_CASE("no CUDA runtime: the report lists libcuda and NVRTC places")
{
	gputest::TempDir dir;
	ProbeResult r = probe(Api::cuda, only_dir(dir.path));
	REQUIRE(r.state == ProbeState::no_runtime);
	std::string text = r.describe();
	CHECK(has(text, "no CUDA runtime found"));
	CHECK(has(text, dir.path + "/libcuda.so.1: not found"));
	CHECK(has(text, dir.path + "/libnvrtc.so.13: not found"));
	CHECK_FALSE(has(text, "comgr")); // HIP only
}

TEST_CASE("candidate order: explicit, ROCm paths, python wheels, multiarch, sonames")
{
	SearchConfig c;
	c.explicit_dir = "/x";
	c.rocm_paths = {"/env/rocm", "/opt/rocm", "/x/.."};
	c.python_lib_dirs = {"/site/torch/lib", "/site/_rocm_sdk_core/lib"};
	c.multiarch_dir = "/usr/lib/x86_64-linux-gnu";
	auto v = runtime_candidates(Api::hip, c);
	REQUIRE(v.size() == 7 * 4 + 3);
	CHECK(v[0] == "/x/libamdhip64.so.7");
	CHECK(v[3] == "/x/libamdhip64.so");
	CHECK(v[4] == "/env/rocm/lib/libamdhip64.so.7");
	CHECK(v[8] == "/opt/rocm/lib/libamdhip64.so.7");
	CHECK(v[16] == "/site/torch/lib/libamdhip64.so.7");
	CHECK(v[20] == "/site/_rocm_sdk_core/lib/libamdhip64.so.7");
	CHECK(v[24] == "/usr/lib/x86_64-linux-gnu/libamdhip64.so.7");
	CHECK(v[28] == "libamdhip64.so.7"); // plain sonames last, versioned only
	CHECK(v[30] == "libamdhip64.so.5");

	// The compiler and comgr are looked for next to the runtime first.
	auto rtc = rtc_candidates(Api::hip, c, "/site/torch/lib/libamdhip64.so");
	CHECK(rtc[0] == "/site/torch/lib/libhiprtc.so.7");
	CHECK(rtc[2] == "/site/torch/lib/libhiprtc.so");
	CHECK(std::count(rtc.begin(), rtc.end(), "/site/torch/lib/libhiprtc.so.7") == 1); // no duplicates
	auto comgr = comgr_candidates(c, "/opt/rocm/lib/libamdhip64.so.6");
	CHECK(comgr[0] == "/opt/rocm/lib/libamd_comgr.so.3");

	c.use_system_search = false;
	auto v2 = runtime_candidates(Api::hip, c);
	CHECK(std::none_of(v2.begin(), v2.end(),
			   [](const std::string &s) { return s.find('/') == std::string::npos; }));

	auto cu = runtime_candidates(Api::cuda, c);
	CHECK(cu[0] == "/x/libcuda.so.1");
	CHECK(cu[2] == "/usr/local/nvidia/lib64/libcuda.so.1");
}

TEST_CASE("a runtime library missing entry points is refused, naming them")
{
	ProbeResult r = probe(Api::hip, only_dir(FAKE_HIP_PARTIAL_DIR));
	REQUIRE(r.state == ProbeState::no_runtime);
	auto it = std::find_if(r.attempts.begin(), r.attempts.end(), [](const LoadAttempt &a) {
		return a.path == std::string(FAKE_HIP_PARTIAL_DIR) + "/libamdhip64.so";
	});
	REQUIRE(it != r.attempts.end());
	CHECK_FALSE(it->ok);
	// hipInit and hipGetDeviceCount exist; the first missing one is named.
	CHECK(has(it->detail, "missing symbols hipRuntimeGetVersion, hipDriverGetVersion"));
	CHECK(has(it->detail, "more)"));
	CHECK_FALSE(has(it->detail, "hipInit"));
	CHECK(has(r.describe(), "missing symbols hipRuntimeGetVersion"));
}

TEST_CASE("runtime but no device: hipErrorNoDevice = 100 with the runtime's text")
{
	ProbeResult r = probe(Api::hip, only_dir(FAKE_HIP_NODEVICE_DIR));
	REQUIRE(r.state == ProbeState::runtime_no_device);
	CHECK(r.init_error == 100);
	CHECK(r.runtime_version == 60443484);
	CHECK(r.runtime_path == std::string(FAKE_HIP_NODEVICE_DIR) + "/libamdhip64.so");
	std::string text = r.describe();
	CHECK(has(text, "HIP runtime 6.4.43484"));
	CHECK(has(text, "but no device: hipInit: hipErrorNoDevice = 100 (no ROCm-capable device is detected)"));
	CHECK(has(text, "looked in:"));
	CHECK_THROWS_AS(Backend::open(r, 0), GpuError);
}

TEST_CASE("Session::open without any runtime fails with both reports, no crash")
{
	gputest::TempDir dir;
	SessionOptions o;
	o.search = only_dir(dir.path);
	std::vector<ProbeResult> probes;
	try {
		Session::open(o, &probes);
		FAIL("Session::open succeeded without a runtime");
	} catch (const GpuError &e) {
		std::string m = e.what();
		CHECK(has(m, "no HIP runtime found"));
		CHECK(has(m, "no CUDA runtime found"));
	}
	REQUIRE(probes.size() == 2);
	CHECK(probes[0].api == Api::hip);
	CHECK(probes[1].api == Api::cuda);
}
