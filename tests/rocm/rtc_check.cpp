// Test program for tests/rocm/run.sh: built on the host with plain g++ (links
// only libc, libstdc++, libdl) from the rdnafix GPU backend sources, copied
// into a Debian chroot that has the real HIP runtime, hiprtc and comgr.
//
//   rtc_check probe            expect "runtime but no device" (hipErrorNoDevice = 100)
//   rtc_check compile T...     compile every validation kernel for each target T,
//                              check AMDGPU ELF (EM_AMDGPU = 224) + every kernel symbol
//   rtc_check unknown-target   gfx9999: refused before hiprtc is called
//   rtc_check crash-isolation  gfx9999 with the target check off: hiprtc aborts
//                              in the forked child, reported as an error
//   rtc_check cache DIR T      compile twice with a cache dir: second is from cache
// Each check prints "PASS <what>" or "FAIL <what>: <why>"; exit 1 on any FAIL.
// `--api cuda` runs the same checks against NVRTC (targets sm_NN).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "code_object.hpp"
#include "gpu_cases.hpp"

namespace g = rdnafix::gpu;

namespace {

int failures = 0;

void result(bool ok, const std::string &what, const std::string &why = "")
{
	if (ok)
		printf("PASS %s\n", what.c_str());
	else
		printf("FAIL %s: %s\n", what.c_str(), why.c_str());
	fflush(stdout);
	failures += !ok;
}

g::CompileRequest request(const std::string &target)
{
	g::CompileRequest r;
	r.source = g::validation_kernel_source();
	r.kernel_names = g::validation_kernel_names();
	r.target = target;
	return r;
}

} // namespace

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv + 1, argv + argc);
	g::Api api = g::Api::hip;
	if (args.size() >= 2 && args[0] == "--api") {
		api = args[1] == "cuda" ? g::Api::cuda : g::Api::hip;
		args.erase(args.begin(), args.begin() + 2);
	}
	if (args.empty()) {
		fprintf(stderr, "usage: rtc_check [--api hip|cuda] probe | compile T... | unknown-target | "
				"crash-isolation | cache DIR T\n");
		return 2;
	}
	g::SearchConfig cfg = g::SearchConfig::from_environment(false);
	g::ProbeResult pr = g::probe(api, cfg);
	const std::string &mode = args[0];
	const char *em = api == g::Api::hip ? "EM_AMDGPU" : "EM_CUDA";
	if (mode == "probe") {
		printf("%s\n", pr.describe().c_str());
		bool ok = pr.state == g::ProbeState::runtime_no_device && pr.init_error == 100 &&
			  pr.describe().find(api == g::Api::hip ? "hipErrorNoDevice" : "CUDA_ERROR_NO_DEVICE") !=
				  std::string::npos;
		result(ok, "probe reports runtime but no device (error 100)",
		       "state " + std::to_string(int(pr.state)) + " error " + std::to_string(pr.init_error));
		result(!pr.rtc_path.empty(), "probe found the run-time compiler", "none found");
		return failures ? 1 : 0;
	}
	std::string why;
	auto rtc = g::load_rtc(pr, cfg, &why);
	if (!rtc) {
		result(false, "load run-time compiler", why);
		return 1;
	}
	printf("compiler: %s (%s); %zu targets known\n", pr.rtc_path.c_str(), rtc->version().c_str(),
	       rtc->supported_targets().size());
	if (mode == "compile") {
		for (size_t i = 1; i < args.size(); ++i) {
			try {
				auto t0 = std::chrono::steady_clock::now();
				auto r = rtc->compile(request(args[i]));
				double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
				std::string bad = g::check_code_object(api, r.code, g::validation_kernel_names());
				int mach = g::elf_machine(r.code);
				char what[256];
				snprintf(what, sizeof what, "compile %zu kernels for %s: %zu-byte ELF, e_machine %d (%s), %.2f s",
					 g::validation_kernel_names().size(), args[i].c_str(), r.code.size(), mach, em, s);
				result(bad.empty(), what, bad);
			} catch (const g::GpuError &e) {
				result(false, "compile for " + args[i], e.what());
			}
		}
	} else if (mode == "unknown-target" || mode == "crash-isolation") {
		std::string target = api == g::Api::hip ? "gfx9999" : "sm_1";
		if (mode == "crash-isolation")
			rtc->set_check_targets(false);
		try {
			rtc->compile(request(target));
			result(false, mode + " " + target, "compile unexpectedly succeeded");
		} catch (const g::GpuError &e) {
			std::string m = e.what();
			printf("  error: %s\n", m.substr(0, 300).c_str());
			bool ok = mode == "unknown-target" ? m.find("not known to comgr") != std::string::npos ||
								     m.find("not supported by NVRTC") != std::string::npos
							   : true; // any clean error (abort -> "compiler crashed: SIGABRT")
			result(ok, mode + " " + target + " is an error, not a crash", m);
		}
	} else if (mode == "cache" && args.size() == 3) {
		rtc->set_cache_dir(args[1]);
		try {
			auto a = rtc->compile(request(args[2]));
			auto b = rtc->compile(request(args[2]));
			result(!a.from_cache && b.from_cache && a.code == b.code && !b.cache_file.empty(),
			       "second compile for " + args[2] + " comes from the cache " + b.cache_file,
			       "from_cache " + std::to_string(a.from_cache) + "/" + std::to_string(b.from_cache));
		} catch (const g::GpuError &e) {
			result(false, "cache", e.what());
		}
	} else {
		fprintf(stderr, "unknown mode '%s'\n", mode.c_str());
		return 2;
	}
	return failures ? 1 : 0;
}
