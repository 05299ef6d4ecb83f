// Capacity: allocate a fraction of the reported device memory in chunks,
// fill each with a hash pattern, verify all of them after the last allocation.
#include <algorithm>

#include "gpu_cases.hpp"
#include "launch_util.hpp"

namespace rdnafix::gpu {

using detail::grid_for;

// ---------------------------------------------------------------- capacity
CapacityResult run_capacity(Session &s, double fraction, std::size_t chunk)
{
	if (!(fraction > 0 && fraction <= 1))
		throw GpuError("capacity", -1, "fraction must be in (0, 1]");
	if (chunk < (1u << 20))
		throw GpuError("capacity", -1, "chunk must be at least 1 MiB");
	Backend &be = s.backend();
	CapacityResult r;
	auto [fr, tot] = be.mem_info();
	r.reported_free = fr;
	r.reported_total = tot;
	r.target_bytes = std::uint64_t(double(tot) * fraction) & ~std::uint64_t(3);
	const unsigned cap = unsigned(std::max(1, be.device().compute_units)) * 32;
	std::vector<Buffer> chunks;
	Event e0 = be.event(), e1 = be.event();
	double fill_ms = 0;
	std::uint64_t filled = 0;
	while (r.allocated < r.target_bytes) {
		std::size_t want = std::size_t(std::min<std::uint64_t>(chunk, r.target_bytes - r.allocated));
		want &= ~std::size_t(3);
		if (want == 0)
			break;
		Buffer b;
		try {
			b = be.alloc(MemKind::device, want);
		} catch (const GpuError &e) {
			r.stop_reason = e.what();
			break;
		}
		std::uint64_t p = b.device_ptr();
		unsigned long long words = want / 4;
		unsigned seed = unsigned(chunks.size()) * 2654435761u + 1;
		void *args[] = {&p, &words, &seed};
		be.record(e0);
		be.launch(s.fn("fill_pattern"), {grid_for(words, 256, cap), 1, 1}, {256, 1, 1}, 0, args);
		be.record(e1);
		fill_ms += be.elapsed_ms(e0, e1);
		filled += want;
		r.allocated += want;
		chunks.push_back(std::move(b));
	}
	be.synchronize();
	// Verify after everything is allocated: catches chunks that alias or lose data.
	Buffer bad = be.alloc(MemKind::device, 8);
	std::uint64_t pbad = bad.device_ptr();
	be.memset_d8(pbad, 0, 8);
	for (std::size_t i = 0; i < chunks.size(); ++i) {
		std::uint64_t p = chunks[i].device_ptr();
		unsigned long long words = chunks[i].bytes() / 4;
		unsigned seed = unsigned(i) * 2654435761u + 1;
		void *args[] = {&p, &words, &seed, &pbad};
		be.launch(s.fn("verify_pattern"), {grid_for(words, 256, cap), 1, 1}, {256, 1, 1}, 0, args);
	}
	be.synchronize();
	unsigned long long cnt = 0;
	be.copy_d2h(&cnt, pbad, 8);
	r.bad_words = cnt;
	r.chunks = int(chunks.size());
	if (fill_ms > 0)
		r.fill_gbs = double(filled) / (fill_ms * 1e6);
	return r;
}

} // namespace rdnafix::gpu
