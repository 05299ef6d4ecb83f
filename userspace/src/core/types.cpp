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

std::string_view to_string(FileType type)
{
	switch (type) {
	case FileType::regular:
		return "regular";
	case FileType::directory:
		return "directory";
	case FileType::symlink:
		return "symlink";
	case FileType::char_device:
		return "char_device";
	case FileType::block_device:
		return "block_device";
	case FileType::fifo:
		return "fifo";
	case FileType::socket:
		return "socket";
	case FileType::other:
		return "other";
	}
	return "other";
}

} // namespace rdnafix::core
