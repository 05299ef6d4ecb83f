#pragma once
// The validators of rdnactl's options, with rdnactl's own error texts (the
// option's name comes first: "--device '99' is not a device index: ...";
// app/parse_error.cpp adds the verb and the --help trailer).  CLI::Range lets
// NaN through (every comparison with NaN is false), so every floating option
// of rdnactl uses finite_range; an option that names a file refuses "".
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

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
				return "'" + input + "' is not a finite number: give one from " + r;
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

// One of `valid`; the description reads as CLI::IsMember's ("{a,b}"), the
// error names what is valid ("'xml' is not valid; give one of: text, json").
inline CLI::Validator one_of(std::vector<std::string> valid)
{
	std::string desc = "{", list;
	for (const auto &v : valid) {
		desc += (desc.size() > 1 ? "," : "") + v;
		list += (list.empty() ? "" : ", ") + v;
	}
	desc += "}";
	return CLI::Validator(
		[valid, list](std::string &input) {
			for (const auto &v : valid)
				if (input == v)
					return std::string();
			return "'" + input + "' is not valid; give one of: " + list;
		},
		desc);
}

// A whole number in [min, max]; the description reads as CLI::Range's ("INT
// in [0 - 63]"), the error names the range (CLI::Range says "Value x not in range").
inline CLI::Validator int_range(long long min, long long max, const std::string &what)
{
	return CLI::Validator(
		[min, max, what](std::string &input) {
			long long v = 0;
			if (!CLI::detail::lexical_cast(input, v) || v < min || v > max)
				return "'" + input + "' is not " + what + ": give a whole number from " +
				       std::to_string(min) + " to " + std::to_string(max);
			return std::string();
		},
		"INT in [" + std::to_string(min) + " - " + std::to_string(max) + "]");
}

} // namespace rdnafix
