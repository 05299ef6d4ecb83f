// Checks RDNA-DRV-010..012: which amdgpu the kernel uses.  Built into the
// kernel image (modules.builtin, or rdnafix's own "built-in"); AMD's
// amdgpu-dkms in updates/dkms/ (the module modprobe loads, per modules.dep);
// amdgpu-dkms added to DKMS but not built for the running or default kernel,
// which then boots the kernel's own amdgpu.
#include "checks.hpp"

#include "core/parse_rdnafix.hpp"

#include <fmt/format.h>

namespace rdnafix::status::detail {

namespace {

std::string dkms_words(const machine::BootConfig &b)
{
	return b.amdgpu_dkms_versions.empty() ? "amdgpu-dkms" : "amdgpu-dkms " + b.amdgpu_dkms_versions.back();
}

void check_builtin(Ctx &c)
{
	const auto *k = running_kernel(c.s.boot);
	const bool by_list = k && k->amdgpu_builtin;
	const bool by_module = c.s.rdnafix.amdgpu_state && *c.s.rdnafix.amdgpu_state == "built-in";
	if (!by_list && !by_module)
		return;
	const std::string rel = k ? k->release : c.s.driver.kernel_release;
	c.add("RDNA-DRV-010", "amdgpu",
	      fmt::format("amdgpu is built into the kernel {} ({})", rel,
			  by_list ? fmt::format("/lib/modules/{}/modules.builtin lists it", rel)
				  : "/sys/kernel/rdnafix/amdgpu says built-in"),
	      "a built-in amdgpu reads its parameters only from the kernel command line ('options amdgpu' in "
	      "modprobe.d is never read), and rdnafix has no module load to hook: its hooks stay inactive",
	      "set amdgpu parameters on the kernel command line (amdgpu.noretry=1); for rdnafix, boot a kernel "
	      "built with CONFIG_DRM_AMDGPU=m (every distribution kernel is)");
}

void check_dkms_loaded(Ctx &c)
{
	const auto &b = c.s.boot;
	const auto *k = running_kernel(b);
	if (!k || k->amdgpu_module.empty() || core::module_origin(k->amdgpu_module) == "in-tree" ||
	    core::module_origin(k->amdgpu_module).empty())
		return;
	const bool rdnafix = !k->rdnafix_modules.empty() || c.s.rdnafix.loaded;
	c.add("RDNA-DRV-011", "amdgpu",
	      fmt::format("modprobe loads amdgpu from /{} for {} ({}{}), not the kernel's own", k->amdgpu_module,
			  k->release, core::module_origin(k->amdgpu_module),
			  b.amdgpu_dkms_versions.empty() ? "" : ": " + dkms_words(b)),
	      "AMD's packaged driver: its defaults and functions are not the kernel series' own, and rdnafix's "
	      "build-time checks must read this module, not the in-tree one",
	      rdnafix ? fmt::format("after every amdgpu-dkms upgrade rebuild rdnafix: dkms unbuild rdnafix/{1} -k {0} "
				    "&& dkms install rdnafix/{1} -k {0}",
				    k->release, rdnafix_version(c.s))
		      : "nothing to do");
}

void check_dkms_not_built(Ctx &c)
{
	const auto &b = c.s.boot;
	if (b.amdgpu_dkms_versions.empty())
		return;
	for (const auto &k : b.kernels) {
		// the running kernel, or the default one when a boot menu can start it (it has an image)
		if (!(k.running || (k.default_boot && !k.image.empty())) || !k.amdgpu_dkms_modules.empty() ||
		    k.amdgpu_builtin)
			continue;
		const auto origin = core::module_origin(k.amdgpu_module);
		if (origin == "dkms" || origin == "updates" || origin == "extra")
			continue;
		c.add("RDNA-DRV-012", k.release,
		      fmt::format("{} is added to DKMS (/var/lib/dkms/amdgpu) but not built for the {} kernel {}: "
				  "it runs the kernel's own amdgpu{}",
				  dkms_words(b), k.running ? "running" : "default", k.release,
				  k.amdgpu_module.empty() ? "" : " (/" + k.amdgpu_module + ")"),
		      "the ROCm release that installed amdgpu-dkms expects its driver; the kernel's own amdgpu has "
		      "other defaults and features",
		      fmt::format("dkms autoinstall -k {} (needs the headers: /lib/modules/{}/build), then reboot",
				  k.release, k.release));
	}
}

} // namespace

void check_amdgpu_module(Ctx &c)
{
	check_builtin(c);
	check_dkms_loaded(c);
	check_dkms_not_built(c);
}

} // namespace rdnafix::status::detail
