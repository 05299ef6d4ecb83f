#pragma once
// The amdgpu events of one boot's kernel log, pure: text in (a captured
// `dmesg`, with or without timestamps, or /dev/kmsg records), counts and the
// decoded VM faults out.  status shows them; `rdnactl explain` explains them.
#include "core/amdgpu_fault.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::core {

struct KernelLogEvents {
	std::size_t lines = 0;
	std::size_t user_records = 0;                   // /dev/kmsg records written by processes: skipped
	std::size_t vm_faults = 0;                      // every page-fault block / status word
	std::vector<amdgpu_fault::VmFault> last_faults; // the last kKeptFaults of them
	std::size_t ring_timeouts = 0, gpu_resets = 0, mes_failures = 0, firmware_failures = 0;
	std::string last_ring_timeout, last_gpu_reset, last_mes_failure, last_firmware_failure; // the message
	// amdgpu's -ENOMEM on command submission: "Not enough memory for command submission!"
	// (drivers/gpu/drm/amd/amdgpu/amdgpu_cs.c: amdgpu_cs_ioctl, printed at error level)
	std::size_t alloc_failures = 0;
	std::string last_alloc_failure;
	static constexpr std::size_t kKeptFaults = 5;
};

// "[  12.345678] " and "<prio>,<seq>,<usec>,<flags>;" prefixes are removed,
// kmsg continuation lines (" KEY=value") skipped, and so are /dev/kmsg records
// whose facility is not the kernel's (written by a process, e.g. a test or
// `echo ... > /dev/kmsg`: they cannot be amdgpu's).  Never fails.
KernelLogEvents parse_kernel_log(std::string_view text);

} // namespace rdnafix::core
