// The CPU reference against an independent, deliberately naive implementation
// (written from the definition of conv2d with padding materialised, not sharing
// any code or index arithmetic with conv_ref.cpp) on random shapes.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include <cmath>
#include <random>

#include "conv_ref.hpp"

using namespace rdnafix::validate;

namespace {

// Pads the input explicitly, then slides the dilated window; long double accumulation.
std::vector<long double> naive_conv(const ConvShape &s, const std::vector<float> &x, const std::vector<float> &w)
{
	const int HP = s.h + 2 * s.pad_h, WP = s.w + 2 * s.pad_w;
	std::vector<long double> padded(std::size_t(s.n) * s.c * HP * WP, 0.0L);
	for (int n = 0; n < s.n; ++n)
		for (int c = 0; c < s.c; ++c)
			for (int y = 0; y < s.h; ++y)
				for (int xx = 0; xx < s.w; ++xx)
					padded[((std::size_t(n) * s.c + c) * HP + y + s.pad_h) * WP + xx + s.pad_w] =
						x[((std::size_t(n) * s.c + c) * s.h + y) * s.w + xx];
	const int OH = (HP - (s.dil_h * (s.r - 1) + 1)) / s.stride_h + 1;
	const int OW = (WP - (s.dil_w * (s.s - 1) + 1)) / s.stride_w + 1;
	const int in_per_group = s.c / s.groups, out_per_group = s.k / s.groups;
	std::vector<long double> y(std::size_t(s.n) * s.k * OH * OW, 0.0L);
	for (int n = 0; n < s.n; ++n)
		for (int g = 0; g < s.groups; ++g)
			for (int ko = 0; ko < out_per_group; ++ko) {
				const int k = g * out_per_group + ko;
				for (int oy = 0; oy < OH; ++oy)
					for (int ox = 0; ox < OW; ++ox) {
						long double sum = 0;
						for (int ci = 0; ci < in_per_group; ++ci)
							for (int a = 0; a < s.r; ++a)
								for (int b = 0; b < s.s; ++b) {
									const int c = g * in_per_group + ci;
									const long double xv =
										padded[((std::size_t(n) * s.c + c) *
												HP +
											oy * s.stride_h + a * s.dil_h) *
											       WP +
										       ox * s.stride_w + b * s.dil_w];
									const long double wv =
										w[((std::size_t(k) * in_per_group +
										    ci) * s.r +
										   a) * s.s +
										  b];
									sum += xv * wv;
								}
						y[((std::size_t(n) * s.k + k) * OH + oy) * OW + ox] = sum;
					}
			}
	return y;
}

} // namespace

TEST_CASE("CPU reference conv2d matches a naive implementation on random shapes", "[conv_ref]")
{
	std::mt19937 rng(20261120);
	auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
	int checked = 0;
	for (int iter = 0; iter < 60; ++iter) {
		ConvShape s;
		s.groups = pick(1, 3);
		s.c = s.groups * pick(1, 4);
		s.k = s.groups * pick(1, 4);
		if (iter % 7 == 0) { // depthwise
			s.groups = s.c = s.k = pick(2, 6);
		}
		s.n = pick(1, 3);
		s.h = pick(1, 13);
		s.w = pick(1, 13);
		s.r = std::vector{1, 3, 5, 7}[std::size_t(pick(0, 3))];
		s.s = iter % 5 == 0 ? 1 : s.r;
		s.stride_h = pick(1, 3);
		s.stride_w = pick(1, 3);
		s.pad_h = pick(0, 3);
		s.pad_w = pick(0, 3);
		s.dil_h = pick(1, 2);
		s.dil_w = pick(1, 2);
		if (!s.check().empty())
			continue;
		const auto dt = iter % 2 ? DType::f16 : DType::f32;
		const auto x = random_inputs(s.x_elems(), 100 + iter, dt);
		const auto w = random_inputs(s.w_elems(), 200 + iter, dt);
		const auto ref = conv2d_reference(s, x, w, unsigned(1 + iter % 4));
		const auto nv = naive_conv(s, x, w);
		INFO(s.describe());
		REQUIRE(ref.y.size() == nv.size());
		for (std::size_t i = 0; i < nv.size(); ++i) {
			REQUIRE(std::fabs(ref.y[i] - double(nv[i])) <= 1e-12 * (1 + ref.absum[i]));
			REQUIRE(ref.absum[i] >= std::fabs(ref.y[i]) - 1e-12);
		}
		++checked;
	}
	REQUIRE(checked >= 30);
}

TEST_CASE("CPU reference is independent of the thread count", "[conv_ref]")
{
	ConvShape s;
	s.n = 2, s.c = 6, s.h = 17, s.w = 9, s.k = 10, s.r = 3, s.s = 3, s.pad_h = s.pad_w = 1, s.groups = 2;
	const auto x = random_inputs(s.x_elems(), 1, DType::f32);
	const auto w = random_inputs(s.w_elems(), 2, DType::f32);
	const auto a = conv2d_reference(s, x, w, 1);
	const auto b = conv2d_reference(s, x, w, 7);
	REQUIRE(a.y == b.y);
}

TEST_CASE("CPU reference rejects bad shapes and buffer sizes with a message", "[conv_ref]")
{
	ConvShape s;
	s.c = 6, s.k = 4, s.groups = 4; // 6 % 4 != 0
	REQUIRE(s.check().find("groups = 4 must divide") != std::string::npos);
	ConvShape t;
	t.h = t.w = 2, t.r = t.s = 5; // window larger than input
	REQUIRE(t.check().find("smaller than") != std::string::npos);
	ConvShape ok;
	ok.c = 2, ok.h = ok.w = 4, ok.k = 2;
	std::vector<float> x(3), w(ok.w_elems());
	REQUIRE_THROWS_AS(conv2d_reference(ok, x, w), std::invalid_argument);
}

TEST_CASE("fp16 inputs are exactly representable in fp16", "[conv_ref]")
{
	const auto v = random_inputs(1000, 7, DType::f16);
	for (float f : v) {
		REQUIRE(f >= -1.0f);
		REQUIRE(f <= 1.0f);
		REQUIRE(static_cast<float>(static_cast<_Float16>(f)) == f);
	}
	const auto a = random_inputs(100, 7, DType::f32), b = random_inputs(100, 7, DType::f32);
	REQUIRE(a == b);
	REQUIRE(a != random_inputs(100, 8, DType::f32));
}
