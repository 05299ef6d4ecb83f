#pragma once
// Shared by the fuzz targets of tests/fuzz (one parser each; README in
// tests/README.md "fuzz/").  A target is a function libFuzzer calls with one
// input; a finding is a sanitizer report, an uncaught exception or a broken
// invariant, each of which ends the process (abort), which is what libFuzzer
// and replay_main.cpp count as a crash.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace rdnafix::fuzz {

inline std::string_view text(const std::uint8_t *data, std::size_t size)
{
	return {reinterpret_cast<const char *>(data), size};
}

// An invariant of the parser's contract (its header comment) that the input broke.
inline void check(bool ok, const char *what)
{
	if (ok)
		return;
	std::fprintf(stderr, "fuzz: invariant broken: %s\n", what);
	std::abort();
}

} // namespace rdnafix::fuzz
