// The per-kernel build verdict (status/kernel_builds.hpp): which rdnafix
// module modprobe would load for a kernel, what DKMS recorded about it, and
// the command that builds it.  No I/O.
#include "kernel_builds.hpp"

#include "checks.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace {

// The DKMS build of `k` that has a module, the newest version first (dkms
// keeps one directory per source version).
const machine::DkmsBuild *dkms_with_module(const machine::InstalledKernel &k)
{
	const machine::DkmsBuild *best = nullptr;
	for (const auto &d : k.dkms)
		if (d.module && (!best || best->version < d.version))
			best = &d;
	return best;
}

} // namespace

KernelBuild kernel_build(const machine::InstalledKernel &k)
{
	KernelBuild b;
	b.kernel = &k;
	for (const auto &m : k.rdnafix_modules) {
		if (!m.built_for.empty() && m.built_for != k.release)
			b.foreign.push_back(&m);
		else if (!b.module)
			b.module = &m;
	}
	if (!b.module)
		b.built_not_installed = dkms_with_module(k);
	return b;
}

std::string built_text(const KernelBuild &b)
{
	if (!b.module)
		return "no";
	return fmt::format("yes ({})", b.module->version.empty() ? "version unknown" : b.module->version);
}

std::string missing_text(const KernelBuild &b)
{
	if (b.built() || !b.kernel)
		return "";
	if (!b.foreign.empty())
		return fmt::format("/{} was built for {}, not for {}", b.foreign[0]->path, b.foreign[0]->built_for,
				   b.kernel->release);
	return fmt::format("no rdnafix.ko below /lib/modules/{}", b.kernel->release);
}

std::string dkms_text(const machine::BootConfig &b, const KernelBuild &kb)
{
	if (!kb.kernel || kb.built())
		return "";
	const auto &k = *kb.kernel;
	if (const auto *d = kb.built_not_installed)
		return fmt::format("DKMS built rdnafix {} in /{}/module but did not install it", d->version, d->dir);
	if (k.dkms_log && k.dkms_log->failed)
		return fmt::format("DKMS's build of rdnafix {} failed (/{})", k.dkms_log->version, k.dkms_log->path);
	if (b.dkms_versions.empty())
		return "no rdnafix source is added to DKMS (/var/lib/dkms/rdnafix)";
	std::string versions;
	for (const auto &v : b.dkms_versions)
		versions += (versions.empty() ? "" : ", ") + v;
	return fmt::format("DKMS has rdnafix {} but no build for {}{}", versions, k.release,
			   k.headers ? "" : " (its headers are missing)");
}

std::string build_fix(const machine::BootConfig &b, const KernelBuild &kb)
{
	if (!kb.kernel)
		return "";
	const auto &k = *kb.kernel;
	if (const auto *d = kb.built_not_installed)
		return fmt::format("dkms install -m rdnafix -v {} -k {}", d->version, k.release);
	std::string fix = fmt::format("dkms autoinstall -k {}", k.release);
	if (!k.headers)
		fix = fmt::format("{}, then {} (DKMS builds rdnafix when the headers are installed)",
				  detail::headers_command(b, k.release), fix);
	else if (k.dkms_log && k.dkms_log->failed)
		fix += fmt::format(" after reading /{}", k.dkms_log->path);
	return fix;
}

std::vector<Remedy> build_remedies(const machine::BootConfig &b, const KernelBuild &kb)
{
	if (kb.kernel && !kb.kernel->headers && !kb.built_not_installed)
		if (auto r = detail::headers_remedy(b, kb.kernel->release))
			return {*r};
	return {NoChange{}};
}

std::string_view to_string(KernelVerdict v)
{
	switch (v) {
	case KernelVerdict::built:
		return "built";
	case KernelVerdict::not_configured:
		return "not_configured";
	case KernelVerdict::missing:
		return "missing";
	case KernelVerdict::not_installed:
		break;
	}
	return "not_installed";
}

KernelCheck kernel_check(const Snapshot &s, const Assessment &a, const std::string &release)
{
	KernelCheck c;
	c.release = release;
	c.configured = detail::rdnafix_configured(s, a.settings);
	for (const auto &x : a.settings)
		if (c.configured_by.empty() && x.module == "rdnafix" && x.next_boot)
			if (const auto *src = machine::next_boot_source(x))
				c.configured_by =
					fmt::format("/{}:{} rdnafix.{}={}", src->file, src->line, x.name, *x.next_boot);
	for (const auto &f : s.boot.modprobe)
		for (const auto &e : f.config.entries)
			if (c.configured_by.empty() && e.kind == core::ModprobeKind::softdep &&
			    std::find(e.pre.begin(), e.pre.end(), "rdnafix") != e.pre.end())
				c.configured_by = fmt::format("/{}:{} {}", f.path, e.where.line, e.text);
	const machine::InstalledKernel *k = nullptr;
	for (const auto &kk : s.boot.kernels)
		if (kk.release == release)
			k = &kk;
	if (!k) {
		c.verdict = KernelVerdict::not_installed;
		return c;
	}
	c.build = kernel_build(*k);
	if (c.build.built())
		c.verdict = KernelVerdict::built;
	else if (!c.configured)
		c.verdict = KernelVerdict::not_configured;
	else {
		c.verdict = KernelVerdict::missing;
		c.fix = build_fix(s.boot, c.build);
		c.remedies = build_remedies(s.boot, c.build);
	}
	return c;
}

int exit_code_for(const KernelCheck &k)
{
	switch (k.verdict) {
	case KernelVerdict::built:
	case KernelVerdict::not_configured:
		return 0;
	case KernelVerdict::missing:
		return 1;
	case KernelVerdict::not_installed:
		break;
	}
	return 2;
}

} // namespace rdnafix::status
