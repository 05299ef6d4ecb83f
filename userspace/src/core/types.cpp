#include "core/types.hpp"

#include <fmt/format.h>

namespace rdnafix::core {

std::string GcVersion::to_string() const
{
	return fmt::format("{}.{}.{}", major, minor, revision);
}

std::string GfxTarget::name() const
{
	// gfx + decimal major + one hex digit each for minor and stepping.
	return fmt::format("gfx{}{:x}{:x}", major, minor, stepping);
}

std::string GfxTarget::dotted() const
{
	return fmt::format("{}.{}.{}", major, minor, stepping);
}

std::strong_ordering KernelVersion::compare(unsigned mj, unsigned mn, unsigned p) const
{
	if (auto c = major <=> mj; c != 0)
		return c;
	if (auto c = minor <=> mn; c != 0)
		return c;
	return patch <=> p;
}

std::string KernelVersion::numeric() const
{
	return fmt::format("{}.{}.{}", major, minor, patch);
}

} // namespace rdnafix::core
