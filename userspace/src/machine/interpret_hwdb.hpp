#pragma once
// The udev hwdb properties of a GPU (udev/60-rdnafix.hwdb, attached by
// udev/70-rdnafix.rules) -> HwdbFacts, compared with rdnactl's built-in GPU
// database.  Pure: no I/O.  The values come from the udev database, which
// any local rule can write, so they are hostile: each is capped and made
// valid UTF-8 here (so JSON can always carry it); the text renderer makes
// every line terminal-safe (status/render_text.cpp), so they are not
// escaped twice.
#include "machine/snapshot.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace rdnafix::machine {

// The udev property names, in the order status shows them.
inline constexpr const char *kHwdbGfxTarget = "ID_RDNAFIX_GFX_TARGET";
inline constexpr const char *kHwdbGeneration = "ID_RDNAFIX_GENERATION";
inline constexpr const char *kHwdbApu = "ID_RDNAFIX_APU";
// A longer value is cut (at a UTF-8 boundary) and marked with "...".
inline constexpr std::size_t kHwdbValueCap = 64;

// props: the ID_RDNAFIX_* properties as udev gave them.  nullopt when none of
// the three is there.  device_id/revision: the PCI id the built-in database
// is asked for (gpudb::lookup, the exact revision before '*').
std::optional<HwdbFacts> interpret_hwdb(const std::map<std::string, std::string> &props,
					std::optional<std::uint32_t> device_id, std::optional<std::uint32_t> revision);

} // namespace rdnafix::machine
