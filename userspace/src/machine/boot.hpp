#pragma once
// The boot configuration as facts: what the next boot will do (os-release,
// the initramfs generator, the boot loader's command line, the installed
// kernels and their rdnafix modules, the modprobe.d files) and the security
// state that decides whether rdnafix may load (Secure Boot, lockdown, taint).
// Part of machine::Snapshot (`Snapshot::boot`); no verdicts here.
#include "machine/unreadable.hpp"

#include "core/parse.hpp"
#include "core/parse_boot.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::machine {

// A system whose /etc is not the place to change boot configuration.
enum class ImmutableKind { none, nixos, steamos, ostree };
std::string_view to_string(ImmutableKind k); // "", "nixos", "steamos", "ostree"

enum class InitramfsGenerator { none, initramfs_tools, dracut, mkinitcpio };
std::string_view to_string(InitramfsGenerator g); // "", "initramfs-tools", "dracut", "mkinitcpio"
// The generator's own lister of an image: "lsinitramfs", "lsinitrd", "lsinitcpio"; "" for none.
std::string_view lister_for(InitramfsGenerator g);

enum class BootloaderKind { unknown, grub, systemd_boot, kernelstub };
std::string_view to_string(BootloaderKind k); // "", "grub", "systemd-boot", "kernelstub"

// A module's appended signature (the "~Module signature appended~" trailer).
enum class SignatureState { unknown, unsigned_module, signed_module };
std::string_view to_string(SignatureState s); // "", "unsigned", "signed"

// One rdnafix module file of an installed kernel.
struct ModuleFile {
	std::string path; // root-relative: "lib/modules/6.1.0-18-amd64/updates/dkms/rdnafix.ko.xz"
	SignatureState signature = SignatureState::unknown;
	std::string signer;           // from the signature's certificate, when known
	std::string signature_reason; // why the state is unknown (compressed and unreadable, ...)
	// From the module's .modinfo section (core/parse_modinfo.hpp).
	std::string version;       // MODULE_VERSION, "" when unknown
	std::string built_for;     // the kernel release of its vermagic, "" when unknown
	std::string modinfo_error; // why version/built_for are unknown ("" when read)
};

// DKMS's record of one rdnafix build for one kernel (dkms 3.x, Debian 12:
// var/lib/dkms/rdnafix/<version>/<kernel>/<arch>/ holds module/rdnafix.ko*
// and log/make.log after a successful `dkms build`).
struct DkmsBuild {
	std::string version;    // "0.1.0" (the source version directory)
	std::string arch;       // "x86_64"
	std::string dir;        // root-relative: "var/lib/dkms/rdnafix/0.1.0/6.1.0-18-amd64/x86_64"
	bool module = false;    // module/rdnafix.ko* is there (built)
	bool installed = false; // var/lib/dkms/rdnafix/kernel-<kernel>-<arch> exists (dkms install)
};

// A DKMS make.log of rdnafix whose first line names the kernel ("DKMS
// make.log for rdnafix-0.1.0 for kernel 6.12.57+deb12-amd64 (x86_64)").
// dkms writes it to var/lib/dkms/rdnafix/<version>/build/make.log and moves
// it into <kernel>/<arch>/log/ only when the build succeeds: a log left in
// build/ is a failed (or interrupted) build.
inline constexpr std::size_t kDkmsLogTailLines = 20;
struct DkmsLog {
	std::string path;    // root-relative
	std::string version; // from the first line
	bool failed = false; // the log is still in build/
	std::optional<std::int64_t> mtime_ns;
	std::vector<std::string> tail; // its last kDkmsLogTailLines lines, as read (not made terminal-safe)
	std::string error;             // why it could not be read ("" when read)
};

// What an initramfs image holds, from the generator's own lister
// (lsinitramfs, lsinitrd, lsinitcpio).  Listed only when the image is older
// than the configuration (BootConfig::config_mtime_ns): a subprocess.
struct InitramfsListing {
	std::vector<std::string> command; // argv run (a host path under --root)
	bool ok = false;                  // the lister ran and exited 0
	std::string error;                // why not (not found, exit status and its last line)
	bool amdgpu = false;              // .../amdgpu.ko* inside
	bool rdnafix = false;             // .../rdnafix.ko* inside
	bool conf = false;                // etc/modprobe.d/rdnafix.conf inside
};

struct InstalledKernel {
	std::string release;                     // "6.1.0-18-amd64"
	bool headers = false;                    // lib/modules/<rel>/build/Makefile exists
	std::vector<ModuleFile> rdnafix_modules; // every rdnafix.ko* below lib/modules/<rel>
	// The kernel image: boot/vmlinuz-<rel>, lib/modules/<rel>/vmlinuz (Fedora,
	// Arch) or boot/vmlinuz-<pkgbase> (Arch); "" when none was found.
	std::string image;
	std::vector<DkmsBuild> dkms;     // DKMS's builds of rdnafix for this kernel
	std::optional<DkmsLog> dkms_log; // read only when no rdnafix module is installed for it
	std::string initramfs_image;     // root-relative, "" when none was found
	std::optional<std::int64_t> initramfs_mtime_ns;
	std::optional<InitramfsListing> initramfs_listing; // only when listed (see InitramfsListing)
	// The amdgpu modprobe loads for this kernel: the path depmod resolved
	// (modules.dep), else the first amdgpu.ko* in depmod's default search
	// order (updates/dkms, updates, extra, kernel); root-relative, "" none.
	std::string amdgpu_module;
	bool amdgpu_builtin = false;                  // modules.builtin names amdgpu.ko (CONFIG_DRM_AMDGPU=y)
	std::vector<std::string> amdgpu_dkms_modules; // lib/modules/<rel>/updates/dkms/amdgpu.ko* (amdgpu-dkms)
	bool running = false;                         // equals proc/sys/kernel/osrelease
	bool default_boot = false; // the newest release (version order): what boot loaders pick by default
};

// One assignment of the boot loader's kernel command line in a config file.
struct CmdlineVar {
	std::string file;     // root-relative: "etc/default/grub", "etc/default/grub.d/rdnafix.cfg"
	std::string variable; // "GRUB_CMDLINE_LINUX" | "GRUB_CMDLINE_LINUX_DEFAULT" | "" (etc/kernel/cmdline)
	unsigned line = 0;
	std::string value; // unquoted
	bool expands = false;
	bool appends_self = false;
};

// A file the boot configuration depends on, with its modification time.
struct ConfigFile {
	std::string path; // root-relative
	bool exists = false;
	std::optional<std::int64_t> mtime_ns;
	std::string content; // text (owned files and the boot loader's files only)
};

// A modprobe.d file kmod reads, in kmod's order.
struct ModprobeSource {
	std::string path; // root-relative
	std::optional<std::int64_t> mtime_ns;
	core::ModprobeConfig config;
};

struct BootConfig {
	core::OsRelease os;
	ImmutableKind immutable = ImmutableKind::none;
	std::string immutable_evidence; // the path that showed it
	InitramfsGenerator initramfs = InitramfsGenerator::none;
	std::string initramfs_evidence; // e.g. "usr/sbin/update-initramfs"
	BootloaderKind bootloader = BootloaderKind::unknown;
	std::string bootloader_evidence;
	std::vector<CmdlineVar> cmdline_vars;          // GRUB assignments or etc/kernel/cmdline, in sourcing order
	std::vector<std::string> cmdline_problems;     // lines of those files that are not simple assignments
	std::vector<InstalledKernel> kernels;          // version order, oldest first
	std::vector<ModprobeSource> modprobe;          // kmod's order
	std::vector<ConfigFile> owned;                 // the files `rdnactl config` owns (exists or not)
	bool amdgpu_dkms = false;                      // amdttm present (AMD's packaged driver)
	std::vector<std::string> amdgpu_dkms_versions; // var/lib/dkms/amdgpu/<version> (amdgpu-dkms added to DKMS)
	std::optional<bool> secure_boot;               // EFI variable SecureBoot; nullopt: not EFI or unreadable
	std::optional<std::string> lockdown;           // "none" | "integrity" | "confidentiality"
	std::optional<bool> mok_enrolled;              // DKMS's key found in MokListRT
	std::string mok_key;                           // root-relative path of DKMS's certificate, if any
	std::vector<std::string> dkms_versions;        // var/lib/dkms/rdnafix/<version> (added to DKMS)
	std::optional<std::uint64_t> tainted;          // proc/sys/kernel/tainted
	std::optional<std::string> rdnafix_taint;      // sys/module/rdnafix/taint ("OE")
	std::optional<std::int64_t> boot_time_s;       // proc/stat btime
	// The newest mtime of the module configuration: the owned files and the
	// modprobe.d files that set options for, or a softdep on, rdnafix, amdgpu,
	// ttm or amdttm (what an initramfs must be rebuilt after).
	std::optional<std::int64_t> config_mtime_ns;
	std::vector<Unreadable> unreadable;
};

// The files `rdnactl config` owns, root-relative, in a fixed order.
inline constexpr std::string_view kOwnedModprobe = "etc/modprobe.d/rdnafix.conf";
inline constexpr std::string_view kOwnedFiles[] = {
	kOwnedModprobe,
	"etc/initramfs-tools/hooks/rdnafix",
	"etc/dracut.conf.d/rdnafix.conf",
	"etc/mkinitcpio.conf.d/rdnafix.conf",
	"etc/default/grub.d/rdnafix.cfg",
};

} // namespace rdnafix::machine
