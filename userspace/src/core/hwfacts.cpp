// Pure parsers and tables for the hardware facts (core/hwfacts.hpp).
#include "core/hwfacts.hpp"

#include "core/parse.hpp"
#include "core/text_util.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include <fmt/format.h>

namespace rdnafix::core {

namespace {

using detail::split_lines;
using detail::split_words;

std::vector<unsigned long long> dotted(std::string_view s)
{
	std::vector<unsigned long long> parts;
	while (!s.empty() && s.front() >= '0' && s.front() <= '9') {
		unsigned long long v = 0;
		const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
		if (r.ec != std::errc())
			return {};
		parts.push_back(v);
		s.remove_prefix(std::size_t(r.ptr - s.data()));
		if (s.size() < 2 || s.front() != '.' || s[1] < '0' || s[1] > '9')
			break;
		s.remove_prefix(1);
	}
	return parts;
}

int cmp_parts(const std::vector<unsigned long long> &a, const std::vector<unsigned long long> &b)
{
	for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
		const auto x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

// KMS_DRIVER_MINOR of amdgpu as built in these kernels (docs/hwfacts.md):
// read from struct drm_driver amdgpu_kms_driver in Debian's amdgpu.ko.
struct DrmRow {
	std::array<unsigned long long, 3> release;
	int minor;
};
constexpr std::array kDrmRows{
	DrmRow{{6, 1, 192}, 49},  // linux-image-6.1.0-56-amd64 6.1.192-2
	DrmRow{{6, 12, 117}, 61}, // linux-image-6.12.117+deb12-amd64 6.12.117-1~deb12u1
	DrmRow{{7, 2, 13}, 64},   // linux-image-7.2.13+deb14-amd64 7.2.13-1
};

} // namespace

std::map<std::string, std::string> parse_kernel_config(std::string_view text, const std::vector<std::string> &wanted)
{
	std::map<std::string, std::string> out;
	const auto keep = [&](std::string_view k) {
		return wanted.empty() || std::find(wanted.begin(), wanted.end(), k) != wanted.end();
	};
	for (auto line : split_lines(text)) {
		line = trim(line);
		if (line.starts_with("# CONFIG_") && line.ends_with(" is not set")) {
			const auto key = line.substr(2, line.size() - 2 - std::string_view(" is not set").size());
			if (keep(key))
				out[std::string(key)] = "n";
			continue;
		}
		if (!line.starts_with("CONFIG_"))
			continue;
		const auto eq = line.find('=');
		if (eq == std::string_view::npos)
			continue;
		const auto key = line.substr(0, eq);
		if (keep(key))
			out[std::string(key)] = std::string(line.substr(eq + 1));
	}
	return out;
}

std::optional<DrmVersionNumber> parse_drm_version(std::string_view text)
{
	text = trim(text);
	const auto p = dotted(text);
	if (p.size() < 2 || p.size() > 3 || p[0] > 1000 || p[1] > 100000 || (p.size() == 3 && p[2] > 100000))
		return std::nullopt;
	// the numbers must be the whole text
	std::string again = fmt::format("{}.{}", p[0], p[1]) + (p.size() == 3 ? fmt::format(".{}", p[2]) : "");
	if (again != text)
		return std::nullopt;
	return DrmVersionNumber{int(p[0]), int(p[1]), p.size() == 3 ? int(p[2]) : 0};
}

std::vector<DrmVersionLine> parse_drm_version_file(std::string_view text, std::vector<std::string> *problems)
{
	std::vector<DrmVersionLine> out;
	std::size_t n = 0;
	for (const auto raw : split_lines(text)) {
		++n;
		const std::string_view line = trim(raw);
		if (line.empty() || line.front() == '#')
			continue;
		const auto words = split_words(line);
		const auto v = words.size() == 3 ? parse_drm_version(words[2]) : std::nullopt;
		if (!v) {
			if (problems)
				problems->push_back(fmt::format(
					"line {}: expected '<device> <driver> <major.minor.patch>', got '{}'", n,
					std::string(line)));
			continue;
		}
		out.push_back({std::string(words[0]), std::string(words[1]), *v});
	}
	return out;
}

DrmMinorBounds derived_drm_minor(std::string_view kernel_release)
{
	DrmMinorBounds b;
	const auto r = dotted(kernel_release);
	if (r.size() < 2)
		return b;
	for (const auto &row : kDrmRows) {
		const std::vector<unsigned long long> rel(row.release.begin(), row.release.end());
		const int c = cmp_parts(rel, r);
		if (c <= 0)
			b.at_least = row.minor; // rows ascend: the last one at or below wins
		if (c >= 0 && !b.at_most)
			b.at_most = row.minor;
		if (rel[0] == r[0] && rel[1] == r[1] && b.at_least && b.at_most && *b.at_least == *b.at_most)
			b.exact = true;
	}
	return b;
}

std::optional<int> compare_versions(std::string_view a, std::string_view b)
{
	a = trim(a);
	b = trim(b);
	const auto hex = [](std::string_view s) { return s.starts_with("0x") || s.starts_with("0X"); };
	if (hex(a) && hex(b)) {
		unsigned long long x = 0, y = 0;
		const auto ra = std::from_chars(a.data() + 2, a.data() + a.size(), x, 16);
		const auto rb = std::from_chars(b.data() + 2, b.data() + b.size(), y, 16);
		if (ra.ec != std::errc() || rb.ec != std::errc() || ra.ptr == a.data() + 2 || rb.ptr == b.data() + 2)
			return std::nullopt;
		return x == y ? 0 : x < y ? -1 : 1;
	}
	if (hex(a) || hex(b))
		return std::nullopt;
	const auto x = dotted(a), y = dotted(b);
	if (x.empty() || y.empty())
		return std::nullopt;
	return cmp_parts(x, y);
}

} // namespace rdnafix::core
