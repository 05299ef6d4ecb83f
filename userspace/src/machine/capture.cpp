// capture_tree: the product's copy of a machine's state in the --root format
// (what tests/fixtures/capture.sh did in sh, now through io::RootFs).
#include "machine/capture.hpp"

#include "core/parse.hpp"
#include "core/parse_rdnafix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

namespace rdnafix::machine {

namespace {

using Kind = CapturedEntry::Kind;

std::string dirname(const std::string &p)
{
	const auto s = p.rfind('/');
	return s == std::string::npos ? std::string() : p.substr(0, s);
}

std::string basename(const std::string &p)
{
	const auto s = p.rfind('/');
	return s == std::string::npos ? p : p.substr(s + 1);
}

class Copier {
public:
	explicit Copier(io::RootFs &fs) : fs_(fs) {}
	Capture done() { return std::move(out_); }

	bool is_link(const std::string &rel) { return static_cast<bool>(fs_.read_link(rel)); }
	bool is_dir(const std::string &rel)
	{
		auto st = fs_.stat(rel);
		return st && st->type == core::FileType::directory;
	}
	std::vector<std::string> list(const std::string &rel)
	{
		auto l = fs_.list_dir(rel);
		return l ? *l : std::vector<std::string>{};
	}
	// The canonical root-relative path, or "".
	std::string canon(const std::string &rel)
	{
		auto c = fs_.canonical(rel);
		return c ? *c : std::string();
	}

	// One file, read whole (following links inside the root); quiet when
	// absent, named in `skipped` when present but unreadable.
	void file(const std::string &rel)
	{
		if (rel.empty() || out_.entries.count(rel) != 0)
			return;
		auto st = fs_.stat(rel);
		if (!st || st->type == core::FileType::directory)
			return;
		auto b = fs_.read_bytes(rel, kCaptureMaxFile);
		if (!b) {
			if (b.error().kind != io::FsErrorKind::not_found)
				out_.skipped.push_back(rel + ": " + b.error().reason());
			return;
		}
		out_.entries.emplace(rel, CapturedEntry{Kind::file, std::move(*b)});
		++out_.files_copied;
	}
	// An empty stand-in: only the name is read.
	void stand_in(const std::string &rel) { out_.entries.emplace(rel, CapturedEntry{Kind::file, ""}); }
	// A symlink with its own target text.
	void link(const std::string &rel)
	{
		if (auto t = fs_.read_link(rel))
			out_.entries.emplace(rel, CapturedEntry{Kind::symlink, *t});
	}
	void directory(const std::string &rel) { out_.entries.emplace(rel, CapturedEntry{Kind::directory, ""}); }
	// Every regular file directly in `rel`.
	void files_in(const std::string &rel)
	{
		for (const auto &n : list(rel)) {
			auto st = fs_.stat(rel + "/" + n);
			if (st && st->type == core::FileType::regular)
				file(rel + "/" + n);
		}
	}
	io::RootFs &fs() { return fs_; }
	Capture &out() { return out_; }

private:
	io::RootFs &fs_;
	Capture out_;
};

void copy_system(Copier &c)
{
	for (const char *d : {"lib", "lib64", "bin", "sbin"})
		c.link(d);
	for (const char *f : {"proc/cmdline", "proc/version", "proc/sys/kernel/osrelease", "proc/modules",
			      "proc/meminfo", "etc/group", "etc/passwd", "usr/share/libdrm/amdgpu.ids"})
		c.file(f);
	// where it runs: the user namespace, container markers, WSL and ROCm-on-WSL
	for (const char *f :
	     {"proc/self/uid_map", "proc/self/gid_map", "proc/sys/kernel/overflowuid", "proc/sys/kernel/overflowgid",
	      ".dockerenv", ".flatpak-info", "run/.containerenv", "run/.toolboxenv", "run/systemd/container",
	      "proc/sys/fs/binfmt_misc/WSLInterop", "proc/sys/fs/binfmt_misc/WSLInterop-late", "opt/rocm/.info/version",
	      "var/lib/dpkg/info/hsa-runtime-rocr4wsl-amdgpu.list"})
		c.file(f);
	// libraries become empty stand-ins: only their names are read
	const std::pair<const char *, const char *> libs[] = {
		{"usr/lib/wsl/lib", ""},
		{"opt/rocm/lib", "librocdxg.so"},
		{"opt/rocm/lib", "libhsa-runtime64.so"},
		{"usr/lib/x86_64-linux-gnu", "librocdxg.so"},
		{"usr/lib/x86_64-linux-gnu", "libhsa-runtime64.so"},
	};
	for (const auto &[dir, prefix] : libs)
		for (const auto &n : c.list(dir))
			if (std::string_view(n).starts_with(prefix) && c.fs().exists(std::string(dir) + "/" + n))
				c.stand_in(std::string(dir) + "/" + n);
	if (c.is_link("etc/os-release")) {
		c.link("etc/os-release");
		c.file(c.canon("etc/os-release"));
	} else {
		c.file("etc/os-release");
	}
	c.file("var/lib/rdnafix/history.db");
	c.file("var/lib/rdnafix/validate/history.db");
	for (const char *d : {"etc/modprobe.d", "lib/modprobe.d", "usr/lib/modprobe.d", "run/modprobe.d"}) {
		const std::string dir = d;
		if (!c.is_dir(dir) || c.is_link(dir.substr(0, dir.find('/'))))
			continue;
		for (const auto &n : c.list(dir))
			if (n.size() > 5 && n.ends_with(".conf"))
				c.file(dir + "/" + n);
	}
}

// Of a depmod list, only the lines that name amdgpu or rdnafix (what status reads).
std::string depmod_lines(const std::string &text)
{
	std::string out;
	std::size_t at = 0;
	while (at < text.size()) {
		std::size_t nl = text.find('\n', at);
		if (nl == std::string::npos)
			nl = text.size();
		const std::string line = text.substr(at, nl - at);
		const std::string name = core::module_name_of(line.substr(0, line.find(':')));
		if (name == "amdgpu" || name == "rdnafix")
			out += line + "\n";
		at = nl + 1;
	}
	return out;
}

// Which amdgpu the kernel uses (machine/collect_modules.cpp): the amdgpu and
// rdnafix lines of modules.dep and modules.builtin, empty stand-ins of every
// amdgpu.ko* where depmod looks, and amdgpu-dkms's DKMS records.
void copy_amdgpu_module(Copier &c, const std::string &release)
{
	const std::string dir = "lib/modules/" + release;
	for (const char *list : {"modules.dep", "modules.builtin"}) {
		auto t = c.fs().read_text(dir + "/" + list, {.max_bytes = 16u << 20, .allow_empty = true});
		if (!t)
			continue;
		if (auto kept = depmod_lines(*t); !kept.empty())
			c.out().entries.emplace(dir + "/" + list, CapturedEntry{CapturedEntry::Kind::file, kept});
	}
	for (const char *sub : {"updates/dkms", "updates", "extra", "kernel/drivers/gpu/drm/amd/amdgpu"})
		for (const auto &n : c.list(dir + "/" + sub))
			if (core::module_name_of(n) == "amdgpu")
				c.stand_in(dir + "/" + sub + "/" + n);
	const std::string dkms = "var/lib/dkms/amdgpu";
	for (const auto &v : c.list(dkms)) {
		if (v.starts_with("kernel-") || !c.is_dir(dkms + "/" + v))
			continue;
		bool any = false;
		for (const auto &k : c.list(dkms + "/" + v))
			for (const auto &a : c.list(dkms + "/" + v + "/" + k))
				for (const auto &n : c.list(dkms + "/" + v + "/" + k + "/" + a + "/module"))
					if (core::module_name_of(n) == "amdgpu") {
						c.stand_in(dkms + "/" + v + "/" + k + "/" + a + "/module/" + n);
						any = true;
					}
		if (!any)
			c.directory(dkms + "/" + v);
	}
}

void copy_modules(Copier &c, const std::string &release)
{
	for (const char *m :
	     {"amdgpu", "amdttm", "ttm", "amdkfd", "rdnafix", "radeon", "i915", "xe", "nouveau", "nvidia"}) {
		const std::string d = std::string("sys/module/") + m;
		if (!c.is_dir(d))
			continue;
		for (const char *f : {"initstate", "version", "taint"})
			c.file(d + "/" + f);
		c.files_in(d + "/parameters");
	}
	// rdnafix sysfs ABI (docs/sysfs-abi.md), files only
	if (c.is_dir("sys/kernel/rdnafix")) {
		c.files_in("sys/kernel/rdnafix");
		c.files_in("sys/kernel/rdnafix/hooks");
		for (const auto &n : c.list("sys/kernel/rdnafix/devices"))
			c.files_in("sys/kernel/rdnafix/devices/" + n);
	}
	// the installed rdnafix.ko (an empty stand-in: only its presence matters)
	if (release.empty() || release.find('/') != std::string::npos)
		return;
	for (const char *sub : {"updates/dkms", "extra"}) {
		const std::string dir = "lib/modules/" + release + "/" + sub;
		for (const auto &n : c.list(dir))
			if (n.starts_with("rdnafix.ko"))
				c.stand_in(dir + "/" + n);
	}
	copy_amdgpu_module(c, release);
}

void copy_kfd(Copier &c)
{
	c.link("sys/class/kfd/kfd");
	std::string t = c.canon("sys/class/kfd/kfd/topology");
	if (t.empty())
		return;
	c.file(dirname(t) + "/dev");
	c.file(t + "/generation_id");
	c.file(t + "/system_properties");
	for (const auto &n : c.list(t + "/nodes")) {
		const std::string node = t + "/nodes/" + n;
		for (const char *f : {"properties", "name", "gpu_id"})
			c.file(node + "/" + f);
		for (const char *sub : {"mem_banks", "io_links", "p2p_links"})
			for (const auto &b : c.list(node + "/" + sub))
				c.file(node + "/" + sub + "/" + b + "/properties");
	}
}

void copy_pci_device(Copier &c, const std::string &dev)
{
	for (const char *a :
	     {"vendor", "device", "subsystem_vendor", "subsystem_device", "revision", "class", "boot_vga", "numa_node",
	      "mem_info_vram_total", "mem_info_vis_vram_total", "mem_info_gtt_total", "mem_info_vram_used",
	      "mem_info_gtt_used", "unique_id", "product_name", "current_link_speed", "current_link_width"})
		c.file(dev + "/" + a);
	c.link(dev + "/driver");
	if (const std::string drv = c.canon(dev + "/driver"); !drv.empty()) {
		c.directory(drv);
		c.link(drv + "/module");
		c.link(drv + "/" + basename(dev));
	}
	c.link(dev + "/subsystem");
	// ip_discovery: the GC block only (named link GC -> <hw_id>)
	for (const auto &die : c.list(dev + "/ip_discovery/die")) {
		const std::string d = dev + "/ip_discovery/die/" + die;
		c.link(d + "/GC");
		const std::string gc = c.canon(d + "/GC");
		if (gc.empty())
			continue;
		for (const auto &i : c.list(gc))
			for (const char *a : {"major", "minor", "revision", "hw_id", "num_instance", "harvest"})
				c.file(gc + "/" + i + "/" + a);
	}
	// hardware facts (docs/hwfacts.md): firmware versions, the IOMMU group and its type
	c.files_in(dev + "/fw_version");
	c.link(dev + "/iommu_group");
	if (const std::string grp = c.canon(dev + "/iommu_group"); !grp.empty())
		c.file(grp + "/type");
	const std::string bdf = basename(dev);
	if (bdf.size() > 4 && bdf[4] == ':')
		c.link("sys/bus/pci/devices/" + bdf);
}

void copy_drm(Copier &c)
{
	std::vector<std::string> seen;
	for (const auto &name : c.list("sys/class/drm")) {
		if (!(name.starts_with("card") || name.starts_with("renderD")) || name.find('-') != std::string::npos)
			continue;
		const std::string cls = "sys/class/drm/" + name;
		if (!c.is_link(cls))
			continue;
		c.link(cls);
		const std::string node = c.canon(cls);
		if (node.empty())
			continue;
		c.file(node + "/dev");
		c.file(node + "/uevent");
		c.link(node + "/device");
		c.link(node + "/subsystem");
		for (const auto &s : c.list(node)) // connectors and their status
			if (s.starts_with(name + "-") && c.is_dir(node + "/" + s)) {
				c.file(node + "/" + s + "/status");
				c.link("sys/class/drm/" + s);
			}
		const std::string dev = c.canon(node + "/device");
		if (dev.empty() || std::find(seen.begin(), seen.end(), dev) != seen.end())
			continue;
		seen.push_back(dev);
		copy_pci_device(c, dev);
	}
}

void copy_hwfacts(Copier &c, const std::string &release)
{
	for (const auto &u : c.list("sys/class/iommu")) {
		const std::string rel = "sys/class/iommu/" + u;
		if (!c.is_link(rel))
			continue;
		c.link(rel);
		if (const std::string t = c.canon(rel); !t.empty())
			c.directory(t);
	}
	if (!release.empty() && release.find('/') == std::string::npos)
		c.file("boot/config-" + release);
	c.file("proc/config.gz");
	c.file("var/log/rdnafix-drm-version");
	c.file("var/log/rdnafix-dmesg");
}

// Device nodes: empty regular files plus the dev/.devnodes manifest.  A
// captured source keeps its manifest and stand-ins; live nodes get a line
// each (owner and group named by the root's etc/passwd and etc/group).
void copy_devnodes(Copier &c)
{
	std::string manifest;
	if (auto m = c.fs().read_bytes("dev/.devnodes")) {
		manifest = *m;
		for (const auto &e : c.fs().devnode_manifest().entries)
			if (e.path.starts_with("dev/"))
				c.stand_in(e.path);
	}
	std::optional<core::PasswdFile> pw;
	std::optional<core::GroupFile> gr;
	if (auto t = c.fs().read_text("etc/passwd", {.max_bytes = 4 << 20, .allow_empty = true}))
		pw = core::parse_passwd_file(*t);
	if (auto t = c.fs().read_text("etc/group", {.max_bytes = 4 << 20, .allow_empty = true}))
		gr = core::parse_group_file(*t);
	std::vector<std::string> nodes = {"dev/kfd", "dev/dxg"};
	for (const auto &n : c.list("dev/dri"))
		nodes.push_back("dev/dri/" + n);
	for (const auto &n : nodes) {
		auto st = c.fs().stat(n);
		if (!st || st->from_manifest ||
		    (st->type != core::FileType::char_device && st->type != core::FileType::block_device))
			continue;
		const core::PasswdEntry *u = pw && st->uid ? pw->by_uid(*st->uid) : nullptr;
		const core::GroupEntry *g = gr && st->gid ? gr->by_gid(*st->gid) : nullptr;
		c.stand_in(n);
		manifest += fmt::format("{} {} {}:{} {:04o} {} {}\n", n,
					st->type == core::FileType::block_device ? 'b' : 'c', st->dev_major,
					st->dev_minor, st->mode, u ? u->name : std::to_string(st->uid.value_or(0)),
					g ? g->name : std::to_string(st->gid.value_or(0)));
	}
	c.out().entries.insert_or_assign("dev/.devnodes", CapturedEntry{Kind::file, manifest});
}

} // namespace

Capture capture_tree(io::RootFs &fs)
{
	Copier c(fs);
	copy_system(c);
	std::string release;
	if (auto r = fs.read_value("proc/sys/kernel/osrelease"))
		release = *r;
	copy_modules(c, release);
	copy_kfd(c);
	copy_drm(c);
	copy_hwfacts(c, release);
	copy_devnodes(c);
	return c.done();
}

} // namespace rdnafix::machine
