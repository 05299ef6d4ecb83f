// Host<->device copies per size, pageable or pinned host memory, timed with
// events and verified bit-exact after the round trip.
#include <cstring>

#include "gpu_cases.hpp"
#include "launch_util.hpp"

namespace rdnafix::gpu {

using detail::summarize;

// ---------------------------------------------------------------- transfers
std::vector<TransferPoint> run_transfers(Session &s, const std::vector<std::size_t> &sizes, MemKind host,
					 int iterations)
{
	if (host != MemKind::pageable && host != MemKind::host_coherent && host != MemKind::host_noncoherent)
		throw GpuError("transfers", -1, "host memory must be pageable, host-coherent or host-noncoherent");
	if (iterations < 1)
		iterations = 1;
	Backend &be = s.backend();
	std::vector<TransferPoint> out;
	Event e0 = be.event(), e1 = be.event();
	for (std::size_t n : sizes) {
		if (n == 0)
			throw GpuError("transfers", -1, "size 0");
		TransferPoint tp;
		tp.bytes = n;
		tp.host = host;
		std::vector<std::uint8_t> pg_src, pg_dst;
		Buffer pin_src, pin_dst;
		std::uint8_t *src, *dst;
		if (host == MemKind::pageable) {
			pg_src.resize(n);
			pg_dst.resize(n);
			src = pg_src.data();
			dst = pg_dst.data();
		} else {
			pin_src = be.alloc(host, n);
			pin_dst = be.alloc(host, n);
			src = static_cast<std::uint8_t *>(pin_src.host_ptr());
			dst = static_cast<std::uint8_t *>(pin_dst.host_ptr());
		}
		std::uint32_t v = 0x12345678u ^ std::uint32_t(n);
		for (std::size_t i = 0; i < n; ++i) {
			v = v * 1664525u + 1013904223u;
			src[i] = std::uint8_t(v >> 24);
		}
		std::memset(dst, 0, n);
		Buffer dev = be.alloc(MemKind::device, n);
		std::vector<double> th, td;
		for (int i = 0; i < iterations + 1; ++i) {
			be.record(e0);
			be.copy_h2d(dev.device_ptr(), src, n);
			be.record(e1);
			double a = be.elapsed_ms(e0, e1);
			be.record(e0);
			be.copy_d2h(dst, dev.device_ptr(), n);
			be.record(e1);
			double b = be.elapsed_ms(e0, e1);
			if (i > 0) {
				th.push_back(a);
				td.push_back(b);
			}
		}
		tp.h2d = summarize(th, 0, double(n));
		tp.d2h = summarize(td, 0, double(n));
		tp.verified = std::memcmp(src, dst, n) == 0;
		out.push_back(tp);
	}
	return out;
}

} // namespace rdnafix::gpu
