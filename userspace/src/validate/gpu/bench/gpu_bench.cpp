// rdnafix-gpu-bench: standalone driver of the GPU backend (no rdnactl, no
// GPU SDK): probes, compiles the validation kernels, runs conv2d on real
// CNN shapes with a sampled CPU check, stream copy/triad against the
// runtime's device-to-device copy, transfers, capacity and the memory matrix.
// Prints one "RESULT ..." line per figure (parsed by bench/torch_compare.py).
//
//   rdnafix-gpu-bench [--api hip|cuda] [--quick] [--skip-capacity] [--cache DIR]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu_cases.hpp"

namespace g = rdnafix::gpu;
namespace v = rdnafix::validate;

namespace {

struct Shape {
	const char *name;
	g::ConvDesc d;
};

g::ConvDesc conv(int n, int c, int h, int w, int k, int r, int stride, int pad, int dil = 1, int groups = 1)
{
	g::ConvDesc d;
	d.n = n;
	d.c = c;
	d.h = h;
	d.w = w;
	d.k = k;
	d.r = d.s = r;
	d.stride_h = d.stride_w = stride;
	d.pad_h = d.pad_w = pad;
	d.dil_h = d.dil_w = dil;
	d.groups = groups;
	d.bias = true;
	return d;
}

std::vector<Shape> shapes(bool quick)
{
	std::vector<Shape> s = {
		{"r50_3x3_c64_56", conv(32, 64, 56, 56, 64, 3, 1, 1)},
		{"r50_3x3_c128_28", conv(32, 128, 28, 28, 128, 3, 1, 1)},
		{"r50_3x3_c256_14", conv(32, 256, 14, 14, 256, 3, 1, 1)},
		{"r50_3x3_c512_7", conv(32, 512, 7, 7, 512, 3, 1, 1)},
		{"r50_3x3_s2_c128_56", conv(32, 128, 56, 56, 128, 3, 2, 1)},
		{"r50_1x1_c256_k64_56", conv(32, 256, 56, 56, 64, 1, 1, 0)},
		{"r50_1x1_c64_k256_56", conv(32, 64, 56, 56, 256, 1, 1, 0)},
		{"stem_7x7_s2_c3_224", conv(32, 3, 224, 224, 64, 7, 2, 3)},
		{"5x5_c64_28", conv(32, 64, 28, 28, 64, 5, 1, 2)},
		{"dw_3x3_c256_56", conv(32, 256, 56, 56, 256, 3, 1, 1, 1, 256)},
		{"grouped_3x3_g32_c256_28", conv(32, 256, 28, 28, 256, 3, 1, 1, 1, 32)},
		{"dilated_3x3_d2_c256_32", conv(8, 256, 32, 32, 256, 3, 1, 2, 2)},
	};
	g::ConvDesc odd = conv(1, 3, 17, 23, 5, 5, 1, 2);
	odd.s = 3;
	odd.pad_w = 1;
	odd.stride_h = 2;
	s.push_back({"odd_5x3_s2x1_n1", odd});
	if (quick)
		s.resize(2);
	return s;
}

// Reference for sampled outputs, double accumulation.  Returns the largest
// |gpu - ref| / (sum |x*w| + |b| + 1e-30) and counts NaN outputs.
struct Check {
	double max_scaled_err = 0;
	std::size_t nan = 0;
	std::size_t sampled = 0;
};

Check check(const g::ConvDesc &d, const std::vector<float> &x, const std::vector<float> &w, const std::vector<float> &b,
	    const std::vector<float> &y, std::mt19937_64 &rng)
{
	Check c;
	for (float v : y)
		if (std::isnan(v))
			++c.nan;
	const int P = d.p(), Q = d.q(), Cg = d.c / d.groups, Kg = d.k / d.groups;
	std::uniform_int_distribution<std::size_t> pick(0, y.size() - 1);
	std::size_t samples = std::min<std::size_t>(y.size(), 3000);
	for (std::size_t t = 0; t < samples; ++t) {
		std::size_t idx = samples == y.size() ? t : pick(rng);
		int q = int(idx % Q), p = int(idx / Q % P), k = int(idx / (std::size_t(Q) * P) % d.k);
		int n = int(idx / (std::size_t(Q) * P * d.k));
		int gi = k / Kg;
		double acc = d.bias ? b[k] : 0, mag = d.bias ? std::fabs(b[k]) : 0;
		for (int ci = 0; ci < Cg; ++ci) {
			int cc = gi * Cg + ci;
			for (int r = 0; r < d.r; ++r) {
				int ih = p * d.stride_h - d.pad_h + r * d.dil_h;
				if (ih < 0 || ih >= d.h)
					continue;
				for (int s = 0; s < d.s; ++s) {
					int iw = q * d.stride_w - d.pad_w + s * d.dil_w;
					if (iw < 0 || iw >= d.w)
						continue;
					double xv = x[((std::size_t(n) * d.c + cc) * d.h + ih) * d.w + iw];
					double wv = w[((std::size_t(k) * Cg + ci) * d.r + r) * d.s + s];
					acc += xv * wv;
					mag += std::fabs(xv * wv);
				}
			}
		}
		double e = std::fabs(double(y[idx]) - acc) / (mag + 1e-30);
		if (!(e <= c.max_scaled_err)) // NaN propagates as worst
			c.max_scaled_err = std::isnan(e) ? INFINITY : e;
		++c.sampled;
	}
	return c;
}

void fill(std::vector<float> &v, std::mt19937_64 &rng, bool half)
{
	std::uniform_real_distribution<float> u(-1.f, 1.f);
	for (auto &e : v)
		e = half ? v::half_round(u(rng)) : u(rng);
}

double now_s()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

int main(int argc, char **argv)
{
	g::SessionOptions opt;
	bool quick = false, skip_capacity = false;
	for (int i = 1; i < argc; ++i) {
		std::string a = argv[i];
		if (a == "--api" && i + 1 < argc) {
			std::string v = argv[++i];
			if (v != "hip" && v != "cuda") {
				fprintf(stderr, "--api: '%s' is not valid: hip or cuda\n", v.c_str());
				return 2;
			}
			opt.api = v == "hip" ? g::Api::hip : g::Api::cuda;
		} else if (a == "--quick") {
			quick = true;
		} else if (a == "--skip-capacity") {
			skip_capacity = true;
		} else if (a == "--cache" && i + 1 < argc) {
			opt.cache_dir = argv[++i];
		} else {
			fprintf(stderr,
				"unknown argument '%s'; valid: --api hip|cuda, --quick, --skip-capacity, --cache DIR\n",
				a.c_str());
			return 2;
		}
	}
	opt.search = g::SearchConfig::from_environment(true);
	std::vector<g::ProbeResult> probes;
	std::unique_ptr<g::Session> s;
	double t0 = now_s();
	try {
		s = g::Session::open(opt, &probes);
	} catch (const g::GpuError &e) {
		fprintf(stderr, "cannot open a GPU: %s\n", e.what());
		return 2;
	}
	double t_open = now_s() - t0;
	printf("%s\n", probes.back().describe().c_str());
	printf("RESULT session_open_s %.3f compile_s %.3f from_cache %d code_bytes %zu cache %s\n", t_open,
	       s->compile_info().seconds, int(s->compile_info().from_cache), s->compile_info().code.size(),
	       s->compile_info().cache_file.c_str());
	{ // warm open: a second session must hit the cache
		double t1 = now_s();
		auto s2 = g::Session::open(opt, nullptr);
		printf("RESULT session_open_warm_s %.3f from_cache %d\n", now_s() - t1,
		       int(s2->compile_info().from_cache));
	}

	int failures = 0;
	std::mt19937_64 rng(12345);
	for (const auto &sh : shapes(quick)) {
		std::string tc_kernel;
		for (int variant = 0; variant < 3; ++variant) {
			if (variant == 2 && tc_kernel.find("_tc_") == std::string::npos)
				continue; // no tensor-core kernel for this shape: fp16 above was the portable one
			// 0: fp32, 1: fp16 (tensor cores where the GPU has mma.sync), 2: fp16 portable kernel
			v::DType dt = variant == 0 ? v::DType::f32 : v::DType::f16;
			bool tc = variant == 1;
			g::ConvDesc d = sh.d;
			d.dtype = dt;
			std::vector<float> x(d.x_elems()), w(d.w_elems()), b(d.k), y;
			fill(x, rng, dt == v::DType::f16);
			fill(w, rng, dt == v::DType::f16);
			fill(b, rng, dt == v::DType::f16);
			try {
				auto r = g::run_conv2d(*s, d, x, w, b, y, g::MemKind::device, 3, 20, tc);
				if (variant == 1)
					tc_kernel = r.kernel;
				std::string label = variant == 2 ? "f16port" : v::dtype_name(dt);
				Check c = check(d, x, w, b, y, rng);
				double tol = dt == v::DType::f32 ? 1e-5 : 2e-3;
				bool ok = c.nan == 0 && c.max_scaled_err <= tol;
				failures += !ok;
				printf("RESULT conv %s %s n=%d c=%d h=%d w=%d k=%d r=%d s=%d st=%d pad=%d dil=%d g=%d "
				       "ms %.4f gflops %.1f kernel %s err %.2e nan %zu %s\n",
				       sh.name, label.c_str(), d.n, d.c, d.h, d.w, d.k, d.r, d.s, d.stride_h, d.pad_h,
				       d.dil_h, d.groups, r.timing.ms_median, r.timing.gflops, r.kernel.c_str(),
				       c.max_scaled_err, c.nan, ok ? "PASS" : "FAIL");
			} catch (const g::GpuError &e) {
				++failures;
				printf("RESULT conv %s %s ERROR %s\n", sh.name, v::dtype_name(dt), e.what());
			}
			fflush(stdout);
		}
	}

	// Memory matrix: one mid-size 3x3 conv with x, w, b, y in each memory kind.
	for (g::MemKind mk :
	     {g::MemKind::device, g::MemKind::host_coherent, g::MemKind::host_noncoherent, g::MemKind::managed}) {
		g::ConvDesc d = conv(4, 32, 28, 28, 32, 3, 1, 1);
		if (!s->backend().supports(mk)) {
			printf("RESULT memkind %s SKIP not supported\n", g::memkind_name(mk));
			continue;
		}
		std::vector<float> x(d.x_elems()), w(d.w_elems()), b(d.k), y;
		fill(x, rng, false);
		fill(w, rng, false);
		fill(b, rng, false);
		try {
			auto r = g::run_conv2d(*s, d, x, w, b, y, mk, 1, 5);
			Check c = check(d, x, w, b, y, rng);
			bool ok = c.nan == 0 && c.max_scaled_err <= 1e-5;
			failures += !ok;
			printf("RESULT memkind %s ms %.4f gflops %.1f err %.2e %s\n", g::memkind_name(mk),
			       r.timing.ms_median, r.timing.gflops, c.max_scaled_err, ok ? "PASS" : "FAIL");
		} catch (const g::GpuError &e) {
			++failures;
			printf("RESULT memkind %s ERROR %s\n", g::memkind_name(mk), e.what());
		}
	}

	try {
		std::size_t n = quick ? (std::size_t(1) << 24) : (std::size_t(1) << 27); // 1 GiB per array
		auto st = g::run_stream(*s, n, 20);
		bool ok = st.bad_elements == 0;
		failures += !ok;
		printf("RESULT stream elements %zu copy_gbs %.1f triad_gbs %.1f d2d_memcpy_gbs %.1f triad_over_d2d "
		       "%.3f "
		       "copy_over_d2d %.3f bad %zu maxerr %.2e %s\n",
		       st.elements, st.copy.gbs, st.triad.gbs, st.d2d_memcpy.gbs, st.triad.gbs / st.d2d_memcpy.gbs,
		       st.copy.gbs / st.d2d_memcpy.gbs, st.bad_elements, st.max_abs_error, ok ? "PASS" : "FAIL");
	} catch (const g::GpuError &e) {
		++failures;
		printf("RESULT stream ERROR %s\n", e.what());
	}

	std::vector<std::size_t> sizes;
	for (std::size_t sz = 4096; sz <= (std::size_t(1) << 30); sz *= (quick ? 64 : 4)) // 4 KiB .. 1 GiB
		sizes.push_back(sz);
	for (g::MemKind hk : {g::MemKind::pageable, g::MemKind::host_coherent}) {
		try {
			for (const auto &tp : g::run_transfers(*s, sizes, hk, 5)) {
				failures += !tp.verified;
				printf("RESULT transfer %s bytes %zu h2d_gbs %.2f d2h_gbs %.2f %s\n",
				       g::memkind_name(hk), tp.bytes, tp.h2d.gbs, tp.d2h.gbs,
				       tp.verified ? "PASS" : "FAIL");
			}
		} catch (const g::GpuError &e) {
			++failures;
			printf("RESULT transfer %s ERROR %s\n", g::memkind_name(hk), e.what());
		}
	}

	if (!skip_capacity) {
		try {
			double t1 = now_s();
			auto c = g::run_capacity(*s, quick ? 0.25 : 0.90);
			bool ok = c.bad_words == 0 && c.stop_reason.empty();
			failures += !ok;
			printf("RESULT capacity total %llu free %llu target %llu allocated %llu chunks %d bad %llu "
			       "fill_gbs "
			       "%.1f wall_s %.2f stop '%s' %s\n",
			       (unsigned long long)c.reported_total, (unsigned long long)c.reported_free,
			       (unsigned long long)c.target_bytes, (unsigned long long)c.allocated, c.chunks,
			       (unsigned long long)c.bad_words, c.fill_gbs, now_s() - t1, c.stop_reason.c_str(),
			       ok ? "PASS" : "FAIL");
		} catch (const g::GpuError &e) {
			++failures;
			printf("RESULT capacity ERROR %s\n", e.what());
		}
	}
	printf("RESULT failures %d\n", failures);
	return failures ? 1 : 0;
}
