// Checks: the memory an APU can map for the GPU (GTT / TTM limit).
#include "checks.hpp"

#include "core/parse.hpp"
#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

void check_memory(Ctx &c)
{
	auto amd = amd_devices(c.s);
	bool have_dgpu = std::any_of(amd.begin(), amd.end(), [](const Device *d) { return d->apu && !*d->apu; });
	if (have_dgpu)
		return; // the dGPU does the compute; the iGPU's ceiling does not matter
	for (const Device *d : amd) {
		if (!d->apu || !*d->apu)
			continue;
		std::optional<std::uint64_t> ceiling = d->gtt_total_bytes;
		if (c.s.driver.ttm_limit_bytes)
			ceiling =
				ceiling ? std::min(*ceiling, *c.s.driver.ttm_limit_bytes) : *c.s.driver.ttm_limit_bytes;
		if (!ceiling || !c.s.driver.mem_total_bytes)
			continue;
		std::uint64_t ram = *c.s.driver.mem_total_bytes;
		if (*ceiling * 4 >= ram * 3)
			continue;
		std::uint64_t want_gib = ram * 3 / 4 >> 30;
		const std::string module = c.s.driver.amdttm_pages_limit ? "amdttm" : "ttm";
		// A limit that is configured but not in effect yet is RDNA-CFG-001/002's or
		// RDNA-DRV-007's: asking for it again would lower it when it is the larger one.
		bool configured_enough = false;
		for (const auto &x : c.a.settings)
			if (x.module == module && x.name == "pages_limit" && x.next_boot &&
			    x.state != machine::SettingState::in_effect)
				if (auto pages = core::parse_u64(*x.next_boot))
					configured_enough = configured_enough || *pages * 4096 * 4 >= ram * 3;
		if (configured_enough)
			continue;
		c.add("RDNA-MEM-001", dev_label(*d),
		      fmt::format(
			      "APU can map at most {:.1f} GiB of {:.1f} GiB RAM (GTT {}, TTM limit {})",
			      double(*ceiling) / double(1ull << 30), double(ram) / double(1ull << 30),
			      d->gtt_total_bytes ? fmt::format("{:.1f} GiB", double(*d->gtt_total_bytes) / (1ull << 30))
						 : "unknown",
			      c.s.driver.ttm_limit_bytes
				      ? fmt::format("{:.1f} GiB", double(*c.s.driver.ttm_limit_bytes) / (1ull << 30))
				      : "unknown"),
		      "on an APU, ROCm allocations come from GTT; larger models fail with out-of-memory although RAM "
		      "is free (TTM defaults to half of RAM)",
		      fmt::format("rdnactl config set ttm-limit={}G, then reboot (writes 'options {} pages_limit={}': "
				  "GiB * 262144)",
				  want_gib, module, want_gib * 262144),
		      {ModuleOption{module, "pages_limit", std::to_string(want_gib * 262144),
				    std::string(kOwnedConf)}});
	}
}

} // namespace detail

} // namespace rdnafix::status
