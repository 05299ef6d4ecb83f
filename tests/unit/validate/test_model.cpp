// The values shared by the host half and the GPU backend (model.hpp): fp16
// conversion against the compiler's own _Float16, memory-kind names.
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "model.hpp"

using namespace rdnafix::validate;

namespace {
std::uint16_t compiler_half(float f)
{
	_Float16 h = static_cast<_Float16>(f);
	std::uint16_t u;
	std::memcpy(&u, &h, 2);
	return u;
}
float bits_to_float(std::uint32_t u)
{
	float f;
	std::memcpy(&f, &u, 4);
	return f;
}
} // namespace

TEST_CASE("fp16: every half value round-trips and widens like the compiler's _Float16")
{
	for (std::uint32_t h = 0; h < 0x10000; ++h) {
		float f = half_to_float(std::uint16_t(h));
		_Float16 ref;
		std::uint16_t hh = std::uint16_t(h);
		std::memcpy(&ref, &hh, 2);
		if (std::isnan(f)) {
			REQUIRE(std::isnan(static_cast<float>(ref)));
			continue;
		}
		REQUIRE(f == static_cast<float>(ref));
		REQUIRE(float_to_half(f) == h);
	}
}

TEST_CASE("fp16: float -> half rounds to nearest even like the compiler (random, ties, edges)")
{
	std::mt19937 rng(7);
	std::uniform_int_distribution<std::uint32_t> bits;
	for (int i = 0; i < 2000000; ++i) {
		float f = bits_to_float(bits(rng));
		if (std::isnan(f))
			continue;
		REQUIRE(float_to_half(f) == compiler_half(f));
	}
	// exact ties between two halves, subnormal boundaries, overflow boundary
	for (float f : {1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 65504.0f, 65519.99f, 65520.0f, 1e-8f, 2.9802322e-8f,
			5.9604645e-8f, 8.940697e-8f, 6.097555e-5f, 6.1035156e-5f, -0.0f, INFINITY, -INFINITY})
		CHECK(float_to_half(f) == compiler_half(f));
}

TEST_CASE("memory kinds: names round-trip; unknown names are rejected")
{
	for (MemKind k :
	     {MemKind::device, MemKind::host_coherent, MemKind::host_noncoherent, MemKind::managed, MemKind::pageable})
		CHECK(parse_memkind(memkind_name(k)) == k);
	CHECK_FALSE(parse_memkind("coherent"));
}
