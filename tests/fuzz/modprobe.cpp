// Fuzz target: the modprobe.d reader (core/parse_modprobe.cpp, kmod's syntax)
// and the kernel command-line splitter it shares its quoting rules with
// (core/parse_cmdline.cpp), then the option lookup status does for amdgpu;
// the same bytes as depmod's lists and rdnafix's counter files
// (core/parse_rdnafix.cpp: modules.dep, modules.builtin, calls, missing,
// evidence, leaks).
// Seeds: tests/fuzz/corpus/SOURCE.md.
#include "core/parse.hpp"
#include "core/parse_rdnafix.hpp"
#include "fuzz.hpp"

using namespace rdnafix;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	const auto in = fuzz::text(data, size);
	const core::ModprobeConfig c = core::parse_modprobe_conf(in, "etc/modprobe.d/fuzz.conf");
	for (const auto &e : c.entries) {
		fuzz::check(e.where.line >= 1, "an entry has a 1-based line");
		(void)core::to_string(e.kind);
	}
	(void)core::module_options({c}, "amdgpu");
	for (const auto &e : c.entries)
		if (e.kind == core::ModprobeKind::options)
			(void)core::module_options({c}, e.module);
	const core::KernelCmdline k = core::parse_kernel_cmdline(in);
	(void)k.module_params("amdgpu");
	(void)k.module_param("amdgpu", "noretry");
	(void)k.param("iommu");
	(void)core::split_module_params(in);
	const std::string dep = core::modules_dep_path(in, "amdgpu");
	fuzz::check(dep.empty() || core::module_name_of(dep) == "amdgpu", "modules.dep answers with an amdgpu path");
	(void)core::module_origin(dep);
	(void)core::modules_builtin_has(in, "amdgpu");
	for (const auto &[hook, counts] : core::parse_hook_counts(in).hooks)
		fuzz::check(!hook.empty(), "a hook line names its hook");
	(void)core::parse_colon_pairs(in);
	(void)core::parse_leaks(in);
	return 0;
}
