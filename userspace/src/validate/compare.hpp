#pragma once
// Comparing a GPU result with the CPU reference.  Pure functions, no I/O.
//
// Per element i the GPU value g_i must satisfy
//     |g_i - r_i| <= slack * (u_out * |r_i| + gamma(n, u_acc) * A_i) + abs_floor
// where r_i is the double reference, A_i the sum of |x*w| over its n = (c/groups)*r*s
// products, gamma(n, u) = n*u / (1 - n*u) (the classic bound on a floating-point dot
// product in any summation order) and u_out / u_acc the unit round-off of the
// output storage and of the accumulation.  Additionally the RMS error divided by
// the range of the reference must be <= rms_range, and every value must be finite.
// The figures and why they were chosen are in docs/validate.md.
#include <cstddef>
#include <span>
#include <string>

#include "model.hpp"

namespace rdnafix::validate {

struct Tolerance {
	double u_out = 0;     // unit round-off of the output type
	double u_acc = 0;     // unit round-off of the accumulation type
	double slack = 2;     // multiplies the bound
	double abs_floor = 0; // absolute error always allowed (fp16 subnormal spacing)
	double rms_range = 0; // max RMS(error) / (max(ref) - min(ref))
};
Tolerance tolerance_for(DType t);

struct ErrorMetrics {
	std::size_t count = 0;
	std::size_t nonfinite = 0;  // NaN / Inf in the GPU result
	std::size_t over_bound = 0; // elements outside the per-element bound
	std::size_t worst_index = 0;
	double worst_bound_ratio = 0; // max |d| / bound (> 1 fails)
	double max_abs = 0;
	double max_rel = 0;   // over elements with |r| >= 1e-3 * max|r|
	double rms_range = 0; // sqrt(mean(d^2)) / range
	double range = 0;     // max(r) - min(r)
};

// ref, absum: the CPU reference; got: the GPU output (widened to float).
// Throws std::invalid_argument when the sizes differ.
ErrorMetrics measure(std::span<const double> ref, std::span<const double> absum, std::span<const float> got,
		     int reduction, const Tolerance &tol);

struct Verdict {
	bool pass = false;
	std::string reason; // "" when passing; else which check failed, with figures
};
Verdict judge(const ErrorMetrics &m, const Tolerance &tol);

// --inject-error: corrupt exactly one element (index size/2) by far more than any
// tolerance: g += 1000 * (1 + |g|).  Returns the index.  No-op on an empty span.
std::size_t inject_error(std::span<float> got);

} // namespace rdnafix::validate
