// conv2d on the GPU: kernel choice, upload in the element type, timed
// launches with a poisoned output, download (widened to float).
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "gpu_cases.hpp"
#include "launch_util.hpp"

namespace rdnafix::gpu {

using detail::grid_for;
using detail::summarize;
using validate::DType;

std::string ConvDesc::check() const
{
	if (auto m = ConvShape::check(); !m.empty())
		return m;
	if (r > 7 || s > 7)
		return "kernel " + std::to_string(r) + "x" + std::to_string(s) +
		       ": r and s must be 1..7 (1, 3, 5, 7 tuned)";
	const std::size_t lim = std::size_t(1) << 31;
	if (x_elems() >= lim || w_elems() >= lim || y_elems() >= lim)
		return "tensor too large: each of x, w, y must have < 2^31 elements";
	return "";
}

namespace {

// Writes host bytes into a buffer of any kind.
void upload(Backend &be, Buffer &b, const void *src, std::size_t n)
{
	if (b.kind() == MemKind::device)
		be.copy_h2d(b.device_ptr(), src, n);
	else
		std::memcpy(b.host_ptr(), src, n);
}

void download(Backend &be, const Buffer &b, void *dst, std::size_t n)
{
	if (b.kind() == MemKind::device)
		be.copy_d2h(dst, b.device_ptr(), n);
	else
		std::memcpy(dst, b.host_ptr(), n);
}

void poison(Backend &be, Buffer &b)
{
	if (b.kind() == MemKind::device || b.kind() == MemKind::managed)
		be.memset_d8(b.device_ptr(), 0xff, b.bytes());
	else
		std::memset(b.host_ptr(), 0xff, b.bytes());
}

std::vector<std::uint8_t> to_bytes(const std::vector<float> &v, DType t)
{
	std::vector<std::uint8_t> out(v.size() * validate::dtype_size(t));
	if (t == DType::f32) {
		std::memcpy(out.data(), v.data(), out.size());
	} else {
		for (std::size_t i = 0; i < v.size(); ++i) {
			std::uint16_t h = validate::float_to_half(v[i]);
			std::memcpy(out.data() + 2 * i, &h, 2);
		}
	}
	return out;
}

// NVIDIA sm_80 and newer: mma.sync exists (the tensor-core fp16 kernel).
bool has_mma(const Backend &be)
{
	const std::string &a = be.device().arch;
	return be.api() == Api::cuda && a.rfind("sm_", 0) == 0 && std::atoi(a.c_str() + 3) >= 80;
}

std::string conv_kernel_name(const ConvDesc &d, bool tensor_cores)
{
	const char *t = validate::dtype_name(d.dtype);
	int rk = (d.r == d.s && (d.r == 1 || d.r == 3)) ? d.r : 0;
	int cg = d.c / d.groups, kg = d.k / d.groups;
	if (cg == 1 && kg == 1)
		return std::string("conv2d_dw_") + t + "_r" + std::to_string(rk == 3 ? 3 : 0);
	if (tensor_cores && d.dtype == DType::f16 && kg >= 64)
		return "conv2d_tc_f16_r" + std::to_string(rk);
	int tm = kg >= 128 ? 128 : kg >= 48 ? 64 : 32;
	return std::string("conv2d_gemm_") + t + "_r" + std::to_string(rk) + "_m" + std::to_string(tm);
}

} // namespace

// ---------------------------------------------------------------- conv2d
ConvResult run_conv2d(Session &s, const ConvDesc &d, const std::vector<float> &x, const std::vector<float> &w,
		      const std::vector<float> &b, std::vector<float> &y, MemKind mem, int warmup, int iterations,
		      bool allow_tensor_cores)
{
	if (auto m = d.check(); !m.empty())
		throw GpuError("conv2d", -1, "invalid shape: " + m);
	if (x.size() != d.x_elems() || w.size() != d.w_elems() || (d.bias && b.size() != std::size_t(d.k)))
		throw GpuError("conv2d", -1,
			       "input sizes do not match the shape (x " + std::to_string(x.size()) + "/" +
				       std::to_string(d.x_elems()) + ", w " + std::to_string(w.size()) + "/" +
				       std::to_string(d.w_elems()) + ")");
	if (mem == MemKind::pageable)
		throw GpuError("conv2d", -1,
			       "pageable memory is not kernel-visible; use device, host-coherent, "
			       "host-noncoherent or managed");
	if (iterations < 1)
		iterations = 1;
	Backend &be = s.backend();
	ConvResult res;
	res.mem = mem;
	res.kernel = conv_kernel_name(d, allow_tensor_cores && has_mma(be));
	const Function &f = s.fn(res.kernel);
	const std::size_t es = validate::dtype_size(d.dtype);

	auto xb = to_bytes(x, d.dtype), wb = to_bytes(w, d.dtype);
	Buffer bx = be.alloc(mem, xb.size()), bw = be.alloc(mem, wb.size()), by = be.alloc(mem, d.y_elems() * es);
	Buffer bb;
	if (d.bias) {
		auto bbytes = to_bytes(b, d.dtype);
		bb = be.alloc(mem, bbytes.size());
		upload(be, bb, bbytes.data(), bbytes.size());
	}
	upload(be, bx, xb.data(), xb.size());
	upload(be, bw, wb.data(), wb.size());

	std::uint64_t px = bx.device_ptr(), pw = bw.device_ptr(), pb = d.bias ? bb.device_ptr() : 0,
		      py = by.device_ptr();
	int N = d.n, C = d.c, H = d.h, W = d.w, K = d.k, P = d.p(), Q = d.q(), R = d.r, S = d.s, sh = d.stride_h,
	    sw = d.stride_w, ph = d.pad_h, pwd = d.pad_w, dh = d.dil_h, dw = d.dil_w, G = d.groups, hb = d.bias ? 1 : 0;
	void *args[] = {&px, &pw, &pb, &py, &N, &C, &H, &W, &K, &P, &Q, &R, &S, &sh, &sw, &ph, &pwd, &dh, &dw, &G, &hb};

	Dim3 grid, block;
	if (res.kernel.rfind("conv2d_dw_", 0) == 0) {
		block.x = 256;
		grid.x = grid_for(d.y_elems(), 256, 1u << 20);
	} else {
		int tm = res.kernel.rfind("conv2d_tc_", 0) == 0
				 ? 128
				 : std::stoi(res.kernel.substr(res.kernel.rfind("_m") + 2));
		std::uint64_t npq = std::uint64_t(N) * P * Q;
		block.x = 256;
		grid.x = unsigned((npq + 127) / 128);
		grid.y = unsigned((K / G + tm - 1) / tm);
		grid.z = unsigned(G);
		if (G > 65535)
			throw GpuError("conv2d", -1, "groups > 65535 only supported for depthwise");
	}

	Event e0 = be.event(), e1 = be.event();
	for (int i = 0; i < warmup; ++i) {
		poison(be, by);
		be.launch(f, grid, block, 0, args);
	}
	be.synchronize();
	std::vector<double> ms;
	for (int i = 0; i < iterations; ++i) {
		poison(be, by);
		be.record(e0);
		be.launch(f, grid, block, 0, args);
		be.record(e1);
		ms.push_back(be.elapsed_ms(e0, e1));
	}
	be.synchronize();

	std::vector<std::uint8_t> yb(by.bytes());
	download(be, by, yb.data(), yb.size());
	y.resize(d.y_elems());
	if (d.dtype == DType::f32) {
		std::memcpy(y.data(), yb.data(), yb.size());
	} else {
		for (std::size_t i = 0; i < y.size(); ++i) {
			std::uint16_t h;
			std::memcpy(&h, yb.data() + 2 * i, 2);
			y[i] = validate::half_to_float(h);
		}
	}
	double bytes = double(xb.size() + wb.size() + by.bytes() + (d.bias ? d.k * es : 0));
	res.timing = summarize(ms, d.flops(), bytes);
	return res;
}

} // namespace rdnafix::gpu
