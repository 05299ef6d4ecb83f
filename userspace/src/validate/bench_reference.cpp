// Benchmark (not a test): GFLOP/s of the CPU reference conv2d with all hardware
// threads against the named baseline "same code, 1 thread", in the same run, on
// registry shapes.  Usage: rdnafix-ref-bench [case ...]  (default: three quick shapes)
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "cases.hpp"
#include "conv_ref.hpp"

using namespace rdnafix::validate;

int main(int argc, char **argv)
{
	std::vector<std::string> names(argv + 1, argv + argc);
	if (names.empty())
		names = {"conv.resnet50-conv2x-3x3.f32", "conv.resnet50-conv1-7x7s2.f32", "conv.mobilenetv2-dw3x3.f32"};
	const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
	std::printf("%-34s %12s %14s %14s %8s\n", "case", "GFLOP", "1 thread GF/s", "N threads GF/s", "speedup");
	for (const auto &n : names) {
		const CaseDef *c = find_case(n);
		if (!c || c->kind != CaseKind::conv2d) {
			std::fprintf(stderr, "rdnafix-ref-bench: '%s' is not a conv2d case (rdnactl validate --list)\n",
				     n.c_str());
			return 2;
		}
		const auto x = random_inputs(c->shape.x_elems(), 1, c->dtype);
		const auto w = random_inputs(c->shape.w_elems(), 2, c->dtype);
		auto secs = [&](unsigned threads) {
			double best = 1e30;
			for (int rep = 0; rep < 3; ++rep) {
				const auto t0 = std::chrono::steady_clock::now();
				const auto r = conv2d_reference(c->shape, x, w, threads);
				const double s =
					std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
				if (r.y.empty())
					return 0.0;
				best = std::min(best, s);
			}
			return best;
		};
		const double gf = c->shape.flops() / 1e9;
		const double s1 = secs(1), sn = secs(hw);
		std::printf("%-34s %12.3f %14.2f %14.2f %7.2fx  (%u threads)\n", n.c_str(), gf, gf / s1, gf / sn,
			    s1 / sn, hw);
	}
	return 0;
}
