// Reader: what is built for each installed kernel.  The rdnafix module files
// (appended signature and .modinfo, one read of each file, decompressed first
// when .ko.xz/.zst/.gz), the kernel image, and DKMS's records of rdnafix
// (var/lib/dkms/rdnafix/<version>/<kernel>/<arch>/, the make.log of a build).
// Every name comes from a directory listing of the root and every path is
// read through RootFs, so a hostile name or symlink stays inside the root.
#include "machine/collect_internal.hpp"

#include "core/parse_modinfo.hpp"
#include "core/parse_modsig.hpp"
#include "core/parse_rdnafix.hpp"
#include "core/text_util.hpp"
#include "io/decompress.hpp"
#include "io/file_reader.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::machine::detail {

namespace {

constexpr std::string_view kDkmsTree = "var/lib/dkms/rdnafix";
constexpr std::string_view kAmdgpuDkmsTree = "var/lib/dkms/amdgpu";
constexpr std::uint64_t kMaxDepList = 16ull << 20;
constexpr const char *kKoExts[] = {".ko", ".ko.xz", ".ko.zst", ".ko.gz"};
constexpr std::uint64_t kMaxModule = 256ull << 20;
constexpr std::uint64_t kLogTailBytes = 64 * 1024;

// A name from a listing that may be joined into a path: not ".", "..", "".
bool plain_name(std::string_view n)
{
	return !n.empty() && n != "." && n != ".." && n.find('/') == std::string_view::npos;
}

std::optional<std::int64_t> mtime_of(io::RootFs &fs, const std::string &rel)
{
	auto st = fs.stat(rel);
	if (!st || st->from_manifest || st->mtime_ns == 0)
		return std::nullopt;
	return st->mtime_ns;
}

bool is_dir(io::RootFs &fs, const std::string &rel)
{
	auto st = fs.stat(rel);
	return st && st->type == io::FileType::directory;
}

// The first line of a make.log: "DKMS make.log for rdnafix-<version> for
// kernel <kernel> (<arch>)".  False when it is not one.
bool log_header(std::string_view line, std::string &version, std::string &kernel)
{
	constexpr std::string_view head = "DKMS make.log for rdnafix-", mid = " for kernel ";
	if (line.substr(0, head.size()) != head)
		return false;
	line.remove_prefix(head.size());
	auto m = line.find(mid);
	if (m == std::string_view::npos)
		return false;
	version = std::string(line.substr(0, m));
	line.remove_prefix(m + mid.size());
	kernel = std::string(line.substr(0, line.find(' ')));
	return true;
}

// The last kDkmsLogTailLines lines of a log, from its last kLogTailBytes.
void read_tail(io::RootFs &fs, DkmsLog &log)
{
	auto opened = fs.open_read(log.path);
	if (!opened) {
		log.error = opened.error().reason();
		return;
	}
	io::FileReader f = std::move(opened).value();
	const std::uint64_t size = f.size();
	const std::uint64_t from = size > kLogTailBytes ? size - kLogTailBytes : 0;
	auto bytes = f.read_at(from, size - from);
	if (!bytes) {
		log.error = bytes.error().reason();
		return;
	}
	std::vector<std::string_view> lines;
	for (auto l : core::detail::split_lines(*bytes))
		lines.push_back(l);
	if (from > 0 && !lines.empty())
		lines.erase(lines.begin()); // cut in the middle
	while (!lines.empty() && core::trim(lines.back()).empty())
		lines.pop_back();
	const std::size_t first = lines.size() > kDkmsLogTailLines ? lines.size() - kDkmsLogTailLines : 0;
	for (std::size_t i = first; i < lines.size(); ++i)
		log.tail.emplace_back(lines[i]);
}

// The make.log at `path` when its first line names `release`.
std::optional<DkmsLog> log_for(io::RootFs &fs, const std::string &path, const std::string &release, bool failed)
{
	auto opened = fs.open_read(path);
	if (!opened)
		return std::nullopt;
	io::FileReader f = std::move(opened).value();
	auto head = f.read_at(0, 512);
	if (!head)
		return std::nullopt;
	std::string version, kernel;
	if (!log_header(head->substr(0, head->find('\n')), version, kernel) || kernel != release)
		return std::nullopt;
	DkmsLog log;
	log.path = path;
	log.version = version;
	log.failed = failed;
	log.mtime_ns = mtime_of(fs, path);
	return log;
}

} // namespace

ModuleFile read_module_file(io::RootFs &fs, const std::string &path)
{
	ModuleFile m{path, SignatureState::unknown, {}, {}, {}, {}, {}};
	auto bytes = fs.read_bytes(path, kMaxModule);
	if (!bytes) {
		m.signature_reason = m.modinfo_error = bytes.error().reason();
		return m;
	}
	// The whole module, decompressed: .modinfo is anywhere in it, the signature at its end.
	auto plain = io::decompress_tail(*bytes, kMaxModule, kMaxModule);
	if (!plain) {
		m.signature_reason = m.modinfo_error = plain.error().message;
		return m;
	}
	if (auto sig = core::parse_module_signature(plain->tail, plain->size)) {
		m.signature = sig->present ? SignatureState::signed_module : SignatureState::unsigned_module;
		m.signer = sig->signer;
	} else {
		m.signature_reason = sig.error().message;
	}
	if (auto info = core::parse_module_info(plain->tail)) {
		m.version = info->version;
		m.built_for = info->release();
	} else {
		m.modinfo_error = info.error().message;
	}
	return m;
}

std::string kernel_image(io::RootFs &fs, const std::string &release, const std::string &pkgbase)
{
	for (const std::string &img : {"boot/vmlinuz-" + release, "lib/modules/" + release + "/vmlinuz",
				       pkgbase.empty() ? std::string() : "boot/vmlinuz-" + pkgbase})
		if (!img.empty() && fs.exists(img))
			return img;
	return {};
}

void read_amdgpu_module(io::RootFs &fs, InstalledKernel &k)
{
	if (!plain_name(k.release))
		return;
	const std::string dir = "lib/modules/" + k.release;
	for (const char *ext : kKoExts)
		if (std::string p = fmt::format("{}/updates/dkms/amdgpu{}", dir, ext); fs.exists(p))
			k.amdgpu_dkms_modules.push_back(p);
	if (auto b = fs.read_text(dir + "/modules.builtin", {.max_bytes = kMaxDepList, .allow_empty = true}))
		k.amdgpu_builtin = core::modules_builtin_has(*b, "amdgpu");
	// depmod's answer: the one line of modules.dep that names amdgpu.
	if (auto dep = fs.read_text(dir + "/modules.dep", {.max_bytes = kMaxDepList, .allow_empty = true})) {
		if (auto p = core::modules_dep_path(*dep, "amdgpu"); !p.empty()) {
			k.amdgpu_module = p.front() == '/' ? p.substr(1) : dir + "/" + p;
			return;
		}
		if (!dep->empty())
			return; // depmod ran and found none
	}
	// No modules.dep (yet): depmod's default search order (depmod.d(5): updates, then built-in).
	for (const char *sub : {"updates/dkms", "updates", "extra", "kernel/drivers/gpu/drm/amd/amdgpu"})
		for (const char *ext : kKoExts)
			if (std::string p = fmt::format("{}/{}/amdgpu{}", dir, sub, ext); fs.exists(p)) {
				k.amdgpu_module = p;
				return;
			}
}

std::vector<std::string> amdgpu_dkms_versions(io::RootFs &fs)
{
	std::vector<std::string> out;
	auto names = fs.list_dir(kAmdgpuDkmsTree);
	if (!names)
		return out;
	for (const auto &n : *names)
		if (plain_name(n) && n.rfind("kernel-", 0) != 0 && is_dir(fs, fmt::format("{}/{}", kAmdgpuDkmsTree, n)))
			out.push_back(n);
	std::sort(out.begin(), out.end());
	return out;
}

std::vector<std::string> dkms_versions(io::RootFs &fs)
{
	std::vector<std::string> out;
	auto names = fs.list_dir(kDkmsTree);
	if (!names)
		return out;
	// Besides the version directories dkms keeps "kernel-<kernel>-<arch>" links (installed builds).
	for (const auto &n : *names)
		if (plain_name(n) && n.rfind("kernel-", 0) != 0 && is_dir(fs, fmt::format("{}/{}", kDkmsTree, n)))
			out.push_back(n);
	return out;
}

void read_dkms_builds(io::RootFs &fs, InstalledKernel &k, const std::vector<std::string> &versions)
{
	if (!plain_name(k.release))
		return;
	std::optional<DkmsLog> newest;
	auto take = [&](std::optional<DkmsLog> log) {
		if (log && (!newest || log->mtime_ns.value_or(0) > newest->mtime_ns.value_or(0)))
			newest = std::move(log);
	};
	for (const auto &v : versions) {
		const std::string vdir = fmt::format("{}/{}", kDkmsTree, v);
		take(log_for(fs, vdir + "/build/make.log", k.release, true));
		auto arches = fs.list_dir(vdir + "/" + k.release);
		if (!arches)
			continue;
		for (const auto &a : *arches) {
			if (!plain_name(a) || !is_dir(fs, fmt::format("{}/{}/{}", vdir, k.release, a)))
				continue;
			DkmsBuild b;
			b.version = v;
			b.arch = a;
			b.dir = fmt::format("{}/{}/{}", vdir, k.release, a);
			if (auto mods = fs.list_dir(b.dir + "/module"))
				b.module = std::any_of(mods->begin(), mods->end(), [](const std::string &n) {
					return n.rfind("rdnafix.ko", 0) == 0;
				});
			b.installed = fs.exists(fmt::format("{}/kernel-{}-{}", kDkmsTree, k.release, a));
			take(log_for(fs, b.dir + "/log/make.log", k.release, false));
			k.dkms.push_back(std::move(b));
		}
	}
	if (newest && k.rdnafix_modules.empty()) {
		read_tail(fs, *newest);
		k.dkms_log = std::move(newest);
	}
}

} // namespace rdnafix::machine::detail
