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
//   rtc_check cache-hit DIR T  compile for T with cache DIR: must come from the cache
// Options before the mode: --api hip|cuda, --cache DIR (compile with a cache),
// --out DIR (write each code object to DIR/<target>.co for independent checks).
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
	std::string cache_dir, out_dir;
	while (args.size() >= 2 && args[0].rfind("--", 0) == 0) {
		if (args[0] == "--api")
			api = args[1] == "cuda" ? g::Api::cuda : g::Api::hip;
		else if (args[0] == "--cache")
			cache_dir = args[1];
		else if (args[0] == "--out")
			out_dir = args[1];
		else
			break;
		args.erase(args.begin(), args.begin() + 2);
	}
	if (args.empty()) {
		fprintf(stderr, "usage: rtc_check [--api hip|cuda] probe | compile T... | unknown-target | "
				"crash-isolation | cache-hit DIR T\n");
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
	rtc->set_cache_dir(cache_dir);
	if (mode == "compile") {
		for (size_t i = 1; i < args.size(); ++i) {
			try {
				auto t0 = std::chrono::steady_clock::now();
				auto r = rtc->compile(request(args[i]));
				double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
				std::string bad = g::check_code_object(api, r.code, g::validation_kernel_names());
				int mach = g::elf_machine(r.code);
				char what[256];
				snprintf(what, sizeof what,
					 "compile %zu kernels for %s: %zu-byte ELF, e_machine %d (%s), %.2f s",
					 g::validation_kernel_names().size(), args[i].c_str(), r.code.size(), mach, em,
					 s);
				result(bad.empty(), what, bad);
				if (!out_dir.empty()) {
					std::string path = out_dir + "/" + args[i] + ".co";
					FILE *f = fopen(path.c_str(), "wb");
					bool ok = f && fwrite(r.code.data(), 1, r.code.size(), f) == r.code.size();
					ok = (f && fclose(f) == 0) && ok;
					result(ok, "write " + path, "cannot write");
				}
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
			bool ok = mode == "unknown-target"
					  ? m.find("not known to comgr") != std::string::npos ||
						    m.find("not supported by NVRTC") != std::string::npos
					  : true; // any clean error (abort -> "compiler crashed: SIGABRT")
			result(ok, mode + " " + target + " is an error, not a crash", m);
		}
	} else if (mode == "cache-hit" && args.size() == 3) {
		rtc->set_cache_dir(args[1]);
		try {
			auto t0 = std::chrono::steady_clock::now();
			auto a = rtc->compile(request(args[2]));
			double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
			char what[512];
			snprintf(what, sizeof what, "compile for %s comes from the cache (%s, %.3f s)", args[2].c_str(),
				 a.cache_file.c_str(), s);
			result(a.from_cache, what, "it was compiled again");
		} catch (const g::GpuError &e) {
			result(false, "cache-hit", e.what());
		}
	} else {
		fprintf(stderr, "unknown mode '%s'\n", mode.c_str());
		return 2;
	}
	return failures ? 1 : 0;
}
