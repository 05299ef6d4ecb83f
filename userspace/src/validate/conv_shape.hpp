#pragma once
// A conv2d problem (NCHW input, KCRS weights, NKPQ output) and its derived sizes.
// Pure data; no I/O.
#include <cstddef>
#include <string>

namespace rdnafix::validate {

enum class DType { f32, f16 }; // f16: fp16 storage, fp32 accumulation on the GPU
const char *dtype_name(DType t);

struct ConvShape {
	int n = 1, c = 1, h = 1, w = 1; // input
	int k = 1;                      // output channels
	int r = 1, s = 1;               // filter height, width
	int stride_h = 1, stride_w = 1;
	int pad_h = 0, pad_w = 0;
	int dil_h = 1, dil_w = 1;
	int groups = 1;

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
	std::string describe() const; // "n1 c64 56x56 -> k64 3x3 s1 p1 d1 g1"
};

} // namespace rdnafix::validate
