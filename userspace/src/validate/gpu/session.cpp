// Session: probe, open the device, compile (or load from the code-object
// cache) the validation kernels; and the list of their names.
#include <cstdlib>

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

// ---------------------------------------------------------------- Session
Session::~Session() = default;

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
	CompileRequest req;
	req.source = validation_kernel_source();
	req.kernel_names = validation_kernel_names();
	req.target = dev.arch_full;
	s->compiled_ = s->rtc_->compile(req);
	s->mod_ = s->be_->load_module(s->compiled_.code);
	for (const auto &n : validation_kernel_names())
		s->fns_.push_back(s->mod_.function(n));
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
