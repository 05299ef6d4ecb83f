#pragma once
// The bytes of one captured kernel module of tests/unit/core/data/modsig/
// (SOURCE.md there), for the module-signature and .modinfo reader tests.
#include <catch2/catch_test_macros.hpp>

#include <fstream>
#include <sstream>
#include <string>

inline std::string modsig_sample(const std::string &name)
{
	std::ifstream f(std::string(RDNAFIX_CORE_TEST_DATA) + "/modsig/" + name, std::ios::binary);
	REQUIRE(f);
	std::ostringstream s;
	s << f.rdbuf();
	return s.str();
}
