// Stands in for gpu_host.cpp when rdnactl is built without the GPU backend
// (cmake -DRDNAFIX_GPU_BACKEND=OFF): GPU cases are errors, the probe says why.
#include "cases/kinds.hpp"

namespace rdnafix::validate {

bool gpu_backend_built()
{
	return false;
}

void release_gpu_session() {}

CaseResult run_gpu_case(const CaseDef &c, const CaseRequest &)
{
	CaseResult r;
	r.name = c.name;
	r.status = Status::error;
	r.reason = "this rdnactl was built without the GPU backend";
	return r;
}

ProbeReply run_gpu_probe(const ProbeRequest &)
{
	ProbeReply reply;
	reply.state = ProbeReply::State::no_backend;
	reply.report = "this rdnactl was built without the GPU backend (userspace/src/validate/gpu); "
		       "no HIP or CUDA runtime was looked for";
	return reply;
}

} // namespace rdnafix::validate
