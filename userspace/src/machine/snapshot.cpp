// The one spelling of each snapshot enum (the JSON and text words), and the
// facts a core rule needs, picked out of a snapshot.
#include "machine/snapshot.hpp"

#include "machine/facts.hpp"

#include <fmt/format.h>

namespace rdnafix::machine {

std::string_view to_string(GfxTargetSource s)
{
	switch (s) {
	case GfxTargetSource::unknown:
		return "";
	case GfxTargetSource::kfd:
		return "kfd";
	case GfxTargetSource::libdrm:
		return "libdrm";
	case GfxTargetSource::pci_id_table:
		return "pci-id-table";
	case GfxTargetSource::gc_version:
		return "gc-version";
	}
	return "";
}

std::string_view to_string(NameSource s)
{
	switch (s) {
	case NameSource::none:
		return "";
	case NameSource::libdrm:
		return "libdrm";
	case NameSource::amdgpu_ids:
		return "amdgpu.ids";
	}
	return "";
}

std::string_view to_string(ParamSource s)
{
	switch (s) {
	case ParamSource::default_value:
		return "default";
	case ParamSource::modprobe_d:
		return "modprobe.d";
	case ParamSource::cmdline:
		return "cmdline";
	}
	return "default";
}

std::string_view to_string(LoadEvidence e)
{
	switch (e) {
	case LoadEvidence::none:
		return "";
	case LoadEvidence::proc_modules:
		return "proc/modules";
	case LoadEvidence::sys_module:
		return "sys/module/rdnafix";
	}
	return "";
}

std::string_view to_string(StatSource s)
{
	switch (s) {
	case StatSource::none:
		return "";
	case StatSource::stat:
		return "stat";
	case StatSource::manifest:
		return "manifest";
	}
	return "";
}

std::string_view to_string(AccessSubject s)
{
	switch (s) {
	case AccessSubject::process:
		return "process";
	case AccessSubject::user:
		return "user";
	}
	return "process";
}

std::string_view to_string(CollectorKind k)
{
	switch (k) {
	case CollectorKind::none:
		return "";
	case CollectorKind::live:
		return "live";
	case CollectorKind::root:
		return "root";
	}
	return "";
}

std::string pci_id(const Device &d)
{
	if (!d.vendor_id || !d.device_id)
		return "";
	return fmt::format("{:04x}:{:04x}", *d.vendor_id, *d.device_id);
}

const Param *find_param(const Snapshot &s, std::string_view module, std::string_view name)
{
	for (const auto &p : s.driver.params)
		if (p.module == module && p.name == name)
			return &p;
	return nullptr;
}

rules::DeviceNoretryFacts noretry_facts(const Snapshot &s, const Device &d)
{
	rules::DeviceNoretryFacts f;
	f.kernel_version_line = s.driver.kernel_version_line;
	f.kernel_release = s.driver.kernel_release;
	if (d.gc_version)
		f.gc_version = *d.gc_version;
	// The last amdgpu.noretry entry with a live value (there is one).
	for (const auto &p : s.driver.params)
		if (p.module == "amdgpu" && p.name == "noretry" && p.live_value)
			f.noretry_param = *p.live_value;
	f.amdgpu_loaded = s.driver.amdgpu_loaded;
	f.bound_to_amdgpu = d.driver == "amdgpu";
	f.rdnafix_applied = d.rdnafix_noretry_applied;
	return f;
}

} // namespace rdnafix::machine

namespace rdnafix::machine {

std::string_view to_string(ImmutableKind k)
{
	switch (k) {
	case ImmutableKind::nixos:
		return "nixos";
	case ImmutableKind::steamos:
		return "steamos";
	case ImmutableKind::ostree:
		return "ostree";
	case ImmutableKind::none:
		break;
	}
	return "";
}

std::string_view to_string(InitramfsGenerator g)
{
	switch (g) {
	case InitramfsGenerator::initramfs_tools:
		return "initramfs-tools";
	case InitramfsGenerator::dracut:
		return "dracut";
	case InitramfsGenerator::mkinitcpio:
		return "mkinitcpio";
	case InitramfsGenerator::none:
		break;
	}
	return "";
}

std::string_view lister_for(InitramfsGenerator g)
{
	switch (g) {
	case InitramfsGenerator::initramfs_tools:
		return "lsinitramfs";
	case InitramfsGenerator::dracut:
		return "lsinitrd";
	case InitramfsGenerator::mkinitcpio:
		return "lsinitcpio";
	case InitramfsGenerator::none:
		break;
	}
	return "";
}

std::string_view to_string(BootloaderKind k)
{
	switch (k) {
	case BootloaderKind::grub:
		return "grub";
	case BootloaderKind::systemd_boot:
		return "systemd-boot";
	case BootloaderKind::kernelstub:
		return "kernelstub";
	case BootloaderKind::unknown:
		break;
	}
	return "";
}

std::string_view to_string(SignatureState s)
{
	switch (s) {
	case SignatureState::unsigned_module:
		return "unsigned";
	case SignatureState::signed_module:
		return "signed";
	case SignatureState::unknown:
		break;
	}
	return "";
}

std::string_view to_string(DrmVersionSource s)
{
	switch (s) {
	case DrmVersionSource::none:
		return "";
	case DrmVersionSource::ioctl:
		return "ioctl";
	case DrmVersionSource::file:
		return "file";
	case DrmVersionSource::derived:
		return "derived";
	}
	return "";
}

std::string_view to_string(KernelLogSource s)
{
	switch (s) {
	case KernelLogSource::none:
		return "";
	case KernelLogSource::kmsg:
		return "kmsg";
	case KernelLogSource::file:
		return "file";
	}
	return "";
}

} // namespace rdnafix::machine

namespace rdnafix::machine {

std::string_view to_string(ContainerKind k)
{
	switch (k) {
	case ContainerKind::none:
		return "";
	case ContainerKind::docker:
		return "docker";
	case ContainerKind::podman:
		return "podman";
	case ContainerKind::distrobox:
		return "distrobox";
	case ContainerKind::toolbox:
		return "toolbox";
	case ContainerKind::flatpak:
		return "flatpak";
	case ContainerKind::snap:
		return "snap";
	case ContainerKind::lxc:
		return "lxc";
	case ContainerKind::systemd_nspawn:
		return "systemd-nspawn";
	case ContainerKind::other:
		return "other";
	}
	return "";
}

std::string_view to_string(WslKind k)
{
	switch (k) {
	case WslKind::none:
		return "";
	case WslKind::wsl1:
		return "wsl1";
	case WslKind::wsl2:
		return "wsl2";
	}
	return "";
}

} // namespace rdnafix::machine
