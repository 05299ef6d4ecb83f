// The policy header compiled as C (policy_c.c, as in the kernel) agrees with
// the C++ compilation; kmod/VERSION holds the one version string.
#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "policy_c.h"

#include "rdnafix_policy.h"

TEST_CASE("the header compiled as C agrees with C++", "[c]")
{
	const std::vector<std::string> inputs = {
		"-1",
		"0",
		"1",
		"2",
		"4",
		"9",
		"10",
		"",
		"keep",
		"nc",
		"wc",
		"cc",
		"uc",
		"UC",
		"1\n",
		"01",
		"-0",
		"rdna1",
		"rdna1,rdna2",
		"0000:03:00.0",
		"gfx1031",
		"apu,",
		std::string(300, 'x'),
	};
	for (const auto &s : inputs) {
		INFO("input '" << s << "'");
		int a = 42, b = 42;
		CHECK(c_parse_noretry(s.c_str(), &a) == rdnafix_parse_noretry(s.c_str(), &b));
		CHECK(a == b);
		a = b = 42;
		CHECK(c_parse_fragment(s.c_str(), &a) == rdnafix_parse_fragment(s.c_str(), &b));
		CHECK(a == b);
		a = b = 42;
		CHECK(c_parse_mtype(s.c_str(), &a) == rdnafix_parse_mtype(s.c_str(), &b));
		CHECK(a == b);
		unsigned cnt = 0, bad_c = 0, bad_cpp = 0;
		rdnafix_sel_list l{};
		CHECK(c_parse_sel_list(s.c_str(), 0, &cnt, &bad_c) ==
		      rdnafix_parse_sel_list(s.c_str(), false, &l, &bad_cpp));
		CHECK(bad_c == bad_cpp);
	}
	std::uint64_t oc = 0, ocpp = 0;
	CHECK(c_pte_apply(0x63, RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, RDNAFIX_OVERRIDE_NC, 0, &oc) ==
	      rdnafix_pte_apply(0x63, RDNAFIX_MTYPE_UC, RDNAFIX_MTYPE_KEEP, RDNAFIX_OVERRIDE_NC, false, &ocpp));
	CHECK(oc == ocpp);
	CHECK(oc == (0x63ULL | (3ULL << 48)));
	CHECK(c_targeted("rdna2", "", 0x1002, 0x73df, "0000:0c:00.0") == 1);
	CHECK(c_targeted("rdna2", "0000:0c:00.0", 0x1002, 0x73df, "0000:0c:00.0") == 0);
	CHECK(c_targeted("rdna9", "", 0x1002, 0x73df, "0000:0c:00.0") == -1);
	unsigned n = 0;
	rdnafix_gpu_table(&n);
	CHECK(c_table_size() == n);
}

TEST_CASE("kmod/VERSION is the single x.y.z version", "[version]")
{
	std::ifstream in(RDNAFIX_KMOD_VERSION_FILE);
	REQUIRE(in);
	std::string v, rest;
	std::getline(in, v);
	CHECK_FALSE(std::getline(in, rest)); // one line only
	int dots = 0;
	for (char c : v) {
		if (c == '.')
			dots++;
		else
			CHECK((c >= '0' && c <= '9'));
	}
	CHECK(dots == 2);
}
