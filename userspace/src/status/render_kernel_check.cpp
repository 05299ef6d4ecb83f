// `rdnactl kernel-check` output: JSON, the one verdict line (stdout) and the
// banner a kernel postinst hook shows when rdnafix will not load after a
// reboot into the new kernel (stderr).  Pure; every text taken from the
// machine goes through core::terminal_safe.
#include "checks.hpp"
#include "kernel_builds.hpp"

#include "core/parse_rdnafix.hpp"
#include "core/text_safe.hpp"
#include "machine/snapshot_json.hpp"

#include "rdnafix_version.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

using machine::json_opt;
using machine::json_str_or_null;
using nlohmann::ordered_json;

namespace {

std::string yes_no(const std::optional<bool> &v, const char *yes, const char *no, const char *unknown)
{
	return v ? (*v ? yes : no) : unknown;
}

// "on", with how it was read: efivars SecureBoot, or mokutil's own line.
std::string secure_boot_text(const machine::BootConfig &b, const std::string &mokutil)
{
	std::string sb =
		yes_no(b.secure_boot, "on", "off", "unknown (not EFI, or the SecureBoot variable is unreadable)");
	if (!mokutil.empty())
		sb += fmt::format(" (mokutil --sb-state: {})", mokutil);
	return sb;
}

// The signing state a build for this kernel will have.
std::string signing_text(const machine::BootConfig &b)
{
	if (b.mok_key.empty())
		return "no DKMS signing key (/var/lib/dkms/mok.pub): DKMS leaves the module unsigned";
	return fmt::format("DKMS signs with /{} ({})", b.mok_key,
			   yes_no(b.mok_enrolled, "enrolled in MokListRT",
				  "NOT enrolled in MokListRT: mokutil --import it", "enrolment unknown"));
}

} // namespace

std::string amdgpu_origin(const machine::InstalledKernel &k)
{
	if (k.amdgpu_builtin)
		return "built-in";
	if (k.amdgpu_module.empty())
		return "none";
	const auto o = core::module_origin(k.amdgpu_module);
	return o.empty() ? "other" : std::string(o);
}

std::string kernel_check_amdgpu_line(const Snapshot &s, const KernelCheck &k)
{
	const auto *kern = k.build.kernel;
	if (!kern)
		return "";
	const std::string o = amdgpu_origin(*kern);
	if (o == "built-in")
		return core::terminal_safe(fmt::format("amdgpu is built into {}: rdnafix has no module load to hook "
						       "there, and amdgpu reads its options only from the kernel "
						       "command line",
						       k.release)) +
		       "\n";
	const bool dkms = o == "dkms" || o == "updates" || o == "extra";
	if (dkms)
		return core::terminal_safe(fmt::format(
			       "amdgpu for {0}: /{1} ({2}{3}), not the kernel's own; rdnafix's build-time checks read "
			       "it: rebuild rdnafix after every amdgpu-dkms upgrade (dkms unbuild rdnafix/{4} -k {0} "
			       "&& dkms install rdnafix/{4} -k {0})",
			       k.release, kern->amdgpu_module, o,
			       s.boot.amdgpu_dkms_versions.empty()
				       ? ""
				       : ": amdgpu-dkms " + s.boot.amdgpu_dkms_versions.back(),
			       s.boot.dkms_versions.empty() ? "<version>" : s.boot.dkms_versions.back())) +
		       "\n";
	if (!s.boot.amdgpu_dkms_versions.empty())
		return core::terminal_safe(fmt::format(
			       "amdgpu-dkms {} is added to DKMS but not built for {}: it runs the kernel's own amdgpu "
			       "(dkms autoinstall -k {})",
			       s.boot.amdgpu_dkms_versions.back(), k.release, k.release)) +
		       "\n";
	return "";
}

ordered_json kernel_check_json(const Snapshot &s, const KernelCheck &k)
{
	ordered_json j;
	j["schema_version"] = 1;
	j["rdnactl_version"] = RDNAFIX_VERSION;
	j["root"] = s.root;
	j["release"] = k.release;
	j["verdict"] = std::string(to_string(k.verdict));
	j["exit_code"] = exit_code_for(k);
	j["configured"] = k.configured;
	j["configured_by"] = json_str_or_null(k.configured_by);
	const auto *kern = k.build.kernel;
	j["installed"] = kern != nullptr;
	j["image"] = kern && !kern->image.empty() ? ordered_json("/" + kern->image) : ordered_json(nullptr);
	j["headers"] = kern ? ordered_json(kern->headers) : ordered_json(nullptr);
	j["built"] = k.build.built();
	const auto *m = k.build.module;
	j["module"] = m ? ordered_json(*m) : ordered_json(nullptr);
	j["problem"] = json_str_or_null(missing_text(k.build));
	j["dkms"] = kern ? ordered_json(kern->dkms) : ordered_json::array();
	j["dkms_summary"] = json_str_or_null(dkms_text(s.boot, k.build));
	j["dkms_log"] = kern && kern->dkms_log ? ordered_json(*kern->dkms_log) : ordered_json(nullptr);
	j["amdgpu_module"] =
		kern && !kern->amdgpu_module.empty() ? ordered_json("/" + kern->amdgpu_module) : ordered_json(nullptr);
	j["amdgpu_origin"] = json_str_or_null(kern ? amdgpu_origin(*kern) : "");
	j["amdgpu_dkms"] = s.boot.amdgpu_dkms_versions;
	j["secure_boot"] = json_opt(s.boot.secure_boot);
	j["mok_key"] = s.boot.mok_key.empty() ? ordered_json(nullptr) : ordered_json("/" + s.boot.mok_key);
	j["mok_enrolled"] = json_opt(s.boot.mok_enrolled);
	j["fix"] = json_str_or_null(k.fix);
	return j;
}

std::string kernel_check_line(const KernelCheck &k)
{
	const std::string rel = core::terminal_safe(k.release);
	switch (k.verdict) {
	case KernelVerdict::built: {
		const auto &m = *k.build.module;
		return core::terminal_safe(
			       fmt::format("rdnafix {} is built for {}: /{} ({}{})",
					   m.version.empty() ? "(version unknown)" : m.version, k.release, m.path,
					   m.signature == machine::SignatureState::unknown ? "signature unknown"
											   : to_string(m.signature),
					   m.signer.empty() ? "" : ": " + m.signer)) +
		       "\n";
	}
	case KernelVerdict::not_configured:
		return fmt::format("rdnafix is not configured (no softdep amdgpu pre: rdnafix and no rdnafix option in "
				   "modprobe.d): nothing to check for {}\n",
				   rel);
	case KernelVerdict::missing:
		return fmt::format("rdnafix is configured but NOT built for {}: after a reboot into {} rdnafix will "
				   "not load\n",
				   rel, rel);
	case KernelVerdict::not_installed:
		break;
	}
	return fmt::format("kernel {} is not installed: /lib/modules/{} has no modules.dep and no kernel/ "
			   "directory\n",
			   rel, rel);
}

std::string kernel_check_banner(const Snapshot &s, const KernelCheck &k, const std::string &mokutil)
{
	if (k.verdict != KernelVerdict::missing || !k.build.kernel)
		return "";
	const auto &kern = *k.build.kernel;
	const auto &b = s.boot;
	std::vector<std::string> l;
	const std::string rule(72, '*');
	l.push_back(rule);
	l.push_back(fmt::format("rdnafix is configured but NOT BUILT for kernel {}", kern.release));
	l.push_back(fmt::format("after a reboot into {} rdnafix will not load: amdgpu runs without it", kern.release));
	if (!k.configured_by.empty())
		l.push_back("configured by " + k.configured_by);
	l.push_back(missing_text(k.build));
	l.push_back(fmt::format("headers: {}",
				kern.headers ? fmt::format("/lib/modules/{}/build", kern.release)
					     : fmt::format("missing ({})", detail::headers_command(b, kern.release))));
	if (auto d = dkms_text(b, k.build); !d.empty())
		l.push_back(d);
	if (const auto &log = kern.dkms_log) {
		if (!log->error.empty())
			l.push_back(fmt::format("/{}: {}", log->path, log->error));
		else {
			l.push_back(fmt::format("last {} lines of /{}:", log->tail.size(), log->path));
			for (const auto &t : log->tail)
				l.push_back("  | " + core::expand_tabs(t)); // quoted: tabs as a terminal shows them
		}
	}
	l.push_back("Secure Boot: " + secure_boot_text(b, mokutil));
	l.push_back("signing: " + signing_text(b));
	for (const auto &other : b.kernels)
		for (const auto &m : other.rdnafix_modules)
			if (m.signature != machine::SignatureState::unknown)
				l.push_back(fmt::format("  rdnafix of {}: {}{}", other.release, to_string(m.signature),
							m.signer.empty() ? "" : " by " + m.signer));
	if (b.secure_boot.value_or(false))
		l.push_back("with Secure Boot on, the kernel loads only modules signed by a key it trusts "
			    "(kernel/module/signing.c: module_sig_check, Linux 6.12)");
	l.push_back("fix: " + k.fix);
	l.push_back(rule);
	std::string out;
	for (const auto &x : l)
		out += "rdnactl: " + core::terminal_safe(x) + "\n";
	return out;
}

} // namespace rdnafix::status
