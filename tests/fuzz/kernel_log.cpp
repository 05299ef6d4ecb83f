// Fuzz target: the kernel-log reader of status (core/parse_kernel_log.cpp,
// with core/amdgpu_fault.cpp's VM fault decoder).  Seeds:
// tests/fuzz/corpus/SOURCE.md.
#include "core/parse_kernel_log.hpp"
#include "fuzz.hpp"

using namespace rdnafix;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	const auto in = fuzz::text(data, size);
	const core::KernelLogEvents ev = core::parse_kernel_log(in);
	fuzz::check(ev.last_faults.size() <= core::KernelLogEvents::kKeptFaults, "at most kKeptFaults faults kept");
	fuzz::check(ev.last_faults.size() <= ev.vm_faults, "kept faults are counted");
	// What status prints of a fault: the status word explained.
	for (const auto &f : ev.last_faults)
		if (f.status)
			(void)f.status->explain();
	return 0;
}
