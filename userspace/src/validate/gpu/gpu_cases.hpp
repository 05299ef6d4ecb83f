#pragma once
// The GPU halves of the validation cases.  The host half (validate/cases/)
// calls these inside the case's child process.  Each function does the GPU
// work, the timing and the device-side counting (bad elements, bad words,
// round trips); it does NOT decide pass/fail: each case kind's judge in
// validate/cases/ does.
//
// Files: session.cpp (probe, device, compile/cache, kernel names),
// conv2d.cpp, stream.cpp, capacity.cpp, transfers.cpp (one job each).
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
	CompileResult compiled_; // of all parts: code concatenated, from_cache if every part was
	std::vector<Module> mods_;
	std::vector<Function> fns_;
	friend struct SessionAccess;
};

// All kernel names in the embedded source (compile() checks every one).
const std::vector<std::string> &validation_kernel_names();
// Which compile part (-DRDNA_PART=n, kernels/00-prelude.cu) holds kernel `name`.
int kernel_part(const std::string &name);
// The embedded kernel source text (kernels/*.cu in file-name order).
const std::string &validation_kernel_source();

// ---------------------------------------------------------------- conv2d
// The problem is the validate model's ConvShape (model.hpp, shared with the
// CPU reference), plus what the GPU run needs: element type and bias.
struct ConvDesc : validate::ConvShape {
	bool bias = false;
	validate::DType dtype = validate::DType::f32;
	// ConvShape::check(), then the kernels' limits: r and s <= 7, each of
	// x, w, y < 2^31 elements.  "" if valid.
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
// validate::half_round() on the reference inputs) and y is the fp16 result widened.
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
