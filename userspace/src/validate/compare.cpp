#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace rdnafix::validate {

Tolerance tolerance_for(DType t)
{
	Tolerance tol;
	tol.u_acc = std::ldexp(1.0, -24); // fp32 accumulation in both cases
	tol.slack = 2;
	if (t == DType::f16) {
		tol.u_out = std::ldexp(1.0, -11);
		tol.abs_floor = std::ldexp(1.0, -24); // fp16 subnormal spacing
		tol.rms_range = 1e-3;
	} else {
		tol.u_out = std::ldexp(1.0, -24);
		tol.abs_floor = 1e-30;
		tol.rms_range = 1e-5;
	}
	return tol;
}

ErrorMetrics measure(std::span<const double> ref, std::span<const double> absum, std::span<const float> got,
		     int reduction, const Tolerance &tol)
{
	if (ref.size() != got.size() || absum.size() != ref.size())
		throw std::invalid_argument(
			fmt::format("compare: reference has {} elements, GPU result {}", ref.size(), got.size()));
	ErrorMetrics m;
	m.count = ref.size();
	if (ref.empty())
		return m;
	const double nu = double(reduction) * tol.u_acc;
	const double gamma = nu < 1 ? nu / (1 - nu) : std::numeric_limits<double>::infinity();
	double lo = ref[0], hi = ref[0], max_mag = 0;
	for (double r : ref) {
		lo = std::min(lo, r);
		hi = std::max(hi, r);
		max_mag = std::max(max_mag, std::fabs(r));
	}
	m.range = hi - lo;
	const double rel_floor = 1e-3 * max_mag;
	double sq = 0;
	for (std::size_t i = 0; i < ref.size(); ++i) {
		const double g = got[i];
		if (!std::isfinite(g)) {
			if (m.nonfinite++ == 0 && m.worst_bound_ratio != std::numeric_limits<double>::infinity())
				m.worst_index = i;
			m.worst_bound_ratio = std::numeric_limits<double>::infinity();
			m.over_bound++;
			continue;
		}
		const double d = std::fabs(g - ref[i]);
		const double bound = tol.slack * (tol.u_out * std::fabs(ref[i]) + gamma * absum[i]) + tol.abs_floor;
		const double ratio = d / bound;
		if (ratio > 1)
			m.over_bound++;
		if (ratio > m.worst_bound_ratio) {
			m.worst_bound_ratio = ratio;
			m.worst_index = i;
		}
		m.max_abs = std::max(m.max_abs, d);
		if (std::fabs(ref[i]) >= rel_floor && ref[i] != 0)
			m.max_rel = std::max(m.max_rel, d / std::fabs(ref[i]));
		sq += d * d;
	}
	const double finite = double(m.count - m.nonfinite);
	const double rms = finite > 0 ? std::sqrt(sq / finite) : 0;
	m.rms_range = rms / (m.range > 0 ? m.range : (max_mag > 0 ? max_mag : 1.0));
	return m;
}

Verdict judge(const ErrorMetrics &m, const Tolerance &tol)
{
	if (m.nonfinite)
		return {false, fmt::format("{} of {} output values are NaN/Inf (first at index {})", m.nonfinite,
					   m.count, m.worst_index)};
	if (m.over_bound)
		return {false, fmt::format("{} of {} elements outside the error bound (worst at index {}: {:.3g}x "
					   "the bound, max abs error {:.3g})",
					   m.over_bound, m.count, m.worst_index, m.worst_bound_ratio, m.max_abs)};
	if (m.rms_range > tol.rms_range)
		return {false, fmt::format("RMS error / range = {:.3g} exceeds the tolerance {:.3g}", m.rms_range,
					   tol.rms_range)};
	return {true, {}};
}

std::size_t inject_error(std::span<float> got)
{
	if (got.empty())
		return 0;
	const std::size_t i = got.size() / 2;
	got[i] += 1000.0f * (1.0f + std::fabs(got[i]));
	return i;
}

} // namespace rdnafix::validate
