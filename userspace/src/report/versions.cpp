// versions_text: the versions a bug report needs, from what status and the
// software picture collected (no reader of its own).
#include "report/assemble.hpp"

#include <fmt/format.h>

namespace rdnafix::report {

namespace {

std::string drm_version(const machine::DrmVersion &v)
{
	if (v.source == machine::DrmVersionSource::none)
		return "unknown";
	if (v.minor_at_least || v.minor_at_most)
		return fmt::format("3.{}..3.{} (derived from {})", v.minor_at_least.value_or(0),
				   v.minor_at_most.value_or(0), v.from);
	return fmt::format("{}.{}.{} ({})", v.major, v.minor, v.patch, v.from);
}

} // namespace

std::string versions_text(const machine::Snapshot &snap, const software::Picture &sw)
{
	std::string t;
	t += fmt::format("kernel: {}\n", snap.driver.kernel_release.empty() ? "unknown" : snap.driver.kernel_release);
	if (!snap.driver.kernel_version_line.empty())
		t += fmt::format("kernel build: {}\n", snap.driver.kernel_version_line);
	t += fmt::format("rdnafix module: {}\n", snap.rdnafix.version.value_or("not loaded"));
	for (const auto &d : snap.devices) {
		if (!d.is_amd)
			continue;
		t += fmt::format("gpu {}: {} {}\n", d.pci_bdf, d.gfx_target.value_or("unknown target"),
				 d.marketing_name.value_or(""));
		t += fmt::format("  amdgpu DRM: {}\n", drm_version(d.hw.drm_version));
		for (const auto &[name, v] : d.hw.firmware)
			t += fmt::format("  firmware {}: {}\n", name, v);
	}
	if (sw.stack)
		for (const auto &[name, v] : sw.stack->facts)
			if (name == "hip" || name == "cuda" || name.starts_with("torch"))
				t += fmt::format("{}: {}\n", name, v);
	if (sw.coverage) {
		if (sw.coverage->installs.empty())
			t += "installations (ROCm, PyTorch, llama.cpp/ollama): none found\n";
		for (const auto &in : sw.coverage->installs) {
			t += fmt::format("{}: {} at /{}{}\n", in.label,
					 in.version.empty() ? "version unknown" : in.version, in.path,
					 in.runtime_version.empty() ? ""
								    : fmt::format(" (runtime {})", in.runtime_version));
			for (const auto &lib :
			     in.libraries) // rocBLAS, MIOpen, hipBLASLt, ggml-hip ...: their file names
				t += fmt::format("  {}\n", lib.name);
		}
	}
	return t;
}

} // namespace rdnafix::report
