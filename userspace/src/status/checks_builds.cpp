// Check RDNA-MOD-007: rdnafix is configured and an installed kernel (one
// with a kernel image, so one a boot menu offers) has no rdnafix module
// built for it.  The running kernel without rdnafix loaded and the default
// boot kernel are RDNA-CFG-003's (an error: they are what runs now and after
// the next reboot); this check covers the other kernels, a warning: only a
// choice in the boot menu starts them.
#include "checks.hpp"
#include "kernel_builds.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status::detail {

void check_builds(Ctx &c)
{
	const auto &b = c.s.boot;
	if (!rdnafix_configured(c.s, c.a.settings))
		return;
	for (const auto &k : b.kernels) {
		if (k.image.empty())
			continue; // modules left behind by a removed kernel: nothing boots it
		const bool explained = std::any_of(c.out.begin(), c.out.end(), [&](const Finding &f) {
			return f.id == "RDNA-CFG-003" && f.subject == k.release;
		});
		const KernelBuild kb = kernel_build(k);
		if (kb.built() || explained)
			continue;
		std::string dkms = dkms_text(b, kb);
		c.add("RDNA-MOD-007", k.release,
		      fmt::format("rdnafix is configured but not built for the installed kernel {} ({}{}): after a "
				  "reboot into {} rdnafix will not load",
				  k.release, missing_text(kb), dkms.empty() ? "" : "; " + dkms, k.release),
		      "modprobe skips a softdep whose module does not exist for the running kernel; amdgpu then "
		      "loads without rdnafix",
		      build_fix(b, kb), build_remedies(b, kb));
	}
}

} // namespace rdnafix::status::detail
