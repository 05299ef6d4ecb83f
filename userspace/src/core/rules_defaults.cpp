// The value a module parameter takes when nothing sets it (core/rules_defaults.hpp).
// Sources: amdgpu's module_param declarations and the code that reads them
// (docs/amdgpu-facts.md §4 noretry, §5 vm_fragment_size), TTM's pool limit,
// and rdnafix's own parameters (kmod/rdnafix_params.c, shown by `modinfo rdnafix`).
#include "core/rules_defaults.hpp"

#include "core/rules.hpp"

#include <fmt/format.h>

namespace rdnafix::rules {

namespace {

// The kernel compares parameter names with '-' equal to '_' (kernel/params.c: parameq).
std::string normalize(std::string_view name)
{
	std::string out(name);
	for (char &c : out)
		if (c == '-')
			c = '_';
	return out;
}

constexpr std::string_view kRdnafixSource = "modinfo rdnafix: the parameter's description";

std::optional<ParamDefault> rdnafix_default(const std::string &name)
{
	struct Row {
		std::string_view name, value, what;
	};
	static constexpr Row rows[] = {
		{"noretry", "-1", "keep amdgpu's own noretry choice"},
		{"vm_fragment_size", "-1", "keep amdgpu's own fragment size"},
		{"mtype_sysmem", "keep", "keep amdgpu's MTYPE for system memory"},
		{"mtype_vram", "keep", "keep amdgpu's MTYPE for VRAM"},
		{"targets", "rdna1,rdna2", "target every RDNA1 and RDNA2 GPU"},
		{"exclude", "", "exclude no GPU"},
		{"dry_run", "0", "apply the settings"},
		{"strict", "0", "a hook that cannot be placed does not fail the load"},
	};
	for (const auto &r : rows)
		if (r.name == name)
			return ParamDefault{std::string(r.value), std::nullopt, true,
					    fmt::format("rdnafix.{} defaults to '{}': {} ({})", name, r.value, r.what,
							kRdnafixSource)};
	return std::nullopt;
}

ParamDefault noretry_default(const core::KernelVersion &kernel, const std::optional<core::GcVersion> &gc)
{
	ParamDefault d;
	d.param_value = "-1";
	if (!gc) {
		d.explanation =
			"amdgpu.noretry defaults to -1 (auto): the kernel then picks 0 or 1 per GPU from its GC "
			"version (drivers/gpu/drm/amd/amdgpu/amdgpu_gmc.c: amdgpu_gmc_noretry_set)";
		return d;
	}
	NoretryDecision dec = effective_noretry(kernel, *gc, -1);
	d.effective = std::to_string(dec.value);
	d.certain = dec.certain;
	d.explanation = fmt::format("amdgpu.noretry defaults to -1 (auto), which gives {} here: {}", dec.value,
				    dec.explanation);
	return d;
}

ParamDefault fragment_default(const std::optional<core::GcVersion> &gc)
{
	ParamDefault d;
	d.param_value = "-1";
	if (gc && gc->major == 10) {
		d.effective = "9";
		d.explanation = fmt::format(
			"amdgpu.vm_fragment_size defaults to -1, which on GC {} means 9 (2 MiB): "
			"drivers/gpu/drm/amd/amdgpu/gmc_v10_0.c: gmc_v10_0_sw_init calls amdgpu_vm_adjust_size(adev, "
			"256 * 1024, 9, 3, 48) and amdgpu_vm.c: amdgpu_vm_adjust_size keeps that default for -1 (Linux "
			"6.1, 6.12, 7.2)",
			gc->to_string());
	} else {
		d.explanation = "amdgpu.vm_fragment_size defaults to -1: the GMC block's own default "
				"(drivers/gpu/drm/amd/amdgpu/amdgpu_vm.c: amdgpu_vm_adjust_size)";
	}
	return d;
}

} // namespace

std::optional<ParamDefault> param_default(std::string_view module, std::string_view name,
					  const core::KernelVersion &kernel, const std::optional<core::GcVersion> &gc)
{
	const std::string mod = normalize(module), param = normalize(name);
	if (mod == "rdnafix")
		return rdnafix_default(param);
	if (mod == "amdgpu") {
		if (param == "noretry")
			return noretry_default(kernel, gc);
		if (param == "vm_fragment_size")
			return fragment_default(gc);
		if (param == "lockup_timeout")
			return ParamDefault{
				"", std::nullopt, true,
				"amdgpu.lockup_timeout defaults to empty: the driver's per-ring timeouts of this "
				"kernel, listed in the parameter's description (modinfo -p amdgpu; "
				"drivers/gpu/drm/amd/amdgpu/amdgpu_drv.c)"};
		if (param == "gttsize")
			return ParamDefault{
				"-1", std::nullopt, true,
				"amdgpu.gttsize defaults to -1: the driver picks the GTT size itself, on current "
				"kernels from "
				"TTM's page limit "
				"(ttm.pages_limit; drivers/gpu/drm/amd/amdgpu/amdgpu_ttm.c: amdgpu_ttm_init)"};
		return std::nullopt;
	}
	if ((mod == "ttm" || mod == "amdttm") && (param == "pages_limit" || param == "page_pool_size"))
		return ParamDefault{"0", std::nullopt, true,
				    fmt::format("{}.{} defaults to 0: TTM then limits GPU-mappable system memory to "
						"half of RAM (drivers/gpu/drm/ttm/ttm_device.c: ttm_global_init)",
						mod, param)};
	return std::nullopt;
}

} // namespace rdnafix::rules
