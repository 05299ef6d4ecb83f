#pragma once
// The GPU halves of the validation cases.  The host side (case runner,
// CPU reference, comparator) calls these inside the case's child process.
// Each function does the GPU work and the timing; it does NOT decide pass/fail
// of conv2d numbers (the comparator does), except for the self-checking
// stream / capacity / transfer cases, which return their own error counts.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"

namespace rdnafix::gpu {

// ---------------------------------------------------------------- session
// Backend + compiled kernel module.  open() probes (HIP first unless `api`
// is given), opens device `index`, compiles (or loads from the cache) the
// validation kernels for the device's arch.
struct SessionOptions {
	std::optional<Api> api; // nullopt: HIP, then CUDA
	int device = 0;
	SearchConfig search;   // usually SearchConfig::from_environment(true)
	bool use_cache = true; // code-object cache under default_cache_dir()
	std::string cache_dir; // "" = default_cache_dir(getenv...)
};

class Session {
public:
	// Throws GpuError; `probes` (if non-null) receives every probe made, for
	// the "no runtime found / runtime but no device" report.
	static std::unique_ptr<Session> open(const SessionOptions &opt, std::vector<ProbeResult> *probes);

	Backend &backend() { return *be_; }
	const CompileResult &compile_info() const { return compiled_; }
	const Function &fn(const std::string &name) const; // kernel by name, throws if unknown

	~Session();

private:
	Session() = default;
	std::unique_ptr<Backend> be_;
	std::unique_ptr<Rtc> rtc_;
	CompileResult compiled_;
	Module mod_;
	std::vector<Function> fns_;
	friend struct SessionAccess;
};

// All kernel names in the embedded source (compile() checks every one).
const std::vector<std::string> &validation_kernel_names();
// The embedded kernel source text (kernels/validate_kernels.cu).
const std::string &validation_kernel_source();

// ---------------------------------------------------------------- fp16 helpers
std::uint16_t float_to_half(float f); // round to nearest even, IEEE binary16
float half_to_float(std::uint16_t h);
inline float half_round(float f)
{
	return half_to_float(float_to_half(f));
}

// ---------------------------------------------------------------- conv2d
enum class DType { f32, f16 }; // f16: fp16 storage, fp32 accumulation
const char *dtype_name(DType t);

struct ConvDesc {
	int n = 1, c = 1, h = 1, w = 1; // input NCHW
	int k = 1;                      // output channels
	int r = 3, s = 3;               // kernel height/width: 1, 3, 5, 7
	int stride_h = 1, stride_w = 1;
	int pad_h = 0, pad_w = 0;
	int dil_h = 1, dil_w = 1;
	int groups = 1; // c % groups == 0 && k % groups == 0; depthwise: groups == c
	bool bias = false;
	DType dtype = DType::f32;

	int p() const; // output height
	int q() const; // output width
	std::size_t x_elems() const;
	std::size_t w_elems() const; // k * (c/groups) * r * s, layout [k][c/groups][r][s]
	std::size_t y_elems() const; // n * k * p * q
	double flops() const;        // 2 * n*k*p*q * (c/groups)*r*s
	// "" if valid, else a message naming the bad field and what is valid.
	std::string check() const;
};

struct Timing {
	double ms_median = 0, ms_min = 0, ms_max = 0;
	int iterations = 0;
	double gflops = 0; // from ms_median
	double gbs = 0;    // bytes the case must move / ms_median
};

struct ConvResult {
	Timing timing;
	std::string kernel; // which kernel ran, e.g. "conv2d_gemm_f32_r3_m128"
	MemKind mem = MemKind::device;
};

// Runs y = conv2d(x, w) (+ b) with x, w, b, y all in `mem`.  Host data is
// float; for DType::f16 the inputs are rounded to fp16 on upload (use
// half_round() on the reference inputs) and y is the fp16 result widened.
// b may be empty when !desc.bias.  y is resized to desc.y_elems().  The output
// buffer is poisoned (all bits set = NaN) before every launch, so an element
// the kernel did not write reads back as NaN.  Throws GpuError (including
// "memory kind not supported by this runtime/device" and bad descriptors).
// allow_tensor_cores: fp16 on NVIDIA sm_80+ uses the mma.sync kernel
// (conv2d_tc_f16_*); false forces the portable kernel that AMD GPUs run.
ConvResult run_conv2d(Session &s, const ConvDesc &desc, const std::vector<float> &x, const std::vector<float> &w,
		      const std::vector<float> &b, std::vector<float> &y, MemKind mem, int warmup = 2,
		      int iterations = 10, bool allow_tensor_cores = true);

// ---------------------------------------------------------------- stream (BabelStream-style, fp64)
struct StreamResult {
	std::size_t elements = 0;
	Timing copy;              // c[i] = a[i]               : 16 B/elem
	Timing triad;             // a[i] = b[i] + scalar*c[i] : 24 B/elem
	Timing d2d_memcpy;        // baseline: runtime device-to-device memcpy, bytes read + written
	double max_abs_error = 0; // against the analytic values after all iterations
	std::size_t bad_elements = 0;
};
StreamResult run_stream(Session &s, std::size_t elements, int iterations = 20);

// ---------------------------------------------------------------- capacity
struct CapacityResult {
	std::uint64_t reported_total = 0; // what the runtime reports (mem_info total)
	std::uint64_t reported_free = 0;
	std::uint64_t target_bytes = 0; // fraction * reported_total
	std::uint64_t allocated = 0;    // bytes allocated and verified
	int chunks = 0;
	std::uint64_t bad_words = 0; // 32-bit words that did not read back
	std::string stop_reason;     // "" if target reached, else e.g. "hipMalloc: 2 hipErrorOutOfMemory"
	double fill_gbs = 0;
};
CapacityResult run_capacity(Session &s, double fraction, std::size_t chunk_bytes = std::size_t(1) << 30);

// ---------------------------------------------------------------- transfers
struct TransferPoint {
	std::size_t bytes = 0;
	MemKind host = MemKind::pageable; // pageable or host_coherent (pinned)
	Timing h2d, d2h;
	bool verified = false; // data round-tripped bit-exact
};
// Sizes e.g. 4 KiB .. 1 GiB.  host: MemKind::pageable or MemKind::host_coherent.
std::vector<TransferPoint> run_transfers(Session &s, const std::vector<std::size_t> &sizes, MemKind host,
					 int iterations = 5);

} // namespace rdnafix::gpu
