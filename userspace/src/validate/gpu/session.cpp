// Session: probe, open the device, compile (or load from the code-object
// cache) the validation kernels; and the list of their names.
#include <chrono>
#include <cstdlib>
#include <exception>
#include <thread>

#include "gpu_cases.hpp"

namespace rdnafix::gpu {

// ---------------------------------------------------------------- kernel names
const std::vector<std::string> &validation_kernel_names()
{
	static const std::vector<std::string> names = [] {
		std::vector<std::string> n;
		for (const char *t : {"f32", "f16"}) {
			for (int r : {1, 3, 0})
				for (int m : {128, 64, 32})
					n.push_back(std::string("conv2d_gemm_") + t + "_r" + std::to_string(r) + "_m" +
						    std::to_string(m));
			for (int r : {3, 0})
				n.push_back(std::string("conv2d_dw_") + t + "_r" + std::to_string(r));
		}
		for (int r : {1, 3, 0})
			n.push_back("conv2d_tc_f16_r" + std::to_string(r));
		for (const char *s :
		     {"stream_copy", "stream_triad", "stream_init", "stream_check", "fill_pattern", "verify_pattern"})
			n.push_back(s);
		return n;
	}();
	return names;
}

int kernel_part(const std::string &name)
{
	// The #if RDNA_IN_PART(n) blocks of kernels/*.cu, in the same order.
	static const char *const prefixes[] = {"conv2d_gemm_f32_r1", "conv2d_gemm_f32_r3", "conv2d_gemm_f32_r0",
					       "conv2d_gemm_f16_r1", "conv2d_gemm_f16_r3", "conv2d_gemm_f16_r0",
					       "conv2d_dw_",         "conv2d_tc_f16_r1",   "stream_",
					       "conv2d_tc_f16_r3",   "conv2d_tc_f16_r0"};
	for (int i = 0; i < int(std::size(prefixes)); ++i)
		if (name.starts_with(prefixes[i]))
			return i;
	return 8; // capacity, with stream
}

// ---------------------------------------------------------------- Session
Session::~Session() = default;

namespace {

// NVRTC compiles one program on one thread, and the whole set takes seconds:
// on CUDA every part (kernel_part) is a program of its own, all compiled at
// once.  hiprtc compiles in a forked child (rtc.cpp): one program, as before.
std::vector<CompileRequest> compile_requests(Api api, const std::string &target)
{
	CompileRequest all;
	all.source = validation_kernel_source();
	all.target = target;
	if (api != Api::cuda) {
		all.kernel_names = validation_kernel_names();
		return {all};
	}
	std::vector<CompileRequest> parts;
	for (const auto &n : validation_kernel_names()) {
		const int p = kernel_part(n);
		if (std::size_t(p) >= parts.size())
			parts.resize(std::size_t(p) + 1, all);
		parts[std::size_t(p)].kernel_names.push_back(n);
	}
	for (std::size_t i = 0; i < parts.size(); ++i)
		parts[i].options = {"-DRDNA_PART=" + std::to_string(i)};
	std::erase_if(parts, [](const CompileRequest &r) { return r.kernel_names.empty(); });
	return parts;
}

} // namespace

std::unique_ptr<Session> Session::open(const SessionOptions &opt, std::vector<ProbeResult> *probes)
{
	std::vector<Api> apis;
	if (opt.api)
		apis.push_back(*opt.api);
	else
		apis = {Api::hip, Api::cuda};
	ProbeResult chosen;
	std::string why;
	bool found = false;
	for (Api a : apis) {
		ProbeResult pr = probe(a, opt.search);
		if (probes)
			probes->push_back(pr);
		if (pr.state == ProbeState::ok && !found) {
			chosen = pr;
			found = true;
			break;
		}
		why += (why.empty() ? "" : "\n") + pr.describe();
	}
	if (!found)
		throw GpuError("probe", -1, why);
	std::unique_ptr<Session> s(new Session());
	s->be_ = Backend::open(chosen, opt.device);
	std::string rtc_why;
	s->rtc_ = load_rtc(chosen, opt.search, &rtc_why);
	if (!s->rtc_)
		throw GpuError("load compiler", -1, rtc_why);
	if (opt.use_cache)
		s->rtc_->set_cache_dir(!opt.cache_dir.empty()
					       ? opt.cache_dir
					       : default_cache_dir(std::getenv("XDG_CACHE_HOME"), std::getenv("HOME")));
	const auto &dev = s->be_->device();
	if (dev.arch_full.empty())
		throw GpuError("compile", -1, "the runtime did not report the GPU architecture of " + dev.name);
	const auto t0 = std::chrono::steady_clock::now();
	const auto reqs = compile_requests(chosen.api, dev.arch_full);
	std::vector<CompileResult> done(reqs.size());
	std::vector<std::exception_ptr> failed(reqs.size());
	const auto compile_one = [&](std::size_t i) {
		try {
			done[i] = s->rtc_->compile(reqs[i]);
		} catch (...) {
			failed[i] = std::current_exception();
		}
	};
	if (reqs.size() == 1) {
		compile_one(0); // hiprtc forks its compile child from this thread
	} else {
		std::vector<std::jthread> threads;
		for (std::size_t i = 0; i < reqs.size(); ++i)
			threads.emplace_back(compile_one, i);
	}
	for (const auto &f : failed)
		if (f)
			std::rethrow_exception(f);
	s->compiled_ = done.front();
	s->compiled_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	for (std::size_t i = 0; i < done.size(); ++i) {
		if (i > 0) {
			s->compiled_.from_cache = s->compiled_.from_cache && done[i].from_cache;
			s->compiled_.code.insert(s->compiled_.code.end(), done[i].code.begin(), done[i].code.end());
			s->compiled_.log += done[i].log;
		}
		s->mods_.push_back(s->be_->load_module(done[i].code));
		for (const auto &n : reqs[i].kernel_names)
			s->fns_.push_back(s->mods_.back().function(n));
	}
	if (s->compiled_.from_cache)
		s->compiled_.seconds = 0;
	return s;
}

const Function &Session::fn(const std::string &name) const
{
	for (const auto &f : fns_)
		if (f.name == name)
			return f;
	throw GpuError("kernel", -1, "no kernel named " + name);
}
} // namespace rdnafix::gpu
