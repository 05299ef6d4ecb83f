// The coverage report's words: enum names, verdict phrases, summary lines
// (`rdnactl coverage`, `status`).
#include "software/words.hpp"

#include "software/libdirs.hpp"

#include "core/text_safe.hpp"

#include <fmt/format.h>

namespace rdnafix::coverage {

std::string_view to_string(InstallKind k)
{
	switch (k) {
	case InstallKind::pytorch:
		return "pytorch";
	case InstallKind::rocm_system:
		return "rocm_system";
	case InstallKind::rocm_debian:
		return "rocm_distribution";
	case InstallKind::rocm_bundled:
		return "rocm_bundled";
	case InstallKind::consumer:
		return "consumer";
	case InstallKind::path_argument:
		return "path_argument";
	}
	return "path_argument";
}

std::string_view to_string(FoundBy b)
{
	switch (b) {
	case FoundBy::python_option:
		return "python_option";
	case FoundBy::virtual_env:
		return "virtual_env";
	case FoundBy::conda_prefix:
		return "conda_prefix";
	case FoundBy::path_python:
		return "path_python";
	case FoundBy::rocm_path:
		return "rocm_path";
	case FoundBy::opt_rocm:
		return "opt_rocm";
	case FoundBy::multiarch:
		return "system_directory";
	case FoundBy::argument:
		return "argument";
	}
	return "argument";
}

std::string_view to_string(LibraryKind k)
{
	switch (k) {
	case LibraryKind::fatbin:
		return "fatbin";
	case LibraryKind::tensile_files:
		return "tensile_files";
	case LibraryKind::miopen_db:
		return "miopen_db";
	}
	return "fatbin";
}

std::string_view to_string(FileKind k)
{
	switch (k) {
	case FileKind::elf_with_fatbin:
		return "elf_with_fatbin";
	case FileKind::elf_without:
		return "elf_without_device_code";
	case FileKind::bundle:
		return "bundle";
	case FileKind::code_object:
		return "code_object";
	case FileKind::not_device_code:
		return "not_device_code";
	case FileKind::unreadable:
		return "unreadable";
	case FileKind::over_budget:
		return "not_read_budget";
	}
	return "unreadable";
}

std::string verdict_phrase(const DeviceVerdict &v)
{
	switch (v.verdict) {
	case Verdict::native:
		return "native";
	case Verdict::generic:
		return fmt::format("generic ({})", v.via);
	case Verdict::override_only:
		// An unsafe value is a warning, never advice: say first that there is no usable code.
		if (v.override_safety == rules::OverrideVerdict::unsafe)
			return fmt::format(
				"no usable code: only {} code, which HSA_OVERRIDE_GFX_VERSION={} would load; "
				"unsafe on {} (another ISA), do not set it",
				v.via, v.override_value, v.gfx);
		return fmt::format("only with HSA_OVERRIDE_GFX_VERSION={} ({})", v.override_value,
				   v.override_safety ? rules::to_string(*v.override_safety) : "unknown");
	case Verdict::missing:
		return "missing";
	case Verdict::no_code:
		return "no device code";
	}
	return "missing";
}

std::string gpu_label(const std::string &gfx, const std::string &device)
{
	return device.empty() ? gfx + " (--gfx)" : gfx + " @ " + device;
}

std::vector<std::string> summary_lines(const Report &r)
{
	std::vector<std::string> out;
	for (const auto &s : r.summary) {
		const Install &in = r.installs[s.install];
		std::string line = fmt::format("{}  {}: {}", gpu_label(s.verdict.gfx, s.verdict.device), in.label,
					       verdict_phrase(s.verdict));
		if (s.verdict.verdict != Verdict::native)
			line += fmt::format(" — {}: {}", s.library, s.verdict.reason);
		out.push_back(std::move(line));
	}
	return out;
}

} // namespace rdnafix::coverage
