// The EF_AMDGPU_MACH table: processor of an AMDGPU code object by the low
// byte of its e_flags.  From LLVM llvm/docs/AMDGPUUsage.rst, table
// "AMDGPU ELF Header e_flags" (LLVM 21.1.8, Debian llvm-21-doc), with the
// values LLVM main added since (llvm/include/llvm/BinaryFormat/ELF.h,
// AMDGPU_MACH list).  R600 values (0x001-0x010) are not HSA code objects and
// are left out; reserved values stay unknown.
#include "core/codeobj.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace rdnafix::core::codeobj {

namespace {

struct Mach {
	unsigned value;
	std::string_view name;
};

// Sorted by value (checked by the unit test).
constexpr std::array kMach{
	Mach{0x020, "gfx600"},          Mach{0x021, "gfx601"},          Mach{0x022, "gfx700"},
	Mach{0x023, "gfx701"},          Mach{0x024, "gfx702"},          Mach{0x025, "gfx703"},
	Mach{0x026, "gfx704"},          Mach{0x028, "gfx801"},          Mach{0x029, "gfx802"},
	Mach{0x02a, "gfx803"},          Mach{0x02b, "gfx810"},          Mach{0x02c, "gfx900"},
	Mach{0x02d, "gfx902"},          Mach{0x02e, "gfx904"},          Mach{0x02f, "gfx906"},
	Mach{0x030, "gfx908"},          Mach{0x031, "gfx909"},          Mach{0x032, "gfx90c"},
	Mach{0x033, "gfx1010"},         Mach{0x034, "gfx1011"},         Mach{0x035, "gfx1012"},
	Mach{0x036, "gfx1030"},         Mach{0x037, "gfx1031"},         Mach{0x038, "gfx1032"},
	Mach{0x039, "gfx1033"},         Mach{0x03a, "gfx602"},          Mach{0x03b, "gfx705"},
	Mach{0x03c, "gfx805"},          Mach{0x03d, "gfx1035"},         Mach{0x03e, "gfx1034"},
	Mach{0x03f, "gfx90a"},          Mach{0x040, "gfx940"}, // removed in LLVM 20; old code objects still carry it
	Mach{0x041, "gfx1100"},         Mach{0x042, "gfx1013"},         Mach{0x043, "gfx1150"},
	Mach{0x044, "gfx1103"},         Mach{0x045, "gfx1036"},         Mach{0x046, "gfx1101"},
	Mach{0x047, "gfx1102"},         Mach{0x048, "gfx1200"},         Mach{0x049, "gfx1250"},
	Mach{0x04a, "gfx1151"},         Mach{0x04b, "gfx941"}, // removed in LLVM 20
	Mach{0x04c, "gfx942"},          Mach{0x04e, "gfx1201"},         Mach{0x04f, "gfx950"},
	Mach{0x050, "gfx1310"},         Mach{0x051, "gfx9-generic"},    Mach{0x052, "gfx10-1-generic"},
	Mach{0x053, "gfx10-3-generic"}, Mach{0x054, "gfx11-generic"},   Mach{0x055, "gfx1152"},
	Mach{0x057, "gfx1154"},         Mach{0x058, "gfx1153"},         Mach{0x059, "gfx12-generic"},
	Mach{0x05a, "gfx1251"},         Mach{0x05b, "gfx12-5-generic"}, Mach{0x05c, "gfx1172"},
	Mach{0x05d, "gfx1170"},         Mach{0x05e, "gfx1171"},         Mach{0x05f, "gfx9-4-generic"},
	Mach{0x062, "gfx11-7-generic"}, Mach{0x063, "gfx13-generic"},
};

static_assert(std::is_sorted(kMach.begin(), kMach.end(),
			     [](const Mach &a, const Mach &b) { return a.value < b.value; }));

} // namespace

std::optional<std::string_view> mach_name(unsigned mach)
{
	auto it = std::lower_bound(kMach.begin(), kMach.end(), mach,
				   [](const Mach &m, unsigned v) { return m.value < v; });
	if (it == kMach.end() || it->value != mach)
		return std::nullopt;
	return it->name;
}

std::optional<unsigned> mach_of(std::string_view processor)
{
	for (const Mach &m : kMach)
		if (m.name == processor)
			return m.value;
	return std::nullopt;
}

} // namespace rdnafix::core::codeobj
