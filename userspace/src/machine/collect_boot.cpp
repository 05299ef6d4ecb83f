// Reader: the boot configuration (machine/boot.hpp): os-release, the
// initramfs generator and images, the boot loader's command line, installed
// kernels (what is built for them: collect_modules.cpp), modprobe.d with mtimes, the files
// `rdnactl config` owns, Secure Boot, lockdown, taint and boot time.
#include "machine/collect_internal.hpp"

#include "core/parse_boot.hpp"
#include "core/text_util.hpp"
#include "io/process_run.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::machine {

namespace detail {

namespace {

constexpr const char *kEfiGlobal = "8be4df61-93ca-11d2-aa0d-e0e98cbc23e0";
constexpr const char *kEfiShim = "605dab50-e046-4293-a9d4-2e5b1d3d5e3a";

// The first of `paths` that exists, or "".
std::string first_existing(io::RootFs &fs, std::initializer_list<const char *> paths)
{
	for (const char *p : paths)
		if (fs.exists(p))
			return p;
	return {};
}

std::optional<std::int64_t> mtime(io::RootFs &fs, const std::string &rel)
{
	auto st = fs.stat(rel);
	if (!st || st->from_manifest || st->mtime_ns == 0)
		return std::nullopt;
	return st->mtime_ns;
}

// Version order of kernel releases: digit runs compare as numbers.
bool release_less(const std::string &a, const std::string &b)
{
	std::size_t i = 0, j = 0;
	while (i < a.size() && j < b.size()) {
		if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
			std::size_t i2 = i, j2 = j;
			while (i2 < a.size() && a[i2] == '0')
				++i2;
			while (j2 < b.size() && b[j2] == '0')
				++j2;
			std::size_t ie = i2, je = j2;
			while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie])))
				++ie;
			while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je])))
				++je;
			if (ie - i2 != je - j2)
				return ie - i2 < je - j2;
			int c = a.compare(i2, ie - i2, b, j2, je - j2);
			if (c != 0)
				return c < 0;
			i = ie;
			j = je;
		} else {
			if (a[i] != b[j])
				return a[i] < b[j];
			++i;
			++j;
		}
	}
	return a.size() - i < b.size() - j;
}

void read_os(io::RootFs &fs, BootConfig &b)
{
	for (const char *p : {"etc/os-release", "usr/lib/os-release"}) {
		auto t = fs.read_text(p, {.max_bytes = 64 * 1024, .allow_empty = true});
		if (t) {
			b.os = core::parse_os_release(*t);
			break;
		}
		if (t.error().kind != io::FsErrorKind::not_found)
			note(b.unreadable, "os", t.error());
	}
	if (b.os.id == "nixos" || fs.exists("etc/NIXOS")) {
		b.immutable = ImmutableKind::nixos;
		b.immutable_evidence = fs.exists("etc/NIXOS") ? "etc/NIXOS" : "etc/os-release";
	} else if (b.os.id == "steamos") {
		b.immutable = ImmutableKind::steamos;
		b.immutable_evidence = "etc/os-release";
	} else if (fs.exists("run/ostree-booted")) {
		b.immutable = ImmutableKind::ostree;
		b.immutable_evidence = "run/ostree-booted";
	}
}

void read_generator(io::RootFs &fs, BootConfig &b)
{
	std::string ev;
	if (!(ev = first_existing(fs, {"usr/bin/mkinitcpio", "usr/sbin/mkinitcpio"})).empty())
		b.initramfs = InitramfsGenerator::mkinitcpio;
	else if (!(ev = first_existing(fs, {"usr/bin/dracut", "usr/sbin/dracut", "sbin/dracut"})).empty())
		b.initramfs = InitramfsGenerator::dracut;
	else if (!(ev = first_existing(fs, {"usr/sbin/update-initramfs", "sbin/update-initramfs"})).empty())
		b.initramfs = InitramfsGenerator::initramfs_tools;
	b.initramfs_evidence = ev;
}

void add_assignments(io::RootFs &fs, BootConfig &b, const std::string &rel)
{
	auto t = fs.read_text(rel, {.max_bytes = 256 * 1024, .allow_empty = true});
	if (!t) {
		if (t.error().kind != io::FsErrorKind::not_found)
			note(b.unreadable, "cmdline_vars", t.error());
		return;
	}
	auto parsed = core::parse_shell_assignments(*t);
	for (const auto &a : parsed.assignments)
		if (a.name == "GRUB_CMDLINE_LINUX" || a.name == "GRUB_CMDLINE_LINUX_DEFAULT")
			b.cmdline_vars.push_back({rel, a.name, a.line, a.value, a.expands, a.appends_self});
	for (const auto &p : parsed.problems)
		b.cmdline_problems.push_back(rel + ": " + p);
}

void read_bootloader(io::RootFs &fs, BootConfig &b)
{
	std::string ev;
	if (fs.exists("etc/kernelstub/configuration")) {
		b.bootloader = BootloaderKind::kernelstub;
		b.bootloader_evidence = "etc/kernelstub/configuration";
	} else if (fs.exists("etc/default/grub") &&
		   !(ev = first_existing(fs,
					 {"usr/sbin/update-grub", "usr/sbin/grub-mkconfig", "usr/sbin/grub2-mkconfig",
					  "sbin/update-grub", "sbin/grub2-mkconfig", "usr/bin/grub-mkconfig"}))
			    .empty()) {
		b.bootloader = BootloaderKind::grub;
		b.bootloader_evidence = ev;
	} else if (!(ev = first_existing(fs, {"etc/kernel/cmdline", "boot/efi/loader/loader.conf",
					      "efi/loader/loader.conf", "boot/loader/loader.conf"}))
			    .empty()) {
		b.bootloader = BootloaderKind::systemd_boot;
		b.bootloader_evidence = ev;
	}
	if (b.bootloader == BootloaderKind::grub) {
		add_assignments(fs, b, "etc/default/grub");
		if (auto names = fs.list_dir("etc/default/grub.d"))
			for (const auto &n : *names)
				if (n.size() > 4 && n.compare(n.size() - 4, 4, ".cfg") == 0)
					add_assignments(fs, b, "etc/default/grub.d/" + n);
	} else if (auto t = fs.read_value("etc/kernel/cmdline")) {
		b.cmdline_vars.push_back({"etc/kernel/cmdline", "", 1, *t, false, false});
	}
}

void read_kernels(io::RootFs &fs, BootConfig &b, const std::string &running)
{
	auto names = fs.list_dir("lib/modules");
	if (!names) {
		if (names.error().kind != io::FsErrorKind::not_found)
			note(b.unreadable, "kernels", names.error());
		return;
	}
	std::vector<std::string> rels;
	for (const auto &n : *names)
		if (fs.exists("lib/modules/" + n + "/modules.dep") || fs.exists("lib/modules/" + n + "/kernel"))
			rels.push_back(n);
	std::sort(rels.begin(), rels.end(), release_less);
	b.dkms_versions = dkms_versions(fs);
	for (const auto &rel : rels) {
		InstalledKernel k;
		k.release = rel;
		k.headers = fs.exists("lib/modules/" + rel + "/build/Makefile");
		for (const auto &p : rdnafix_module_paths(fs, rel))
			k.rdnafix_modules.push_back(read_module_file(fs, p));
		std::string pkgbase;
		if (auto pb = fs.read_value("lib/modules/" + rel + "/pkgbase"))
			pkgbase = *pb;
		k.image = kernel_image(fs, rel, pkgbase);
		read_dkms_builds(fs, k, b.dkms_versions);
		for (const std::string &img :
		     {"boot/initrd.img-" + rel, "boot/initramfs-" + rel + ".img",
		      pkgbase.empty() ? std::string() : "boot/initramfs-" + pkgbase + ".img"}) {
			if (!img.empty() && fs.exists(img)) {
				k.initramfs_image = img;
				k.initramfs_mtime_ns = mtime(fs, img);
				break;
			}
		}
		read_amdgpu_module(fs, k);
		k.running = rel == running;
		b.kernels.push_back(std::move(k));
	}
	if (!b.kernels.empty())
		b.kernels.back().default_boot = true;
}

// True when the bytes of `needle` occur in `hay`.
bool contains_bytes(const std::string &hay, const std::string &needle)
{
	return !needle.empty() && hay.find(needle) != std::string::npos;
}

void read_security(io::RootFs &fs, BootConfig &b)
{
	// efivarfs: 4 bytes of attributes, then the value (1 byte for SecureBoot).
	auto sb = fs.read_bytes(fmt::format("sys/firmware/efi/efivars/SecureBoot-{}", kEfiGlobal), 64);
	if (sb && sb->size() >= 5)
		b.secure_boot = (*sb)[4] == 1;
	else if (!sb && sb.error().kind != io::FsErrorKind::not_found)
		note(b.unreadable, "secure_boot", sb.error());
	else if (sb || fs.exists("sys/firmware/efi"))
		b.secure_boot = false; // EFI without the variable: setup mode or not supported
	if (auto l = fs.read_value("sys/kernel/security/lockdown")) {
		auto open = l->find('['), close = l->find(']');
		if (open != std::string::npos && close != std::string::npos && close > open)
			b.lockdown = l->substr(open + 1, close - open - 1);
	}
	for (const char *p : {"var/lib/dkms/mok.pub", "var/lib/shim-signed/mok/MOK.der"})
		if (fs.exists(p)) {
			b.mok_key = p;
			break;
		}
	if (!b.mok_key.empty() && b.secure_boot.value_or(false)) {
		auto cert = fs.read_bytes(b.mok_key, 64 * 1024);
		auto list = fs.read_bytes("sys/firmware/efi/mok-variables/MokListRT", 1 << 20);
		if (!list)
			list = fs.read_bytes(fmt::format("sys/firmware/efi/efivars/MokListRT-{}", kEfiShim), 1 << 20);
		if (cert && list)
			b.mok_enrolled = contains_bytes(*list, *cert);
	}
	if (auto t = fs.read_value("proc/sys/kernel/tainted")) {
		if (auto v = core::parse_u64(*t))
			b.tainted = *v;
	}
	if (auto t = fs.read_value("sys/module/rdnafix/taint"))
		b.rdnafix_taint = *t;
	else if (fs.exists("sys/module/rdnafix"))
		b.rdnafix_taint = "";
	if (auto st = fs.read_text("proc/stat", {.max_bytes = 4 << 20})) {
		for (auto line : core::detail::split_lines(*st))
			if (line.substr(0, 6) == "btime ")
				if (auto v = core::parse_i64(core::trim(line.substr(6))))
					b.boot_time_s = *v;
	}
}

bool is_config_entry(const core::ModprobeEntry &e)
{
	auto ours = [](const std::string &m) { return m == "rdnafix" || m == "amdgpu" || m == "ttm" || m == "amdttm"; };
	if (e.kind == core::ModprobeKind::options)
		return ours(e.module);
	if (e.kind == core::ModprobeKind::softdep)
		return ours(e.module) || std::find(e.pre.begin(), e.pre.end(), "rdnafix") != e.pre.end();
	return false;
}

void newest_config(BootConfig &b)
{
	auto take = [&](const std::optional<std::int64_t> &t) {
		if (t && (!b.config_mtime_ns || *t > *b.config_mtime_ns))
			b.config_mtime_ns = t;
	};
	for (const auto &f : b.owned)
		if (f.exists)
			take(f.mtime_ns);
	for (const auto &f : b.modprobe)
		if (std::any_of(f.config.entries.begin(), f.config.entries.end(), is_config_entry))
			take(f.mtime_ns);
}

// The generator's lister of one image, and what it found.
InitramfsListing list_image(io::RootFs &fs, InitramfsGenerator g, const std::string &image)
{
	InitramfsListing l;
	const std::string lister(lister_for(g == InitramfsGenerator::none ? InitramfsGenerator::initramfs_tools : g));
	auto host = fs.host_path(image);
	if (!host) {
		l.error = host.error().reason();
		return l;
	}
	l.command = {lister, *host};
	auto r = io::run_command(l.command);
	if (!r.started) {
		l.error = r.start_error;
		return l;
	}
	if (r.timed_out || r.exit_code != 0) {
		std::string last;
		for (auto line : core::detail::split_lines(r.output))
			if (!core::trim(line).empty())
				last = std::string(core::trim(line));
		l.error = r.timed_out ? "timed out" : fmt::format("exit status {}: {}", r.exit_code, last);
		return l;
	}
	l.ok = true;
	for (auto line : core::detail::split_lines(r.output)) {
		l.amdgpu = l.amdgpu || line.find("/amdgpu.ko") != std::string_view::npos;
		l.rdnafix = l.rdnafix || line.find("/rdnafix.ko") != std::string_view::npos;
		l.conf = l.conf || line.find("etc/modprobe.d/rdnafix.conf") != std::string_view::npos;
	}
	return l;
}

// Lists the image of the running and of the default kernel when it is older
// than the configuration (the only case where its content is in doubt).
void list_stale_images(io::RootFs &fs, BootConfig &b)
{
	if (!b.config_mtime_ns || b.initramfs == InitramfsGenerator::none)
		return;
	for (auto &k : b.kernels)
		if ((k.running || k.default_boot) && !k.initramfs_image.empty() && k.initramfs_mtime_ns &&
		    *k.initramfs_mtime_ns < *b.config_mtime_ns)
			k.initramfs_listing = list_image(fs, b.initramfs, k.initramfs_image);
}

} // namespace

std::vector<std::string> rdnafix_module_paths(io::RootFs &fs, const std::string &release)
{
	std::vector<std::string> out;
	if (release.empty() || release.find('/') != std::string::npos || release == "." || release == "..")
		return out;
	for (const char *dir : {"updates/dkms", "updates", "extra", "kernel/extra", "misc"})
		for (const char *ext : {".ko", ".ko.xz", ".ko.zst", ".ko.gz"}) {
			std::string p = fmt::format("lib/modules/{}/{}/rdnafix{}", release, dir, ext);
			if (fs.exists(p))
				out.push_back(p);
		}
	return out;
}

void collect_boot(io::RootFs &fs, BootConfig &b, const std::string &running_release,
		  const std::vector<ModprobeFile> &modprobe)
{
	read_os(fs, b);
	read_generator(fs, b);
	read_bootloader(fs, b);
	read_kernels(fs, b, running_release);
	for (const auto &f : modprobe)
		b.modprobe.push_back({f.path, mtime(fs, f.path), f.config});
	for (std::string_view p : kOwnedFiles) {
		ConfigFile f;
		f.path = std::string(p);
		f.exists = fs.exists(f.path);
		if (f.exists) {
			f.mtime_ns = mtime(fs, f.path);
			auto t = fs.read_text(f.path, {.max_bytes = 256 * 1024, .allow_empty = true});
			if (t)
				f.content = *t;
			else
				note(b.unreadable, "owned", t.error());
		}
		b.owned.push_back(std::move(f));
	}
	newest_config(b);
	list_stale_images(fs, b);
	b.amdgpu_dkms = fs.exists("sys/module/amdttm") || !first_existing(fs, {"usr/src/amdgpu"}).empty();
	b.amdgpu_dkms_versions = amdgpu_dkms_versions(fs);
	read_security(fs, b);
}

} // namespace detail

} // namespace rdnafix::machine
