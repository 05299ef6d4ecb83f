// Pure helpers of the GPU backend: the conv2d descriptor's checks (shape and
// kernel limits), ELF reading, the embedded kernel source.
#include <catch2/catch_test_macros.hpp>

#include <random>
#include <set>

#include "code_object.hpp"
#include "gpu_cases.hpp"
#include "test_util.hpp"

using namespace rdnafix::gpu;

TEST_CASE("conv2d shape: output size, flops, and errors that name the bad field")
{
	ConvDesc d;
	d.n = 2;
	d.c = 6;
	d.h = 17;
	d.w = 23;
	d.k = 4;
	d.r = 5;
	d.s = 3;
	d.stride_h = 2;
	d.pad_h = 2;
	d.pad_w = 1;
	d.dil_w = 2;
	d.groups = 2;
	CHECK(d.check().empty());
	CHECK(d.p() == (17 + 4 - 4 - 1) / 2 + 1);
	CHECK(d.q() == (23 + 2 - 4 - 1) / 1 + 1);
	CHECK(d.w_elems() == std::size_t(4 * 3 * 5 * 3));
	CHECK(d.flops() == 2.0 * 2 * 4 * d.p() * d.q() * 3 * 5 * 3);

	ConvDesc bad = d;
	bad.groups = 4;
	CHECK(bad.check().find("groups = 4 must divide c = 6") != std::string::npos);
	bad = d;
	bad.stride_w = 0;
	CHECK(bad.check().find("stride_w = 0") != std::string::npos);
	bad = d;
	bad.r = 9;
	CHECK(bad.check().find("r and s must be 1..7") != std::string::npos);
	bad = d;
	bad.h = 2;
	bad.pad_h = 0;
	CHECK(bad.check().find("output would be empty") != std::string::npos);
	bad = d;
	bad.pad_w = -1;
	CHECK(bad.check().find("padding") != std::string::npos);
	bad = d;
	bad.n = 100000;
	bad.c = 100;
	bad.groups = 1;
	CHECK(bad.check().find("too large") != std::string::npos);
}

TEST_CASE("ELF reading: machine and symbols, and no crash on damaged input")
{
	auto elf = gputest::make_elf(kEmAmdgpu, {"conv2d_gemm_f32_r3_m128", "stream_triad"});
	CHECK(elf_machine(elf) == 224);
	auto syms = elf_symbols(elf);
	CHECK(std::set<std::string>(syms.begin(), syms.end()) ==
	      std::set<std::string>{"conv2d_gemm_f32_r3_m128", "stream_triad"});
	CHECK(check_code_object(Api::hip, elf, {"stream_triad"}).empty());
	CHECK(check_code_object(Api::hip, elf, {"stream_copy"}) == "kernel 'stream_copy' missing from the code object");
	CHECK(check_code_object(Api::cuda, elf, {}) == "ELF machine 224, expected 190");
	CHECK(elf_machine({0x7f, 'E', 'L', 'F'}) == -1);

	// every truncation and many single-byte corruptions: must not crash or over-read
	for (size_t n = 0; n < elf.size(); ++n) {
		std::vector<std::uint8_t> cut(elf.begin(), elf.begin() + std::ptrdiff_t(n));
		(void)elf_symbols(cut);
		(void)check_code_object(Api::hip, cut, {"stream_triad"});
	}
	std::mt19937 rng(3);
	for (int i = 0; i < 20000; ++i) {
		auto bad = elf;
		bad[rng() % bad.size()] = std::uint8_t(rng());
		bad[rng() % bad.size()] = std::uint8_t(rng());
		(void)elf_symbols(bad);
	}
	SUCCEED("damaged images handled");
}

TEST_CASE("validation kernels: names unique, each defined in the embedded source")
{
	const auto &names = validation_kernel_names();
	CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
	const std::string &src = validation_kernel_source();
	CHECK(src.find("extern \"C\"") != std::string::npos);
	for (const auto &n : names) {
		// gemm names are made by DEF_GEMM3(type, f32|f16, R): check that instantiation
		if (n.rfind("conv2d_gemm_", 0) == 0) {
			std::string t = n.substr(12, 3), r = n.substr(17, n.find("_m") - 17);
			std::string type = t == "f32" ? "float" : "unsigned short";
			CHECK(src.find("DEF_GEMM3(" + type + ", " + t + ", " + r + ")") != std::string::npos);
		} else {
			CHECK(src.find(n) != std::string::npos);
		}
	}
}
