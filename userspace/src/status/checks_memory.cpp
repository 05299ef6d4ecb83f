// Checks: the memory an APU can map for the GPU (GTT / TTM limit, or the BIOS
// carve-out on kernels before 6.10).
#include "checks.hpp"

#include "core/parse.hpp"
#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

namespace {

std::optional<core::KernelVersion> kernel_of(const machine::Driver &d)
{
	if (auto pv = core::parse_proc_version(d.kernel_version_line); pv)
		return pv->upstream ? *pv->upstream : pv->release;
	if (auto r = core::parse_kernel_release(d.kernel_release); r)
		return *r;
	return std::nullopt;
}

std::string gib(std::uint64_t b)
{
	return fmt::format("{:.1f} GiB", double(b) / double(1ull << 30));
}

} // namespace

// Before Linux 6.10, amdgpu_amdkfd_get_local_mem_info() gave KFD the APU's
// visible VRAM, i.e. the BIOS carve-out, and every hipMalloc came from it;
// commit 89773b85599a ("drm/amdkfd: Let VRAM allocations go to GTT domain on
// small APUs", Linux 6.10) made KFD report and allocate GTT (ttm_tt_pages_limit)
// instead (docs/amdgpu-facts.md §12).  On an older kernel
// ttm.pages_limit changes nothing for ROCm: only the BIOS setting or a newer
// kernel does.  True when the carve-out rule was reported.
static bool check_carve_out(Ctx &c, const Device &d)
{
	auto kv = kernel_of(c.s.driver);
	if (!kv || kv->at_least(6, 10) || !d.vram_total_bytes || !c.s.driver.mem_total_bytes)
		return false;
	const std::uint64_t carve = *d.vram_total_bytes, ram = *c.s.driver.mem_total_bytes;
	// MemTotal does not count the carve-out: the memory of the machine is both.
	if (carve * 4 >= (ram + carve) * 3)
		return true; // the BIOS already gives the GPU most of the memory
	c.add("RDNA-MEM-002", dev_label(d),
	      fmt::format("kernel {} gives ROCm on this APU only the BIOS carve-out: {} (RAM {}); "
			  "ttm.pages_limit does not change it",
			  kv->numeric(), gib(carve), gib(ram)),
	      "before Linux 6.10 KFD reports and allocates an APU's VRAM, which is the BIOS carve-out "
	      "(drivers/gpu/drm/amd/amdgpu/amdgpu_amdkfd.c: amdgpu_amdkfd_get_local_mem_info); "
	      "commit 89773b85599a (Linux 6.10) moved these allocations to GTT",
	      "raise the UMA frame buffer size (\"UMA Frame Buffer Size\", \"iGPU Memory\") in the BIOS "
	      "setup, or boot a Linux 6.10 or later kernel (then `ttm.pages_limit` sets the limit)");
	return true;
}

void check_memory(Ctx &c)
{
	auto amd = amd_devices(c.s);
	bool have_dgpu = std::any_of(amd.begin(), amd.end(), [](const Device *d) { return d->apu && !*d->apu; });
	if (have_dgpu)
		return; // the dGPU does the compute; the iGPU's ceiling does not matter
	for (const Device *d : amd) {
		if (!d->apu || !*d->apu)
			continue;
		if (check_carve_out(c, *d))
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
		// Rounded up: a floor could land below the 75 % this check asks for, and
		// the check would then ask again after the reboot (issue 21).
		const std::uint64_t want_gib = (ram / 4 * 3 + (1ull << 30) - 1) >> 30;
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
		std::string finding = fmt::format(
			"APU can map at most {:.1f} GiB of {:.1f} GiB RAM (GTT {}, TTM limit {})",
			double(*ceiling) / double(1ull << 30), double(ram) / double(1ull << 30),
			d->gtt_total_bytes ? fmt::format("{:.1f} GiB", double(*d->gtt_total_bytes) / (1ull << 30))
					   : "unknown",
			c.s.driver.ttm_limit_bytes
				? fmt::format("{:.1f} GiB", double(*c.s.driver.ttm_limit_bytes) / (1ull << 30))
				: "unknown");
		// The limit is shown to bite when this boot's kernel log has amdgpu's
		// -ENOMEM on command submission (RDNA-MEM-001); otherwise the default is
		// information (RDNA-MEM-003): half of RAM is enough for most work.
		const auto &log = c.s.kernel_log.events;
		const bool bites = log && log->alloc_failures > 0;
		if (bites)
			finding += fmt::format(", and this boot's kernel log has {} allocation failure(s): \"{}\"",
					       log->alloc_failures, log->last_alloc_failure);
		c.add(bites ? "RDNA-MEM-001" : "RDNA-MEM-003", dev_label(*d), finding,
		      bites ? "on an APU, GPU allocations come from GTT; amdgpu failed command submissions for lack of "
			      "memory (drivers/gpu/drm/amd/amdgpu/amdgpu_cs.c: amdgpu_cs_ioctl, -ENOMEM) while RAM "
			      "beyond the TTM limit stays unused (TTM defaults to half of RAM)"
			    : "on an APU, GPU allocations come from GTT, which TTM limits to half of RAM by default; "
			      "a model larger than that fails with out-of-memory although RAM is free. Nothing in "
			      "this boot's kernel log shows the limit being hit",
		      fmt::format("rdnactl config set ttm-limit={}G, then reboot (writes 'options {} pages_limit={}': "
				  "GiB * 262144)",
				  want_gib, module, want_gib * 262144),
		      {ModuleOption{module, "pages_limit", std::to_string(want_gib * 262144),
				    std::string(kOwnedConf)}});
	}
}

} // namespace detail

} // namespace rdnafix::status
