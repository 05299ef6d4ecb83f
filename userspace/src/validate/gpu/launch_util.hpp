#pragma once
// Small helpers shared by the GPU halves of the cases (conv2d.cpp, stream.cpp,
// capacity.cpp, transfers.cpp): timing summary and grid sizing.  Internal to gpu/.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "gpu_cases.hpp"

namespace rdnafix::gpu::detail {

// Median/min/max of per-iteration milliseconds; GFLOP/s and GB/s from the median.
inline Timing summarize(std::vector<double> ms, double flops, double bytes)
{
	Timing t;
	if (ms.empty())
		return t;
	std::sort(ms.begin(), ms.end());
	t.iterations = int(ms.size());
	t.ms_min = ms.front();
	t.ms_max = ms.back();
	t.ms_median = ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
	if (t.ms_median > 0) {
		t.gflops = flops / (t.ms_median * 1e6);
		t.gbs = bytes / (t.ms_median * 1e6);
	}
	return t;
}

// Blocks for n items of per_block each, at least 1 and at most cap.
inline unsigned grid_for(std::uint64_t n, unsigned per_block, unsigned cap)
{
	std::uint64_t g = (n + per_block - 1) / per_block;
	return unsigned(std::clamp<std::uint64_t>(g, 1, cap));
}

} // namespace rdnafix::gpu::detail
