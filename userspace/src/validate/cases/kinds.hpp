#pragma once
// The case kinds, one file each (cases/<kind>.cpp): the kind's definitions
// for the registry (cases.hpp), its host half and its judge, the one place
// that decides pass/fail for that kind.  How the case *process* ended (crash,
// hang, no reply) is judged once for every kind by classify_child
// (isolation.hpp).
//
// The GPU kinds' GPU work runs in gpu/ (gpu_cases.hpp).  cases/gpu_host.cpp
// opens the GPU session inside the case child, runs the kind's GPU half and
// hands its figures to the kind's judge below; cases/gpu_host_none.cpp stands
// in when rdnactl is built without the GPU backend.
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cases.hpp"
#include "compare.hpp"
#include "gpu_cases.hpp"
#include "protocol.hpp"
#include "history/result.hpp"

namespace rdnafix::validate {

// ---------------------------------------------------------------- conv2d (cases/conv2d.cpp)
// Network layers in f32 and f16 (conv.*), then the memory matrix (mem.*).
std::vector<CaseDef> conv2d_cases();
// The case's deterministic inputs, seeded by its name (f16: rounded to fp16).
struct ConvInputs {
	std::vector<float> x, w;
};
ConvInputs conv2d_inputs(const CaseDef &c);
struct ConvJudgement {
	CaseResult result; // name, status, reason, max_abs, max_rel, rms_range
	ErrorMetrics metrics;
	double reference_seconds = 0;
};
// The judge: CPU reference of (x, w), error figures of y against it, verdict
// by the per-element bound and the RMS limit of the case's dtype (compare.hpp).
ConvJudgement judge_conv2d(const CaseDef &c, std::span<const float> x, std::span<const float> w,
			   std::span<const float> y);

// ---------------------------------------------------------------- stream (cases/stream.cpp)
std::vector<CaseDef> stream_cases();
// Elements per array: at most 2^25, at most 1/8 of the free (else total) memory for three fp64 arrays.
std::size_t stream_elements(std::uint64_t free_bytes, std::uint64_t total_bytes);
// Pass: every element equals its analytic value.
CaseResult judge_stream(const CaseDef &c, const gpu::StreamResult &s);

// ---------------------------------------------------------------- capacity (cases/capacity.cpp)
std::vector<CaseDef> capacity_cases();
// Pass: the whole target was allocated and every word read back.
CaseResult judge_capacity(const CaseDef &c, const gpu::CapacityResult &cr, double fraction);

// ---------------------------------------------------------------- transfers (cases/transfers.cpp)
std::vector<CaseDef> transfer_cases();
// Pass: at least one size ran and every size round-tripped bit-exactly.
CaseResult judge_transfers(const CaseDef &c, const std::vector<gpu::TransferPoint> &points);

// ---------------------------------------------------------------- torch (cases/torch.cpp)
// --torch: a child python3 runs torch.nn.functional.conv2d on the GPU (MIOpen /
// cuDNN) and on the CPU (float64) and reports error figures; rdnactl judges.
std::vector<CaseDef> torch_cases();
const std::string &torch_script(); // the embedded Python program
// argv for the python child: python3 -c <script> <result fd> <shapes json> <inject 0|1> <device>
// (`device` is --device: the torch.cuda device index the script runs on).
std::vector<std::string> torch_args(bool inject_error, int device = 0);
// The shapes the script runs (a subset of the conv cases), as JSON.
nlohmann::json torch_shapes();
// Pure: the verdict on what the script reported (status "measured" -> pass/fail by
// the documented tolerances; "skip"/"error" pass through).
CaseResult judge_torch(const CaseResult &reported);

// ---------------------------------------------------------------- selftest (cases/selftest.cpp)
// Hidden cases that test rdnactl itself (no GPU): a CPU conv2d that passes or
// fails, and children that crash, abort, hang, write garbage or exit silently.
std::vector<CaseDef> selftest_cases();
// The case child of a selftest case: replies on fd 3 (or misbehaves as named);
// returns the exit code.
int selftest_child_main(const CaseDef &c, bool inject_error);
// A float-accumulating direct convolution (what a simple GPU kernel does),
// judged by judge_conv2d.
CaseResult cpu_conv_selfcheck(const CaseDef &c, bool inject_error);

// ---------------------------------------------------------------- GPU host half (cases/gpu_host*.cpp)
bool gpu_backend_built();
// Inside the case child: opens the session (kept for the next case of the
// same API and device), runs the kind's GPU half, judges.
CaseResult run_gpu_case(const CaseDef &c, const CaseRequest &req);
// Closes the kept session (before the process exits, while the runtime is intact).
void release_gpu_session();
// Inside the probe child.
ProbeReply run_gpu_probe(const ProbeRequest &req);

} // namespace rdnafix::validate
