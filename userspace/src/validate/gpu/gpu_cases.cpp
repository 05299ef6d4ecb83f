#include "gpu_cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "loader.hpp"

namespace rdnafix::gpu {

// ---------------------------------------------------------------- kernel names
const std::vector<std::string> &validation_kernel_names()
{
	static const std::vector<std::string> names = [] {
		std::vector<std::string> n;
		for (const char *t : {"f32", "f16"}) {
			for (int r : {1, 3, 0})
				for (int m : {128, 64, 32})
					n.push_back(std::string("conv2d_gemm_") + t + "_r" + std::to_string(r) + "_m" +
						    std::to_string(m));
			for (int r : {3, 0})
				n.push_back(std::string("conv2d_dw_") + t + "_r" + std::to_string(r));
		}
		for (int r : {1, 3, 0})
			n.push_back("conv2d_tc_f16_r" + std::to_string(r));
		for (const char *s :
		     {"stream_copy", "stream_triad", "stream_init", "stream_check", "fill_pattern", "verify_pattern"})
			n.push_back(s);
		return n;
	}();
	return names;
}

// ---------------------------------------------------------------- fp16
std::uint16_t float_to_half(float f)
{
	std::uint32_t x;
	std::memcpy(&x, &f, 4);
	std::uint32_t sign = (x >> 16) & 0x8000u;
	std::uint32_t absx = x & 0x7fffffffu;
	if (absx >= 0x7f800000u) // inf / nan
		return std::uint16_t(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u | ((absx >> 13) & 0x3ffu) : 0));
	if (absx >= 0x477ff000u) // rounds to >= 65520: overflow to inf
		return std::uint16_t(sign | 0x7c00u);
	if (absx < 0x38800000u) {       // result subnormal or zero
		if (absx < 0x33000000u) // < 2^-25: rounds to zero
			return std::uint16_t(sign);
		std::uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
		int shift = 126 - int(absx >> 23); // 14..24 (value = mant * 2^(e-150), half subnormal unit 2^-24)
		std::uint32_t h = mant >> shift;
		std::uint32_t rem = mant & ((1u << shift) - 1);
		std::uint32_t halfway = 1u << (shift - 1);
		if (rem > halfway || (rem == halfway && (h & 1)))
			++h;
		return std::uint16_t(sign | h);
	}
	std::uint32_t h = ((absx >> 13) - (112u << 10)); // rebias 127 -> 15
	std::uint32_t rem = absx & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
		++h;
	return std::uint16_t(sign | h);
}

float half_to_float(std::uint16_t h)
{
	std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
	std::uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ffu, x;
	if (e == 0) {
		if (m == 0) {
			x = sign;
		} else { // subnormal: normalise
			int sh = 0;
			while (!(m & 0x400u)) {
				m <<= 1;
				++sh;
			}
			x = sign | std::uint32_t(113 - sh) << 23 | ((m & 0x3ffu) << 13);
		}
	} else if (e == 31) {
		x = sign | 0x7f800000u | (m << 13);
	} else {
		x = sign | (e + 112) << 23 | (m << 13);
	}
	float f;
	std::memcpy(&f, &x, 4);
	return f;
}

// ---------------------------------------------------------------- ConvDesc
const char *dtype_name(DType t)
{
	return t == DType::f32 ? "fp32" : "fp16";
}

int ConvDesc::p() const
{
	return (h + 2 * pad_h - dil_h * (r - 1) - 1) / stride_h + 1;
}
int ConvDesc::q() const
{
	return (w + 2 * pad_w - dil_w * (s - 1) - 1) / stride_w + 1;
}
std::size_t ConvDesc::x_elems() const
{
	return std::size_t(n) * c * h * w;
}
std::size_t ConvDesc::w_elems() const
{
	return std::size_t(k) * (c / std::max(groups, 1)) * r * s;
}
std::size_t ConvDesc::y_elems() const
{
	return std::size_t(n) * k * std::max(p(), 0) * std::max(q(), 0);
}
double ConvDesc::flops() const
{
	return 2.0 * double(y_elems()) * (c / std::max(groups, 1)) * r * s;
}

std::string ConvDesc::check() const
{
	auto pos = [](const char *name, int v) {
		return v >= 1 ? std::string() : std::string(name) + " = " + std::to_string(v) + ": must be >= 1";
	};
	for (auto m : {pos("n", n), pos("c", c), pos("h", h), pos("w", w), pos("k", k), pos("stride_h", stride_h),
		       pos("stride_w", stride_w), pos("dil_h", dil_h), pos("dil_w", dil_w), pos("groups", groups)})
		if (!m.empty())
			return m;
	if (r < 1 || r > 7 || s < 1 || s > 7)
		return "kernel " + std::to_string(r) + "x" + std::to_string(s) +
		       ": r and s must be 1..7 (1, 3, 5, 7 tuned)";
	if (pad_h < 0 || pad_w < 0)
		return "padding must be >= 0";
	if (c % groups || k % groups)
		return "groups = " + std::to_string(groups) + " must divide c = " + std::to_string(c) +
		       " and k = " + std::to_string(k);
	if (p() < 1 || q() < 1)
		return "output would be empty (" + std::to_string(p()) + "x" + std::to_string(q()) +
		       "): input too small for kernel/dilation/stride/padding";
	const std::size_t lim = std::size_t(1) << 31;
	if (x_elems() >= lim || w_elems() >= lim || y_elems() >= lim)
		return "tensor too large: each of x, w, y must have < 2^31 elements";
	return "";
}

// ---------------------------------------------------------------- Session
Session::~Session() = default;

std::unique_ptr<Session> Session::open(const SessionOptions &opt, std::vector<ProbeResult> *probes)
{
	std::vector<Api> apis;
	if (opt.api)
		apis.push_back(*opt.api);
	else
		apis = {Api::hip, Api::cuda};
	ProbeResult chosen;
	std::string why;
	bool found = false;
	for (Api a : apis) {
		ProbeResult pr = probe(a, opt.search);
		if (probes)
			probes->push_back(pr);
		if (pr.state == ProbeState::ok && !found) {
			chosen = pr;
			found = true;
			break;
		}
		why += (why.empty() ? "" : "\n") + pr.describe();
	}
	if (!found)
		throw GpuError("probe", -1, why);
	std::unique_ptr<Session> s(new Session());
	s->be_ = Backend::open(chosen, opt.device);
	std::string rtc_why;
	s->rtc_ = load_rtc(chosen, opt.search, &rtc_why);
	if (!s->rtc_)
		throw GpuError("load compiler", -1, rtc_why);
	if (opt.use_cache)
		s->rtc_->set_cache_dir(!opt.cache_dir.empty()
					       ? opt.cache_dir
					       : default_cache_dir(std::getenv("XDG_CACHE_HOME"), std::getenv("HOME")));
	const auto &dev = s->be_->device();
	if (dev.arch_full.empty())
		throw GpuError("compile", -1, "the runtime did not report the GPU architecture of " + dev.name);
	CompileRequest req;
	req.source = validation_kernel_source();
	req.kernel_names = validation_kernel_names();
	req.target = dev.arch_full;
	s->compiled_ = s->rtc_->compile(req);
	s->mod_ = s->be_->load_module(s->compiled_.code);
	for (const auto &n : validation_kernel_names())
		s->fns_.push_back(s->mod_.function(n));
	return s;
}

const Function &Session::fn(const std::string &name) const
{
	for (const auto &f : fns_)
		if (f.name == name)
			return f;
	throw GpuError("kernel", -1, "no kernel named " + name);
}

// ---------------------------------------------------------------- helpers
namespace {

Timing summarize(std::vector<double> ms, double flops, double bytes)
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
	std::vector<std::uint8_t> out(v.size() * (t == DType::f32 ? 4 : 2));
	if (t == DType::f32) {
		std::memcpy(out.data(), v.data(), out.size());
	} else {
		for (std::size_t i = 0; i < v.size(); ++i) {
			std::uint16_t h = float_to_half(v[i]);
			std::memcpy(out.data() + 2 * i, &h, 2);
		}
	}
	return out;
}

unsigned grid_for(std::uint64_t n, unsigned per_block, unsigned cap)
{
	std::uint64_t g = (n + per_block - 1) / per_block;
	return unsigned(std::clamp<std::uint64_t>(g, 1, cap));
}

// NVIDIA sm_80 and newer: mma.sync exists (the tensor-core fp16 kernel).
bool has_mma(const Backend &be)
{
	const std::string &a = be.device().arch;
	return be.api() == Api::cuda && a.rfind("sm_", 0) == 0 && std::atoi(a.c_str() + 3) >= 80;
}

std::string conv_kernel_name(const ConvDesc &d, bool tensor_cores)
{
	const char *t = d.dtype == DType::f32 ? "f32" : "f16";
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
	const std::size_t es = d.dtype == DType::f32 ? 4 : 2;

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
			y[i] = half_to_float(h);
		}
	}
	double bytes = double(xb.size() + wb.size() + by.bytes() + (d.bias ? d.k * es : 0));
	res.timing = summarize(ms, d.flops(), bytes);
	return res;
}

// ---------------------------------------------------------------- stream
StreamResult run_stream(Session &s, std::size_t n, int iterations)
{
	if (n < 1024)
		throw GpuError("stream", -1, "need at least 1024 elements");
	if (iterations < 1)
		iterations = 1;
	Backend &be = s.backend();
	StreamResult r;
	r.elements = n;
	const std::size_t bytes = n * sizeof(double);
	Buffer a = be.alloc(MemKind::device, bytes), b = be.alloc(MemKind::device, bytes),
	       c = be.alloc(MemKind::device, bytes), bad = be.alloc(MemKind::device, 8);
	std::uint64_t pa = a.device_ptr(), pb = b.device_ptr(), pc = c.device_ptr(), pbad = bad.device_ptr();
	unsigned long long nn = n;
	double va = 0.1, vb = 0.2, vc = 0.0, scalar = 0.4;
	const unsigned cap = unsigned(std::max(1, be.device().compute_units)) * 32;
	{
		void *args[] = {&pa, &pb, &pc, &va, &vb, &vc, &nn};
		be.launch(s.fn("stream_init"), {grid_for(n, 256, cap), 1, 1}, {256, 1, 1}, 0, args);
	}
	Dim3 grid{unsigned((n + 1023) / 1024), 1, 1}, block{256, 1, 1};
	void *copy_args[] = {&pa, &pc, &nn};
	void *triad_args[] = {&pa, &pb, &pc, &scalar, &nn};
	Event e0 = be.event(), e1 = be.event();
	std::vector<double> tc, tt, tm;
	double ea = va, ec = vc;
	for (int i = 0; i < iterations + 1; ++i) { // first round is warm-up
		be.record(e0);
		be.launch(s.fn("stream_copy"), grid, block, 0, copy_args);
		be.record(e1);
		double m1 = be.elapsed_ms(e0, e1);
		be.record(e0);
		be.launch(s.fn("stream_triad"), grid, block, 0, triad_args);
		be.record(e1);
		double m2 = be.elapsed_ms(e0, e1);
		ec = ea;
		ea = vb + scalar * ec;
		if (i > 0) {
			tc.push_back(m1);
			tt.push_back(m2);
		}
	}
	// Baseline in the same run: the runtime's own device-to-device copy (b -> scratch is
	// not needed: copy c into b and restore nothing, b is re-checked below).
	Buffer scratch = be.alloc(MemKind::device, bytes);
	for (int i = 0; i < iterations + 1; ++i) {
		be.record(e0);
		be.copy_d2d(scratch.device_ptr(), pb, bytes);
		be.record(e1);
		double m = be.elapsed_ms(e0, e1);
		if (i > 0)
			tm.push_back(m);
	}
	be.synchronize();
	r.copy = summarize(tc, 0, 2.0 * bytes);
	r.triad = summarize(tt, double(n) * 2, 3.0 * bytes);
	r.d2d_memcpy = summarize(tm, 0, 2.0 * bytes);

	// Check every element on the device against the analytic values.
	auto count_bad = [&](std::uint64_t p, double expect) {
		be.memset_d8(pbad, 0, 8);
		double tol = 1e-12 * std::max(1.0, std::fabs(expect));
		void *args[] = {&p, &expect, &tol, &nn, &pbad};
		be.launch(s.fn("stream_check"), {grid_for(n, 256, cap), 1, 1}, {256, 1, 1}, 0, args);
		unsigned long long cnt = 0;
		be.copy_d2h(&cnt, pbad, 8);
		return std::size_t(cnt);
	};
	r.bad_elements =
		count_bad(pa, ea) + count_bad(pb, vb) + count_bad(pc, ec) + count_bad(scratch.device_ptr(), vb);
	// Max error over a sample (first 64 Ki elements of a and c).
	std::size_t ns = std::min<std::size_t>(n, 65536);
	std::vector<double> ha(ns), hc(ns);
	be.copy_d2h(ha.data(), pa, ns * 8);
	be.copy_d2h(hc.data(), pc, ns * 8);
	for (std::size_t i = 0; i < ns; ++i)
		r.max_abs_error = std::max({r.max_abs_error, std::fabs(ha[i] - ea), std::fabs(hc[i] - ec)});
	return r;
}

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
