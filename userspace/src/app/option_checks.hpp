#pragma once
// CLI11 checks for validate's and history's options.  CLI::Range lets NaN
// through (every comparison with NaN is false), so every floating option of
// rdnactl uses finite_range; an option that names a file refuses "".
#include <cmath>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

namespace rdnafix {

// A finite number in [min, max].  The description is CLI::Range's, so --help
// reads the same.
inline CLI::Validator finite_range(double min, double max)
{
	std::ostringstream desc;
	desc << "FLOAT in [" << min << " - " << max << "]";
	std::ostringstream range;
	range << min << " to " << max;
	return CLI::Validator(
		[min, max, r = range.str()](std::string &input) {
			double v = 0;
			if (!CLI::detail::lexical_cast(input, v) || !std::isfinite(v) || v < min || v > max)
				return "value '" + input + "' is not a finite number from " + r;
			return std::string();
		},
		desc.str());
}

// Refuses an empty value (a path given as "" is a mistake, not the default).
inline CLI::Validator non_empty(const std::string &what)
{
	return CLI::Validator(
		[what](std::string &input) {
			return input.empty()
				       ? "must not be empty: give " + what + ", or leave the option out for the default"
				       : std::string();
		},
		"");
}

} // namespace rdnafix
