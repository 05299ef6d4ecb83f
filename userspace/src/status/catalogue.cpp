// The check catalogue: every id evaluate() can emit, its severity and title
// (docs/checks.md has one section per id).
#include "model.hpp"

namespace rdnafix::status {

std::string_view severity_name(Severity s)
{
	switch (s) {
	case Severity::info:
		return "info";
	case Severity::warn:
		return "warn";
	case Severity::error:
		return "error";
	}
	return "info";
}

const std::vector<CheckInfo> &catalogue()
{
	static const std::vector<CheckInfo> c{
		{"RDNA-ACC-001", Severity::error, "/dev/kfd is missing"},
		{"RDNA-ACC-002", Severity::error, "cannot open a GPU device node"},
		{"RDNA-ACC-003", Severity::warn, "added to the group but not logged in again"},
		{"RDNA-ACC-004", Severity::error, "render node missing for an AMD GPU"},
		{"RDNA-ACC-005", Severity::error, "a GPU device node is not the kernel's character device"},
		{"RDNA-ACC-006", Severity::info, "running in a container"},
		{"RDNA-ACC-007", Severity::error, "device node owned by the overflow gid (host group not mapped)"},
		{"RDNA-ACC-008", Severity::error, "device node's host gid not among the container process's groups"},
		{"RDNA-CFG-001", Severity::warn, "configured after this boot, pending reboot"},
		{"RDNA-CFG-002", Severity::error, "initramfs predates the configuration amdgpu loads with"},
		{"RDNA-CFG-003", Severity::error, "rdnafix configured but not built for the kernel"},
		{"RDNA-CFG-004", Severity::error, "Secure Boot on: rdnafix unsigned or its key not enrolled"},
		{"RDNA-CFG-005", Severity::error, "kernel lockdown refuses the unsigned rdnafix module"},
		{"RDNA-CFG-006", Severity::info, "kernel taint flags"},
		{"RDNA-COV-001", Severity::error, "no usable code for the GPU in an installation"},
		{"RDNA-COV-002", Severity::warn, "code only through an override that is not set"},
		{"RDNA-COV-003", Severity::info, "override needed and set (no native or generic code)"},
		{"RDNA-COV-004", Severity::warn, "needless override: native or generic code is installed"},
		{"RDNA-COV-005", Severity::warn, "library unreadable or bundle entries disagree with their code"},
		{"RDNA-DRV-001", Severity::error, "amdgpu is not loaded"},
		{"RDNA-DRV-002", Severity::error, "amdgpu did not finish initialising"},
		{"RDNA-DRV-003", Severity::warn, "RDNA1 with noretry=0 in effect (silent hangs)"},
		{"RDNA-DRV-004", Severity::info, "vm_fragment_size is set"},
		{"RDNA-DRV-005", Severity::warn, "amdgpu.gttsize / gtt_size is set"},
		{"RDNA-DRV-006", Severity::info, "modprobe.d value overridden by the kernel command line"},
		{"RDNA-DRV-007", Severity::warn, "configured value is not the value in effect"},
		{"RDNA-DRV-008", Severity::error, "kernel built without KFD (CONFIG_HSA_AMD)"},
		{"RDNA-DRV-009", Severity::warn, "kernel built without SVM (CONFIG_HSA_AMD_SVM)"},
		{"RDNA-DRV-010", Severity::warn, "amdgpu is built into the kernel"},
		{"RDNA-DRV-011", Severity::info, "amdgpu comes from amdgpu-dkms (updates/dkms), not the kernel"},
		{"RDNA-DRV-012", Severity::warn, "amdgpu-dkms is not built for the running or default kernel"},
		{"RDNA-ENV-001", Severity::error, "invalid HSA_OVERRIDE_GFX_VERSION"},
		{"RDNA-ENV-002", Severity::error, "cross-family override (unsafe)"},
		{"RDNA-ENV-003", Severity::info, "pointless override (equal to the native target)"},
		{"RDNA-ENV-004", Severity::info, "ISA-safe same-family override (working workaround)"},
		{"RDNA-ENV-005", Severity::warn, "override for a node that is not an AMD GPU"},
		{"RDNA-ENV-006", Severity::warn, "iGPU enumerated before the dGPU"},
		{"RDNA-ENV-007", Severity::warn, "*_VISIBLE_DEVICES does not select the intended GPU"},
		{"RDNA-ENV-008", Severity::warn, "slow debug variables are set"},
		{"RDNA-ENV-009", Severity::warn, "HSA_XNACK=1 on GFX10 (never enabled by KFD)"},
		{"RDNA-ENV-010", Severity::warn, "expandable_segments in the PyTorch allocator config"},
		{"RDNA-ENV-011", Severity::warn, "override set but no AMD GPU to apply it to"},
		{"RDNA-ENV-012", Severity::warn, "override used in practice but not guaranteed"},
		{"RDNA-ENV-013", Severity::warn, "override or native target unknown to ROCm"},
		{"RDNA-ENV-014", Severity::info,
		 "variable has no effect on ROCm (CUDA only, build time only, another framework)"},
		{"RDNA-ENV-015", Severity::warn, "misspelt ROCm/PyTorch variable name"},
		{"RDNA-ENV-016", Severity::error, "allocator configuration PyTorch rejects"},
		{"RDNA-ENV-017", Severity::info, "run under sudo: judged for SUDO_USER"},
		{"RDNA-ENV-018", Severity::warn, "visible iGPU without code objects fails code loading for all GPUs"},
		{"RDNA-ENV-019", Severity::warn, "variable no program reads (made up in a guide), with its repair"},
		{"RDNA-ENV-020", Severity::info, "deprecated variable (old releases only, or replaced)"},
		{"RDNA-ENV-021", Severity::warn, "value the variable's reader ignores"},
		{"RDNA-ENV-022", Severity::info, "relevant-looking variable rdnactl's table does not know"},
		{"RDNA-GPU-001", Severity::info, "no AMD GPU found"},
		{"RDNA-GPU-002", Severity::warn, "gfx target not on ROCm's official support list"},
		{"RDNA-GPU-003", Severity::warn, "gfx target of an AMD GPU is unknown"},
		{"RDNA-GPU-004", Severity::warn, "no PCIe atomics for a discrete GPU"},
		{"RDNA-LIB-001", Severity::error, "a library the GPU libraries need cannot be found"},
		{"RDNA-LIB-002", Severity::error, "two ROCm releases would be loaded into one process"},
		{"RDNA-LIB-003", Severity::error,
		 "a needed symbol version is not defined by the library that would load"},
		{"RDNA-MEM-001", Severity::warn,
		 "APU memory ceiling (GTT/TTM) is small and the kernel log shows it hit"},
		{"RDNA-MEM-002", Severity::warn, "APU limited to the BIOS carve-out (kernel before 6.10)"},
		{"RDNA-MEM-003", Severity::info, "APU memory ceiling (GTT/TTM) is the default half of RAM"},
		{"RDNA-MEM-010", Severity::warn,
		 "amdgpu VM faults on an RDNA1/RDNA2 GPU: not an MTYPE problem; what the evidence points at"},
		{"RDNA-MOD-001", Severity::warn, "rdnafix installed but not loaded"},
		{"RDNA-MOD-002", Severity::warn, "rdnafix hook inactive"},
		{"RDNA-MOD-003", Severity::error, "rdnafix sysfs ABI version not supported"},
		{"RDNA-MOD-004", Severity::info, "rdnafix is in dry-run mode"},
		{"RDNA-MOD-005", Severity::warn, "rdnafix did not apply a requested setting to a device"},
		{"RDNA-MOD-006", Severity::info, "rdnafix's PTE hook does not see some PTE paths"},
		{"RDNA-MOD-007", Severity::warn, "rdnafix configured but not built for an installed kernel"},
		{"RDNA-MOD-008", Severity::warn, "rdnafix hook refuses every call it sees"},
		{"RDNA-MOD-009", Severity::warn, "rdnafix hook missed calls"},
		{"RDNA-MOD-010", Severity::warn, "rdnafix's swapped noretry was read by other code"},
		{"RDNA-MOD-011", Severity::warn, "rdnafix was built against another amdgpu than modprobe loads"},
		{"RDNA-RDR-000", Severity::warn, "items could not be read"},
		{"RDNA-RDR-001", Severity::info, "a check is unknown: its input could not be read"},
		{"RDNA-VER-001", Severity::error, "known-bad firmware version"},
		{"RDNA-VER-002", Severity::error, "known-bad kernel version"},
		{"RDNA-VER-003", Severity::error, "known-bad amdgpu DRM version"},
		{"RDNA-VER-004", Severity::error, "known-bad ROCm version"},
		{"RDNA-VER-005", Severity::error, "known-bad PyTorch version"},
		{"RDNA-WSL-001", Severity::info, "WSL2: the GPU is reached through /dev/dxg"},
		{"RDNA-WSL-002", Severity::error, "WSL2 without /dev/dxg"},
		{"RDNA-WSL-003", Severity::error, "WSL1: no GPU"},
		{"RDNA-WSL-004", Severity::error, "ROCm on WSL2 without its WSL runtime"},
		{"RDNA-WSL-005", Severity::warn, "librocdxg without HSA_ENABLE_DXG_DETECTION=1"},
		{"RDNA-WSL-006", Severity::error, "the distribution's libhsa-runtime64 shadows ROCm's on WSL2"},
		{"RDNA-WSL-007", Severity::warn, "libdxcore.so missing from /usr/lib/wsl/lib"},
	};
	return c;
}

} // namespace rdnafix::status
