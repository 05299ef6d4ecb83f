// THE catalogue of log signatures `rdnactl explain` knows, with stable ids
// (RDNA-LOG-NNN; also in status/catalogue.cpp so ids are unique project-wide,
// and in docs/explain.md).  An id is never reused or renumbered.  The texts
// cite upstream (printed to users: no repository files).
#include "explain/model.hpp"

namespace rdnafix::explain {

const std::vector<SignatureInfo> &catalogue()
{
	static const std::vector<SignatureInfo> c{
		{Sig::invalid_device_function, "RDNA-LOG-001", Severity::error, "HIP invalid device function",
		 "HIP error: invalid device function / hipErrorInvalidDeviceFunction",
		 "A kernel was launched that has no code for the GPU's target in the loaded library.",
		 "The installed PyTorch / ROCm library was not built for this GPU's gfx target (consumer RDNA "
		 "targets are missing from most official builds), or HSA_OVERRIDE_GFX_VERSION names a target the "
		 "library lacks.",
		 "Use a build that contains the GPU's target (or its generic family), or set HSA_OVERRIDE_GFX_VERSION "
		 "to an ISA-safe target that the library does contain.",
		 "ROCm/clr hipamd/src/hip_module.cpp (hipErrorInvalidDeviceFunction); ROCm/ROCm#2429"},
		{Sig::no_binary_for_gpu, "RDNA-LOG-002", Severity::error, "no code object for the GPU",
		 "hipErrorNoBinaryForGpu: Unable to find code object for all current devices! (+ Devices: / Bundled "
		 "Code Objects: lists) / HIP error: no kernel image is available for execution on the device",
		 "At load time HIP compared the GPU targets (Devices:) with the code objects bundled in a library "
		 "(Bundled Code Objects:) and found none for at least one device.",
		 "The library was built without this GPU's target; the Devices: lines marked [Not Found] are the "
		 "GPUs without code.",
		 "Install a build that contains the missing target, or set HSA_OVERRIDE_GFX_VERSION to an ISA-safe "
		 "target that is in the Bundled Code Objects list.",
		 "ROCm/clr hipamd/src/hip_code_object.cpp (the Devices / Bundled Code Objects report); ROCm/ROCm#2429"},
		{Sig::invalid_argument, "RDNA-LOG-003", Severity::error, "HIP invalid argument",
		 "HIP error: invalid argument / hipErrorInvalidValue",
		 "A HIP API call got a value it refuses: a device index that does not exist, a size of 0, a bad "
		 "pointer.",
		 "Most often a device index beyond the visible GPUs (HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES / "
		 "CUDA_VISIBLE_DEVICES hide devices), or a GPU that runs code of another target through an override "
		 "and rejects the launch parameters.",
		 "Check which GPUs the process sees (the *_VISIBLE_DEVICES variables) and rerun with "
		 "AMD_SERIALIZE_KERNEL=3 to find the failing call.",
		 "ROCm/clr hipamd/src/hip_error.cpp (hipErrorInvalidValue)"},
		{Sig::aperture_violation, "RDNA-LOG-004", Severity::error, "HSA memory aperture violation",
		 "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION",
		 "A GPU kernel accessed an address outside every memory aperture the runtime set up (a wild pointer).",
		 "A kernel bug, or machine code for another ISA run through an unsafe HSA_OVERRIDE_GFX_VERSION (its "
		 "instructions are decoded differently and compute wrong addresses).",
		 "Remove an unsafe override; otherwise report the kernel (library and operation) upstream.",
		 "ROCm/ROCR-Runtime runtime/hsa-runtime/core/runtime/runtime.cpp (memory fault handler)"},
		{Sig::hsa_memory_fault, "RDNA-LOG-005", Severity::error, "HSA memory fault",
		 "HSA_STATUS_ERROR_MEMORY_FAULT", "The GPU faulted on a memory access; the runtime aborts the process.",
		 "An access to freed or never-mapped memory (kernel bug, use-after-free), memory the GPU may not "
		 "reach (host memory not registered), or wrong code through an unsafe override.",
		 "Look at the kernel log of the same moment (amdgpu page fault lines: rdnactl explain decodes them); "
		 "remove unsafe overrides.",
		 "ROCm/ROCR-Runtime runtime/hsa-runtime/core/runtime/runtime.cpp (HSA_STATUS_ERROR_MEMORY_FAULT)"},
		{Sig::kfd_memory_access_fault, "RDNA-LOG-006", Severity::error, "memory access fault by GPU",
		 "Memory access fault by GPU node-N (Agent handle: ...) on address 0x... Reason: Page not present or "
		 "supervisor privilege.",
		 "KFD reported a GPU page fault to ROCr: the address was not mapped for the process on that GPU "
		 "(node-N is the KFD topology node).",
		 "An out-of-bounds or use-after-free access in a kernel, a too-small allocation, code of another ISA "
		 "run through an unsafe override, or on APUs a buffer in host memory beyond what the GPU may map.",
		 "Check the kernel log of the same moment for the amdgpu page-fault block (process, address, client); "
		 "remove unsafe overrides; AMD_SERIALIZE_KERNEL=3 shows the failing kernel.",
		 "ROCm/ROCR-Runtime runtime/hsa-runtime/core/runtime/runtime.cpp (VMFaultHandler); "
		 "ROCm/legacy-rocm-build#2804"},
		{Sig::vm_fault, "RDNA-LOG-007", Severity::error, "amdgpu VM page fault",
		 "amdgpu: [gfxhub] page fault (src_id:.. ring:.. vmid:.. pasid:..) + GCVM_L2_PROTECTION_FAULT_STATUS",
		 "The GPU's memory hub (gfxhub: graphics/compute, mmhub: video/display/SDMA) translated an address "
		 "that has no valid page-table entry for that process (VMID/PASID).",
		 "The same causes as a memory access fault; on RDNA1 with noretry=0 the fault can also hang the GPU "
		 "instead of being reported.",
		 "Identify the process and address in the block; fix or report the faulting program; on RDNA1 set "
		 "amdgpu.noretry=1.",
		 "drivers/gpu/drm/amd/amdgpu/gmc_v10_0.c: gmc_v10_0_process_interrupt, gfxhub_v2_1.c: "
		 "gfxhub_v2_1_print_l2_protection_fault_status (Linux 6.12)"},
		{Sig::ring_timeout, "RDNA-LOG-008", Severity::error, "GPU ring timeout",
		 "*ERROR* ring gfx_0.0.0 timeout, signaled seq=..., emitted seq=... (also comp_*, sdma*)",
		 "A job on a GPU ring did not finish within the scheduler timeout; the kernel resets the ring or the "
		 "GPU.",
		 "A hung shader (infinite loop, deadlock), a GPU fault left unhandled (RDNA1 with noretry=0), or a "
		 "firmware / driver bug.",
		 "Note the process named after the timeout; update the kernel and firmware; on RDNA1 set "
		 "amdgpu.noretry=1.",
		 "drivers/gpu/drm/amd/amdgpu/amdgpu_job.c: amdgpu_job_timedout (Linux 6.12)"},
		{Sig::gpu_reset, "RDNA-LOG-009", Severity::error, "GPU reset",
		 "amdgpu: GPU reset begin! / GPU reset succeeded / GPU reset(N) failed / device wedged / VRAM is lost",
		 "The driver reset the GPU to recover from a hang; every process using it loses its GPU context "
		 "(compute processes are killed; VRAM contents may be lost).",
		 "Whatever hung the GPU: look at the lines before the reset (ring timeout, MES failure, page fault).",
		 "Restart the affected programs; fix the cause named before the reset.",
		 "drivers/gpu/drm/amd/amdgpu/amdgpu_device.c: amdgpu_device_gpu_recover (Linux 6.12)"},
		{Sig::mes_failure, "RDNA-LOG-010", Severity::error, "MES firmware did not respond",
		 "MES failed to respond to msg=... / failed to remove hardware queue from MES / MES might be in "
		 "unrecoverable state",
		 "The Micro Engine Scheduler (GFX11/GFX12 queue firmware) did not answer the driver; KFD cannot evict "
		 "or remove compute queues and resets the GPU.",
		 "Known firmware / driver bugs on GFX11 and GFX11.5 (RDNA3, Phoenix, Strix), often under compute "
		 "load; old linux-firmware with a new kernel or the reverse.",
		 "Update linux-firmware and the kernel together; if it persists, report it with the firmware versions "
		 "(/sys/kernel/debug/dri/N/amdgpu_firmware_info) and the kernel log.",
		 "drivers/gpu/drm/amd/amdgpu/mes_v11_0.c: mes_v11_0_submit_pkt_and_poll_completion (Linux 6.12); "
		 "ROCm/TheRock#737"},
		{Sig::firmware_load, "RDNA-LOG-011", Severity::error, "GPU firmware missing or failed to load",
		 "Direct firmware load for amdgpu/... failed with error -2 / Failed to load ... firmware / Fatal error "
		 "during GPU init",
		 "amdgpu could not load a firmware file it needs; the GPU is not initialised (no /dev/kfd node for "
		 "it).",
		 "linux-firmware is older than the kernel (new GPU, new firmware names), or the initramfs was built "
		 "without the amdgpu firmware.",
		 "Install the newest linux-firmware (firmware-amd-graphics on Debian) and rebuild the initramfs.",
		 "drivers/gpu/drm/amd/amdgpu/amdgpu_ucode.c: amdgpu_ucode_request (Linux 6.12); "
		 "kernelci/kernelci-core#2238"},
		{Sig::hw_exception_gpu_hang, "RDNA-LOG-012", Severity::error, "HW exception: GPU hang",
		 "HW Exception by GPU node-N (Agent handle: ...) reason :GPU Hang",
		 "KFD told ROCr that the GPU hung and was reset while this process had queues on it; ROCr aborts the "
		 "process.",
		 "A hung kernel, a MES / firmware failure (GFX11), or a reset caused by another process.",
		 "Look at the kernel log of the same moment (MES failure, ring timeout, page fault); update kernel and "
		 "firmware.",
		 "ROCm/ROCR-Runtime runtime/hsa-runtime/core/runtime/runtime.cpp (HwExceptionHandler); "
		 "ROCm/legacy-rocm-build#5259"},
		{Sig::amdgpu_ids_missing, "RDNA-LOG-013", Severity::harmless, "amdgpu.ids not found",
		 "/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or directory",
		 "libdrm looked for its table of marketing names at a fixed path and did not find it.",
		 "A PyTorch wheel or ROCm build ships its own libdrm with a path that does not exist on this "
		 "system.",
		 "Nothing is needed: only the GPU's marketing name is affected. To silence it, link the system's "
		 "amdgpu.ids (/usr/share/libdrm/amdgpu.ids) to the path printed.",
		 "pytorch/pytorch#144203, ROCm/pytorch#984"},
		{Sig::out_of_memory, "RDNA-LOG-014", Severity::error, "GPU out of memory",
		 "torch.OutOfMemoryError: HIP out of memory / hipErrorOutOfMemory",
		 "An allocation did not fit in the GPU memory the process may use.",
		 "The model or batch is too large, memory is held by other processes, or on an APU the GTT / TTM "
		 "ceiling is smaller than the system memory.",
		 "Reduce batch size or precision; on APUs raise the ceiling (ttm.pages_limit / amdgpu.gttsize).",
		 "pytorch/pytorch c10/hip/HIPCachingAllocator.cpp (OutOfMemoryError)"},
		{Sig::no_gpu_visible, "RDNA-LOG-015", Severity::error, "no GPU visible to HIP",
		 "No HIP GPUs are available / hipErrorNoDevice / torch.cuda.is_available() False",
		 "The runtime found no usable GPU for this process.",
		 "/dev/kfd or the render node cannot be opened (group render/video), *_VISIBLE_DEVICES hides every "
		 "GPU, amdgpu is not loaded, or the PyTorch build is CPU-only / CUDA.",
		 "Run `rdnactl status`: it checks access, visibility variables and the driver.",
		 "pytorch/pytorch torch/cuda/__init__.py (_lazy_init)"},
	};
	return c;
}

const SignatureInfo &info(Sig s)
{
	return catalogue().at(static_cast<std::size_t>(s));
}

const SignatureInfo *find_id(std::string_view id)
{
	for (const auto &s : catalogue())
		if (s.id == id)
			return &s;
	return nullptr;
}

} // namespace rdnafix::explain
