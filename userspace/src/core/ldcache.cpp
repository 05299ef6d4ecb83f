// /etc/ld.so.cache reader (ldcache.hpp).
#include "core/ldcache.hpp"

#include <fmt/format.h>

#include <cstring>
#include <optional>

namespace rdnafix::core::ldcache {

namespace {

constexpr std::string_view kOld = "ld.so-1.7.0";
constexpr std::string_view kNew = "glibc-ld.so.cache1.1";
constexpr std::size_t kNewHeader = 48, kNewEntry = 24, kOldEntry = 12;

template <class T> T get(std::string_view b, std::size_t at)
{
	T v{};
	std::memcpy(&v, b.data() + at, sizeof v);
	return v;
}

Error err(std::string_view what)
{
	return Error{fmt::format("ld.so.cache: {}", what)};
}

} // namespace

core::Result<std::vector<Entry>> parse(std::string_view b)
{
	std::size_t base = 0;
	if (b.starts_with(kOld)) {
		// Old table: magic (12 bytes with its NUL), nlibs, nlibs x 12 bytes;
		// the new table follows, aligned to 8 bytes.
		if (b.size() < 16)
			return err("the old-format header is cut short");
		const auto n = get<std::uint32_t>(b, 12);
		if (n > kMaxEntries)
			return err(fmt::format("the old table's {} entries are past the limit of {}", n, kMaxEntries));
		base = (16 + std::size_t(n) * kOldEntry + 7) & ~std::size_t(7);
		if (base > b.size() || !b.substr(base).starts_with(kNew))
			return err("an old-format cache without the new table (glibc-ld.so.cache1.1) after it");
	}
	const std::string_view c = b.substr(base);
	if (!c.starts_with(kNew))
		return err(fmt::format("not an ld.so.cache: the file does not begin with '{}' (or '{}')", kNew, kOld));
	if (c.size() < kNewHeader)
		return err("the header is cut short");
	const auto n = get<std::uint32_t>(c, 20);
	if (n > kMaxEntries)
		return err(fmt::format("{} entries are past the limit of {}", n, kMaxEntries));
	if (std::size_t(n) * kNewEntry > c.size() - kNewHeader)
		return err(fmt::format("{} entries of {} bytes do not fit in the file's {} bytes", n, kNewEntry,
				       c.size()));
	auto str = [&](std::uint32_t off) -> std::optional<std::string> {
		if (off >= c.size())
			return std::nullopt;
		const auto end = c.find('\0', off);
		if (end == std::string_view::npos)
			return std::nullopt;
		return std::string(c.substr(off, end - off));
	};
	std::vector<Entry> out;
	out.reserve(n);
	for (std::uint32_t i = 0; i < n; ++i) {
		const std::size_t at = kNewHeader + std::size_t(i) * kNewEntry;
		Entry e;
		e.flags = get<std::int32_t>(c, at);
		auto key = str(get<std::uint32_t>(c, at + 4));
		auto value = str(get<std::uint32_t>(c, at + 8));
		if (!key || !value)
			return err(fmt::format("entry {}'s {} is outside the file or unterminated", i,
					       key ? "path" : "name"));
		e.soname = std::move(*key);
		e.path = std::move(*value);
		e.hwcap = get<std::uint64_t>(c, at + 16);
		out.push_back(std::move(e));
	}
	return out;
}

} // namespace rdnafix::core::ldcache
