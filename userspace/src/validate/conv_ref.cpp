#include "conv_ref.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "model.hpp"

namespace rdnafix::validate {

namespace {

// One (image, output channel) plane.
void plane(const ConvShape &sh, std::span<const float> x, std::span<const float> w, std::size_t img, int oc, double *y,
	   double *absum)
{
	const int cpg = sh.c / sh.groups; // input channels per group
	const int kpg = sh.k / sh.groups; // output channels per group
	const int g = oc / kpg;
	const int P = sh.p(), Q = sh.q();
	for (int op = 0; op < P; ++op) {
		for (int oq = 0; oq < Q; ++oq) {
			double acc = 0, aacc = 0;
			for (int ci = 0; ci < cpg; ++ci) {
				const std::size_t ic = std::size_t(g) * cpg + ci;
				const float *xin = x.data() + (img * sh.c + ic) * std::size_t(sh.h) * sh.w;
				const float *wk = w.data() + ((std::size_t(oc) * cpg + ci) * sh.r) * sh.s;
				for (int fr = 0; fr < sh.r; ++fr) {
					const int ih = op * sh.stride_h - sh.pad_h + fr * sh.dil_h;
					if (ih < 0 || ih >= sh.h)
						continue;
					for (int fs = 0; fs < sh.s; ++fs) {
						const int iw = oq * sh.stride_w - sh.pad_w + fs * sh.dil_w;
						if (iw < 0 || iw >= sh.w)
							continue;
						const double prod = double(xin[std::size_t(ih) * sh.w + iw]) *
								    double(wk[std::size_t(fr) * sh.s + fs]);
						acc += prod;
						aacc += std::fabs(prod);
					}
				}
			}
			const std::size_t o = std::size_t(op) * Q + oq;
			y[o] = acc;
			absum[o] = aacc;
		}
	}
}

} // namespace

ConvReference conv2d_reference(const ConvShape &sh, std::span<const float> x, std::span<const float> w,
			       unsigned threads)
{
	if (auto err = sh.check(); !err.empty())
		throw std::invalid_argument(err);
	if (x.size() != sh.x_elems() || w.size() != sh.w_elems())
		throw std::invalid_argument(fmt::format("conv2d reference: got {} input / {} weight elements, "
							"the shape needs {} / {}",
							x.size(), w.size(), sh.x_elems(), sh.w_elems()));
	ConvReference out;
	out.y.resize(sh.y_elems());
	out.absum.resize(sh.y_elems());
	const std::size_t planes = std::size_t(sh.n) * sh.k;
	const std::size_t plane_elems = std::size_t(sh.p()) * sh.q();
	if (threads == 0)
		threads = std::max(1u, std::thread::hardware_concurrency());
	threads = unsigned(std::min<std::size_t>(threads, planes));
	std::atomic<std::size_t> next{0};
	auto worker = [&] {
		for (std::size_t i; (i = next.fetch_add(1)) < planes;)
			plane(sh, x, w, i / sh.k, int(i % sh.k), out.y.data() + i * plane_elems,
			      out.absum.data() + i * plane_elems);
	};
	{
		std::vector<std::jthread> pool;
		for (unsigned t = 1; t < threads; ++t)
			pool.emplace_back(worker);
		worker();
	} // joined here
	return out;
}

std::uint64_t seed_from_name(std::string_view name)
{
	std::uint64_t h = 1469598103934665603ull;
	for (unsigned char ch : name) {
		h ^= ch;
		h *= 1099511628211ull;
	}
	return h;
}

std::vector<float> random_inputs(std::size_t count, std::uint64_t seed, DType t)
{
	std::vector<float> v(count);
	std::uint64_t s = seed;
	for (auto &e : v) {
		s += 0x9e3779b97f4a7c15ull;
		std::uint64_t z = s;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		// 24 random bits -> [-1, 1)
		const float f = float(double(z >> 40) / double(1u << 23) - 1.0);
		e = t == DType::f16 ? half_round(f) : f;
	}
	return v;
}

} // namespace rdnafix::validate
