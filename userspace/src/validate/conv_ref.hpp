#pragma once
// CPU reference conv2d: every output element is accumulated in double, and so
// is the sum of the absolute values of its products (the scale the error bound
// of a floating-point dot product is proportional to).  Multi-threaded over
// (n, k) planes with std::jthread.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace rdnafix::validate {

struct ConvReference {
	std::vector<double> y;     // [n][k][p][q]
	std::vector<double> absum; // sum over the reduction of |x * w|, same layout
};

// x: [n][c][h][w], w: [k][c/groups][r][s].  threads == 0: hardware_concurrency.
// Throws std::invalid_argument when shape.check() fails or the spans have the wrong size.
ConvReference conv2d_reference(const ConvShape &shape, std::span<const float> x, std::span<const float> w,
			       unsigned threads = 0);

// Deterministic inputs in [-1, 1) from a 64-bit seed (splitmix64); for f16 the
// values are rounded to fp16.
std::vector<float> random_inputs(std::size_t count, std::uint64_t seed, DType t);
std::uint64_t seed_from_name(std::string_view name); // FNV-1a

} // namespace rdnafix::validate
