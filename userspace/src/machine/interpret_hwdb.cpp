// udev hwdb properties -> HwdbFacts (see interpret_hwdb.hpp).
#include "machine/interpret_hwdb.hpp"

#include "core/gpudb.hpp"
#include "core/text_safe.hpp"

#include <string_view>

namespace rdnafix::machine {

namespace {

std::optional<std::string> value(const std::map<std::string, std::string> &props, const char *key)
{
	auto it = props.find(key);
	if (it == props.end())
		return std::nullopt;
	std::string_view v = it->second;
	if (v.size() <= kHwdbValueCap)
		return core::utf8_valid(v);
	return core::utf8_valid(v.substr(0, core::utf8_prefix_len(v, kHwdbValueCap))) + "...";
}

void compare(HwdbFacts &h, const char *key, const std::optional<std::string> &hwdb, const std::string &builtin)
{
	if (hwdb.value_or("") != builtin)
		h.differences.push_back({key, hwdb.value_or(""), builtin});
}

} // namespace

std::optional<HwdbFacts> interpret_hwdb(const std::map<std::string, std::string> &props,
					std::optional<std::uint32_t> device_id, std::optional<std::uint32_t> revision)
{
	HwdbFacts h;
	h.gfx_target = value(props, kHwdbGfxTarget);
	h.generation = value(props, kHwdbGeneration);
	h.apu = value(props, kHwdbApu);
	if (!h.gfx_target && !h.generation && !h.apu)
		return std::nullopt;

	const gpudb::Entry *row = nullptr;
	if (device_id && *device_id <= 0xffff && revision && *revision <= 0xff)
		row = gpudb::lookup(std::uint16_t(*device_id), std::uint8_t(*revision));
	if (!row) {
		h.differences.push_back({"entry", "listed", ""});
		return h;
	}
	compare(h, "gfx_target", h.gfx_target, row->gfx.name());
	compare(h, "generation", h.generation, std::string(gpudb::to_string(row->generation)));
	compare(h, "apu", h.apu, row->apu ? "1" : "0");
	return h;
}

} // namespace rdnafix::machine
