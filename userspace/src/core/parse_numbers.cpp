// Number and version parsers for sysfs-style values.
#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "core/parse.hpp"
#include "core/text_util.hpp"

namespace rdnafix::core {

using detail::is_space;
using detail::shown;

std::string_view trim(std::string_view s)
{
	while (!s.empty() && is_space(s.front()))
		s.remove_prefix(1);
	while (!s.empty() && is_space(s.back()))
		s.remove_suffix(1);
	return s;
}

Result<std::uint64_t> parse_u64(std::string_view text)
{
	std::string_view t = trim(text);
	int base = 10;
	std::string_view digits = t;
	if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
		base = 16;
		digits = t.substr(2);
	}
	std::uint64_t v = 0;
	auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
	if (digits.empty() || ec == std::errc::invalid_argument || p != digits.data() + digits.size())
		return Error{fmt::format("'{}' is not an unsigned number (valid: decimal like 4096 or hex like 0x1000)",
					 shown(t))};
	if (ec == std::errc::result_out_of_range)
		return Error{fmt::format("'{}' is larger than 18446744073709551615", shown(t))};
	return v;
}

Result<std::int64_t> parse_i64(std::string_view text)
{
	std::string_view t = trim(text);
	bool neg = !t.empty() && t[0] == '-';
	std::string_view rest = neg ? t.substr(1) : t;
	if (!rest.empty() && (rest[0] == '-' || rest[0] == '+'))
		return Error{
			fmt::format("'{}' is not a number (valid: decimal like -1 or 9, or hex like 0x10)", shown(t))};
	auto u = parse_u64(rest);
	if (!u)
		return Error{
			fmt::format("'{}' is not a number (valid: decimal like -1 or 9, or hex like 0x10)", shown(t))};
	constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
	if (!neg && *u > max)
		return Error{fmt::format("'{}' is out of range for a signed 64-bit number", shown(t))};
	if (neg && *u > max + 1)
		return Error{fmt::format("'{}' is out of range for a signed 64-bit number", shown(t))};
	if (neg)
		return *u == max + 1 ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(*u);
	return static_cast<std::int64_t>(*u);
}

Result<std::pair<unsigned, unsigned>> parse_major_minor(std::string_view text)
{
	std::string_view t = trim(text);
	auto colon = t.find(':');
	unsigned mj = 0, mn = 0;
	bool ok = colon != std::string_view::npos && colon > 0 && colon + 1 < t.size();
	if (ok) {
		auto [p1, e1] = std::from_chars(t.data(), t.data() + colon, mj);
		auto [p2, e2] = std::from_chars(t.data() + colon + 1, t.data() + t.size(), mn);
		ok = e1 == std::errc{} && e2 == std::errc{} && p1 == t.data() + colon && p2 == t.data() + t.size() &&
		     mj < 4096 && mn < (1u << 20);
	}
	if (!ok)
		return Error{fmt::format("'{}' is not a device number (valid: major:minor like 235:0, major below "
					 "4096, minor below 1048576)",
					 shown(t))};
	return std::pair<unsigned, unsigned>{mj, mn};
}

Result<bool> parse_kernel_bool(std::string_view text)
{
	std::string_view t = trim(text);
	if (t == "Y" || t == "y" || t == "1")
		return true;
	if (t == "N" || t == "n" || t == "0")
		return false;
	return Error{fmt::format("'{}' is not a kernel boolean (valid: Y, N, 1, 0)", shown(t))};
}

Result<GcVersion> parse_gc_version(std::string_view dotted)
{
	std::string_view t = trim(dotted);
	unsigned parts[3] = {0, 0, 0};
	std::size_t pos = 0;
	for (int i = 0; i < 3; ++i) {
		std::size_t end = t.find('.', pos);
		if (i == 2)
			end = t.size();
		if (end == std::string_view::npos || end == pos)
			return Error{fmt::format(
				"'{}' is not a GC IP version (valid: major.minor.revision like 10.3.2)", shown(t))};
		std::string_view field = t.substr(pos, end - pos);
		auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), parts[i]);
		if (ec != std::errc{} || p != field.data() + field.size() || parts[i] > 255)
			return Error{fmt::format(
				"'{}' is not a GC IP version (valid: major.minor.revision like 10.3.2)", shown(t))};
		pos = end + 1;
	}
	return GcVersion{parts[0], parts[1], parts[2]};
}

} // namespace rdnafix::core
