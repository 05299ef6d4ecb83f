// Helpers shared by the tests of kmod/rdnafix_policy.h (test_policy_*.cpp).
#pragma once

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "rdnafix_policy.h"

namespace kmod_test {

constexpr std::uint64_t kSystem = 1ULL << 1;
constexpr std::uint64_t kPrt = 1ULL << 51;
constexpr std::uint64_t kMtypeMask = 7ULL << 48;

inline std::uint64_t with_mtype(std::uint64_t pte, unsigned mtype)
{
	return (pte & ~kMtypeMask) | (static_cast<std::uint64_t>(mtype) << 48);
}

inline rdnafix_sel_list parse_list(const std::string &s, bool allow_empty)
{
	rdnafix_sel_list l{};
	unsigned bad = 0;
	REQUIRE(rdnafix_parse_sel_list(s.c_str(), allow_empty, &l, &bad) == 0);
	return l;
}

inline rdnafix_dev make_dev(std::uint16_t device, const std::string &bdf = "0000:03:00.0",
			    std::uint16_t vendor = 0x1002)
{
	rdnafix_dev d{};
	d.vendor = vendor;
	d.device = device;
	REQUIRE(rdnafix_parse_bdf(bdf.c_str(), static_cast<unsigned>(bdf.size()), &d.bdf) == 0);
	return d;
}

inline rdnafix_decision decide(const std::string &targets, const std::string &exclude, const rdnafix_dev &d)
{
	rdnafix_sel_list t = parse_list(targets, false);
	rdnafix_sel_list x = parse_list(exclude, true);
	return rdnafix_decide(&t, &x, &d);
}

inline bool targeted(const std::string &targets, const std::string &exclude, const rdnafix_dev &d)
{
	return decide(targets, exclude, d).verdict == RDNAFIX_TARGETED;
}

// Inputs every validator must refuse (besides its own out-of-range values).
inline const std::vector<std::string> kGarbage = {
	"",
	" ",
	"\n",
	"\n\n",
	"abc",
	"1 ",
	" 1",
	"1x",
	"+1",
	"-",
	"--1",
	"0x1",
	"1\n\n",
	"1\t",
	"1,1",
	"-0",
	"0 \n",
	"é",
	std::string(300, '1'),
	std::string(4096, 'a'),
};

} // namespace kmod_test
