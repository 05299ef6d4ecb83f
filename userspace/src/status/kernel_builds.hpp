#pragma once
// Is rdnafix built for an installed kernel, and what does that mean when
// rdnafix is configured?  The one decision behind the per-kernel lines of
// `rdnactl status`, the check RDNA-MOD-007 and `rdnactl kernel-check` (the
// kernel postinst hook's entry point).  Pure: a Snapshot in, verdicts out.
#include "model.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace rdnafix::status {

// What lib/modules/<release> holds for rdnafix.
struct KernelBuild {
	const machine::InstalledKernel *kernel = nullptr;
	// The module modprobe would load: the first rdnafix.ko* in depmod's
	// default search order (updates/ first) that was built for this release
	// (its vermagic), or whose vermagic could not be read.  nullptr: none.
	const machine::ModuleFile *module = nullptr;
	bool built() const { return module != nullptr; }
	// Modules below lib/modules/<release> built for another kernel (a copy
	// modprobe refuses: "disagrees about version of symbol" / bad vermagic).
	std::vector<const machine::ModuleFile *> foreign;
	// The DKMS build that made a module which is not installed (dkms build
	// without dkms install), nullptr when none.
	const machine::DkmsBuild *built_not_installed = nullptr;
};
KernelBuild kernel_build(const machine::InstalledKernel &k);

// "yes (0.1.0)", "yes (version unknown)", "no".
std::string built_text(const KernelBuild &b);
// Why rdnafix is not built, one clause: "no rdnafix.ko below lib/modules/X",
// "lib/modules/X/updates/dkms/rdnafix.ko was built for Y"; "" when built.
std::string missing_text(const KernelBuild &b);
// What DKMS says about it: "DKMS: rdnafix 0.1.0 built in
// /var/lib/dkms/..., not installed", "DKMS: the build failed, see
// /var/lib/dkms/rdnafix/0.1.0/build/make.log", "DKMS: no rdnafix source
// added"; "" when nothing is known.
std::string dkms_text(const machine::BootConfig &b, const KernelBuild &kb);
// The command that builds it (headers first when they are missing) and the
// same as data (InstallPackage of the headers; else NoChange).
std::string build_fix(const machine::BootConfig &b, const KernelBuild &kb);
std::vector<Remedy> build_remedies(const machine::BootConfig &b, const KernelBuild &kb);

// `rdnactl kernel-check RELEASE`.
enum class KernelVerdict {
	built,          // rdnafix is built for the kernel (exit 0)
	not_configured, // rdnafix is not configured: nothing to check (exit 0)
	missing,        // configured and not built: it will not load after a reboot into it (exit 1)
	not_installed,  // lib/modules/<release> is not an installed kernel (exit 2)
};
std::string_view to_string(KernelVerdict v); // "built", "not_configured", "missing", "not_installed"

struct KernelCheck {
	std::string release;
	KernelVerdict verdict = KernelVerdict::not_installed;
	bool configured = false;
	std::string configured_by; // "/etc/modprobe.d/rdnafix.conf:1 softdep amdgpu pre: rdnafix"
	KernelBuild build;         // build.kernel nullptr when not installed
	std::string fix;           // when missing
	std::vector<Remedy> remedies;
};
KernelCheck kernel_check(const Snapshot &s, const Assessment &a, const std::string &release);
int exit_code_for(const KernelCheck &k);

// JSON (schema_version 1) and text.  The text has the verdict line for
// stdout and, when missing, the banner for stderr: the DKMS log tail (made
// terminal-safe) and the Secure Boot / signing state.
nlohmann::ordered_json kernel_check_json(const Snapshot &s, const KernelCheck &k);
std::string kernel_check_line(const KernelCheck &k);
// Which amdgpu the kernel uses, in the evidence file's words: "built-in",
// "dkms", "updates", "extra", "in-tree", "other", "none".
std::string amdgpu_origin(const machine::InstalledKernel &k);
// A second stdout line when that amdgpu is not the kernel's own (amdgpu-dkms),
// is built in, or amdgpu-dkms is added to DKMS but not built for it; "" otherwise.
std::string kernel_check_amdgpu_line(const Snapshot &s, const KernelCheck &k);
// `mokutil`: the line `mokutil --sb-state` printed ("" when not run).
std::string kernel_check_banner(const Snapshot &s, const KernelCheck &k, const std::string &mokutil);

} // namespace rdnafix::status
