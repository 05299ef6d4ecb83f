#pragma once
// The values the host half of `rdnactl validate` and the GPU backend (gpu/)
// share: the element type, fp16 conversion, the memory kind and the conv2d
// problem.  One type per concept on both sides of the seam.  Pure (no I/O)
// and free of fmt: the GPU backend is also built with plain g++ (tests/rocm,
// gpu/bench/build-standalone.sh).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace rdnafix::validate {

// ---------------------------------------------------------------- element type
enum class DType { f32, f16 };   // f16: fp16 storage, fp32 accumulation
const char *dtype_name(DType t); // "f32" / "f16" (as in the case names)
std::size_t dtype_size(DType t); // bytes per element: 4 / 2

// IEEE binary16, round to nearest even (what the GPU stores for f16).  Inputs
// of f16 cases go through half_round() so reference and GPU see equal values.
std::uint16_t float_to_half(float f);
float half_to_float(std::uint16_t h);
inline float half_round(float f)
{
	return half_to_float(float_to_half(f));
}

// ---------------------------------------------------------------- memory kind
// Where a buffer lives; the GPU backend maps each kind to its runtime's call.
enum class MemKind {
	device,           // hipMalloc / cuMemAlloc
	host_coherent,    // HIP: hipHostMalloc(Mapped|Coherent)     (RDNA: MTYPE_UC; fine-grained)
			  // CUDA: cuMemHostAlloc(DEVICEMAP|PORTABLE) (plain pinned; always coherent on NVIDIA)
	host_noncoherent, // HIP: hipHostMalloc(Mapped|NonCoherent)  (coarse-grained, cached)
			  // CUDA: cuMemHostAlloc(DEVICEMAP|WRITECOMBINED): the closest analogue, NOT the same
			  //       semantics (uncached write-combined on the CPU side)
	managed,          // hipMallocManaged / cuMemAllocManaged (attach global)
	pageable,         // malloc'ed host memory: only for transfers, not kernel-visible
};
const char *memkind_name(MemKind k); // "device", "host-coherent", "host-noncoherent", "managed", "pageable"
std::optional<MemKind> parse_memkind(const std::string &s);

// ---------------------------------------------------------------- conv2d problem
// NCHW input, KCRS weights ([k][c/groups][r][s]), NKPQ output.
struct ConvShape {
	int n = 1, c = 1, h = 1, w = 1; // input
	int k = 1;                      // output channels
	int r = 1, s = 1;               // filter height, width
	int stride_h = 1, stride_w = 1;
	int pad_h = 0, pad_w = 0;
	int dil_h = 1, dil_w = 1;
	int groups = 1; // divides c and k; depthwise: groups == c

	int p() const; // output height
	int q() const; // output width
	std::size_t x_elems() const;
	std::size_t w_elems() const;     // [k][c/groups][r][s]
	std::size_t y_elems() const;     // [n][k][p][q]
	int reduction() const;           // (c/groups)*r*s: products summed per output element
	double flops() const;            // 2 * y_elems * reduction
	double min_bytes(DType t) const; // x + w + y once, in the element size of t
	// "" when valid, else a message naming the bad field and what is valid.
	std::string check() const;
	std::string describe() const; // "n1 c64 56x56 -> k64 3x3 s1 p1 d1 g1 (out 56x56)"
};

} // namespace rdnafix::validate
