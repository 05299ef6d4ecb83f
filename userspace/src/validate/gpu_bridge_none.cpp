// Used when rdnactl is built without the GPU backend (userspace/src/validate/gpu).
#include "child.hpp"

namespace rdnafix::validate {

bool gpu_backend_built()
{
	return false;
}

CaseResult run_gpu_case(const CaseDef &c, const ChildOptions &)
{
	CaseResult r;
	r.name = c.name;
	r.status = Status::error;
	r.reason = "this rdnactl was built without the GPU backend";
	return r;
}

nlohmann::json run_gpu_probe(const std::string &)
{
	return {{"state", "no_backend"},
		{"report", "this rdnactl was built without the GPU backend (userspace/src/validate/gpu); "
			   "no HIP or CUDA runtime was looked for"}};
}

} // namespace rdnafix::validate
