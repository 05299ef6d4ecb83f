// Tests of the parameter validators in kmod/rdnafix_policy.h: every module
// parameter value the kernel accepts or refuses.
#include <catch2/catch_test_macros.hpp>

#include <map>
#include <string>
#include <vector>

#include "policy_support.hpp"
#include "rdnafix_policy.h"

using namespace kmod_test;

TEST_CASE("noretry accepts exactly -1, 0, 1", "[params]")
{
	const std::map<std::string, int> valid = {
		{"-1", -1}, {"0", 0}, {"1", 1}, {"-1\n", -1}, {"0\n", 0}, {"1\n", 1},
	};
	for (const auto &[in, want] : valid) {
		int v = 42;
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_noretry(in.c_str(), &v) == 0);
		CHECK(v == want);
	}
	std::vector<std::string> bad = kGarbage;
	bad.insert(bad.end(), {"2", "-2", "01", "00", "-01", "10", "-10", "999", "1000", "-1000"});
	for (const auto &in : bad) {
		int v = 42;
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_noretry(in.c_str(), &v) == -EINVAL);
		CHECK(v == 42); // untouched on error
	}
}

TEST_CASE("vm_fragment_size accepts -1 and 4..9 only", "[params]")
{
	for (int i = -1; i <= 9; i++) {
		if (i >= 0 && i < 4)
			continue;
		int v = 42;
		const std::string in = std::to_string(i);
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_fragment(in.c_str(), &v) == 0);
		CHECK(v == i);
		CHECK(rdnafix_parse_fragment((in + "\n").c_str(), &v) == 0);
	}
	std::vector<std::string> bad = kGarbage;
	bad.insert(bad.end(), {"0", "1", "2", "3", "10", "11", "-2", "-4", "-9", "09", "4 ", "44"});
	for (const auto &in : bad) {
		int v = 42;
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_fragment(in.c_str(), &v) == -EINVAL);
		CHECK(v == 42);
	}
}

TEST_CASE("mtype_sysmem/mtype_vram accept keep|nc|wc|cc|uc with the hardware encoding", "[params]")
{
	const std::map<std::string, int> valid = {
		{"keep", RDNAFIX_MTYPE_KEEP}, {"nc", 0}, {"wc", 1}, {"cc", 2}, {"uc", 3}, {"uc\n", 3},
	};
	for (const auto &[in, want] : valid) {
		int v = 42;
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_mtype(in.c_str(), &v) == 0);
		CHECK(v == want);
	}
	// navi10_enum.h: MTYPE_NC=0, MTYPE_WC=1, MTYPE_CC=2 (TCC_MTYPE), MTYPE_UC=3 (MTYPE)
	CHECK(RDNAFIX_MTYPE_NC == 0);
	CHECK(RDNAFIX_MTYPE_WC == 1);
	CHECK(RDNAFIX_MTYPE_CC == 2);
	CHECK(RDNAFIX_MTYPE_UC == 3);
	std::vector<std::string> bad = kGarbage;
	bad.insert(bad.end(),
		   {"NC", "Keep", "KEEP", "n", "ncx", "rw", "default", "0", "3", "keep ", " uc", "uc\n\n", "ucuc"});
	for (const auto &in : bad) {
		int v = 42;
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_mtype(in.c_str(), &v) == -EINVAL);
		CHECK(v == 42);
	}
	for (int m = RDNAFIX_MTYPE_KEEP; m <= RDNAFIX_MTYPE_UC; m++) {
		int v = 42;
		CHECK(rdnafix_parse_mtype(rdnafix_mtype_name(m), &v) == 0);
		CHECK(v == m); // name and parser round-trip
	}
	CHECK(std::string(rdnafix_mtype_name(7)) == "invalid");
}

TEST_CASE("dry_run/strict accept the kernel bools Y, N, y, n, 1, 0", "[params]")
{
	bool b = false;
	for (const char *t : {"1", "Y", "y", "Y\n"}) {
		b = false;
		INFO("value '" << t << "'");
		CHECK(rdnafix_parse_bool01(t, &b) == 0);
		CHECK(b);
	}
	for (const char *f : {"0\n", "N", "n", "0"}) {
		b = true;
		INFO("value '" << f << "'");
		CHECK(rdnafix_parse_bool01(f, &b) == 0);
		CHECK_FALSE(b);
	}
	std::vector<std::string> bad = kGarbage;
	bad.insert(bad.end(), {"2", "-1", "yes", "no", "true", "on", "off", "01", "10", "Yy"});
	for (const auto &in : bad) {
		bool v = true;
		INFO("value '" << in << "'");
		CHECK(rdnafix_parse_bool01(in.c_str(), &v) == -EINVAL);
		CHECK(v);
	}
}

TEST_CASE("a missing value (NULL) is refused by every validator", "[params]")
{
	int v = 42;
	bool b = true;
	rdnafix_sel_list l{};
	l.count = 7;
	CHECK(rdnafix_parse_noretry(nullptr, &v) == -EINVAL);
	CHECK(rdnafix_parse_fragment(nullptr, &v) == -EINVAL);
	CHECK(rdnafix_parse_mtype(nullptr, &v) == -EINVAL);
	CHECK(v == 42);
	CHECK(rdnafix_parse_bool01(nullptr, &b) == -EINVAL);
	CHECK(b);
	CHECK(rdnafix_parse_sel_list(nullptr, true, &l, nullptr) == -EINVAL);
	CHECK(rdnafix_parse_sel_list(nullptr, false, &l, nullptr) == -EINVAL);
	CHECK(l.count == 7);
}
