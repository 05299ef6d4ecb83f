#include "rules.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace rdnafix::status {

namespace {
std::optional<long long> parse_int(std::string_view s)
{
	while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
		s.remove_suffix(1);
	while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
		s.remove_prefix(1);
	if (!s.empty() && s.front() == '+')
		s.remove_prefix(1);
	long long v = 0;
	auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
	if (s.empty() || ec != std::errc() || p != s.data() + s.size())
		return std::nullopt;
	return v;
}
} // namespace

bool rocm_officially_supported(std::string_view gfx)
{
	// rocm-userspace.md §5 "Official support status": Linux matrices 6.0-6.3
	// (gfx908 gfx90a gfx942 gfx1030 gfx1100), RX 7000 (gfx1101/1102) in the
	// Radeon tables, RDNA4 from 6.4.1, gfx1151 from 6.4.4, gfx1150 from 7.0.2,
	// Radeon VII/PRO VII (gfx906, deprecated).
	static constexpr std::array<std::string_view, 13> list{"gfx906",  "gfx908",  "gfx90a",  "gfx942",  "gfx950",
							       "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1150",
							       "gfx1151", "gfx1200", "gfx1201"};
	return std::find(list.begin(), list.end(), gfx) != list.end();
}

std::optional<bool> param_values_equal(std::string_view a, std::string_view b)
{
	auto boolish = [](std::string_view s) -> std::optional<bool> {
		if (s == "Y" || s == "y" || s == "1" || s == "on" || s == "true")
			return true;
		if (s == "N" || s == "n" || s == "0" || s == "off" || s == "false")
			return false;
		return std::nullopt;
	};
	auto ia = parse_int(a), ib = parse_int(b);
	if (ia && ib)
		return *ia == *ib;
	// Booleans: the kernel prints Y/N.
	if ((b == "Y" || b == "N") && boolish(a))
		return *boolish(a) == (b == "Y");
	// Hex values such as ppfeaturemask=0xfff7bfff are printed in decimal... or hex.
	auto hexval = [](std::string_view s) -> std::optional<unsigned long long> {
		if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			unsigned long long v = 0;
			auto [p, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
			if (ec == std::errc() && p == s.data() + s.size())
				return v;
		}
		return std::nullopt;
	};
	auto ha = hexval(a), hb = hexval(b);
	if (ha && (hb || ib))
		return *ha == (hb ? *hb : static_cast<unsigned long long>(*ib));
	if (hb && ia)
		return *hb == static_cast<unsigned long long>(*ia);
	if (a == b)
		return true;
	return std::nullopt;
}

} // namespace rdnafix::status
