// The library-load check (libload.hpp): ld.so's search, read from files.
#include "software/libload.hpp"

#include "core/ldcache.hpp"
#include "io/file_reader.hpp"
#include "io/rootfs.hpp"

#include <algorithm>
#include <deque>
#include <map>

namespace rdnafix::software::libload {

namespace {

namespace ed = core::elfdyn;

// ld.so's default directories on a multiarch (Debian/Ubuntu) or lib64 x86-64
// system, after the cache (ld.so(8); the same list as the stack's).
const std::vector<std::string> &default_dirs()
{
	static const std::vector<std::string> d{
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"};
	return d;
}

std::string rel_of(const std::string &abs)
{
	std::size_t i = 0;
	while (i < abs.size() && abs[i] == '/')
		++i;
	return abs.substr(i);
}

std::string dir_of(const std::string &abs)
{
	const auto s = abs.rfind('/');
	return s == std::string::npos || s == 0 ? "/" : abs.substr(0, s);
}

std::string base_of(const std::string &p)
{
	const auto s = p.rfind('/');
	return s == std::string::npos ? p : p.substr(s + 1);
}

std::vector<std::string> split_path(const std::string &list)
{
	std::vector<std::string> out;
	std::size_t start = 0;
	while (start <= list.size()) {
		const auto c = list.find(':', start);
		const std::string item = list.substr(start, c == std::string::npos ? std::string::npos : c - start);
		if (!item.empty())
			out.push_back(item);
		if (c == std::string::npos)
			break;
		start = c + 1;
	}
	return out;
}

// $ORIGIN / ${ORIGIN} expanded; other tokens ($LIB, $PLATFORM) and relative
// entries are not followed (an empty result).
std::string expand(const std::string &entry, const std::string &origin)
{
	std::string out = entry;
	for (const std::string tok : {"${ORIGIN}", "$ORIGIN"}) {
		for (auto p = out.find(tok); p != std::string::npos; p = out.find(tok, p + origin.size()))
			out.replace(p, tok.size(), origin);
	}
	if (out.find('$') != std::string::npos || !out.starts_with('/'))
		return "";
	return out;
}

std::string release_of(const std::string &real)
{
	const std::string r = rel_of(real);
	if (!r.starts_with("opt/rocm-"))
		return "";
	const auto end = r.find('/', 9);
	return r.substr(9, end == std::string::npos ? std::string::npos : end - 9);
}

class Resolver {
public:
	Resolver(io::RootFs &fs, const Report &rep, const std::map<std::string, std::string> &cache)
	    : fs_(fs), rep_(rep), cache_(cache)
	{
	}

	// The ELF at `abs` if it is a regular file of this process's class and
	// machine; an unreadable one is recorded in `t`.
	std::optional<ed::Info> load(const std::string &abs, Tree &t, std::uint16_t machine)
	{
		const std::string rel = rel_of(abs);
		auto st = fs_.stat(rel);
		if (!st || st->type != io::FileType::regular)
			return std::nullopt;
		auto opened = fs_.open_read(rel);
		if (!opened) {
			t.unreadable.push_back({"library", abs, opened.error().detail});
			return std::nullopt;
		}
		io::FileReader r = std::move(opened).value();
		ed::ReadAt read = [&r](std::uint64_t off, std::uint64_t len) -> std::optional<std::string> {
			auto b = r.read_at(off, len);
			if (!b)
				return std::nullopt;
			return std::move(b).value();
		};
		auto info = ed::parse(read, r.size());
		if (!info) {
			t.unreadable.push_back({"library", abs, info.error().message});
			return std::nullopt;
		}
		if (info->elf_class != 2 || (machine != 0 && info->machine != machine))
			return std::nullopt; // the loader skips it and searches on
		return std::move(info).value();
	}

	// ld.so's order for a name without '/', needed by t.objects[from].
	bool find(Tree &t, std::size_t from, const std::string &name, Object &out, std::vector<std::string> &searched)
	{
		const std::uint16_t machine = t.objects.empty() ? 0 : t.objects[0].elf.machine;
		auto try_dir = [&](const std::string &dir, Origin o, const std::string &via) {
			searched.push_back(dir);
			const std::string abs = (dir == "/" ? "" : dir) + "/" + name;
			if (auto info = load(abs, t, machine)) {
				out.path = abs;
				out.origin = o;
				out.via = via;
				out.elf = std::move(*info);
				return true;
			}
			return false;
		};
		const Object &needer = t.objects[from];
		if (needer.elf.runpath.empty())
			for (std::size_t i = from; i != kNone; i = t.objects[i].parent) {
				const Object &o = t.objects[i];
				if (!o.elf.runpath.empty())
					break;
				for (const auto &e : split_path(o.elf.rpath))
					if (auto d = expand(e, dir_of(o.path));
					    !d.empty() && try_dir(d, Origin::rpath, e))
						return true;
			}
		for (const auto &e : split_path(rep_.ld_library_path))
			if (auto d = expand(e, dir_of(needer.path));
			    !d.empty() && try_dir(d, Origin::ld_library_path, e))
				return true;
		for (const auto &e : split_path(needer.elf.runpath))
			if (auto d = expand(e, dir_of(needer.path)); !d.empty() && try_dir(d, Origin::runpath, e))
				return true;
		if (auto it = cache_.find(name); it != cache_.end()) {
			searched.push_back("/etc/ld.so.cache");
			if (auto info = load(it->second, t, machine)) {
				out.path = it->second;
				out.origin = Origin::ld_cache;
				out.elf = std::move(*info);
				return true;
			}
		}
		for (const auto &d : default_dirs())
			if (try_dir(d, Origin::default_dir, ""))
				return true;
		return false;
	}

	void finish(Object &o)
	{
		auto canon = fs_.canonical(rel_of(o.path));
		o.real = canon ? "/" + *canon : o.path;
		o.rocm_release = release_of(o.real);
	}

	Tree walk(const std::string &label, const std::string &start, const Limits &lim)
	{
		Tree t;
		t.label = label;
		Object root;
		root.name = base_of(start);
		root.path = start;
		auto info = load(start, t, 0);
		if (!info)
			return t;
		root.elf = std::move(*info);
		finish(root);
		t.objects.push_back(std::move(root));
		std::deque<std::size_t> queue{0};
		while (!queue.empty()) {
			const std::size_t i = queue.front();
			queue.pop_front();
			const std::vector<std::string> needed = t.objects[i].elf.needed;
			for (const auto &name : needed) {
				if (loaded(t, name) != kNone)
					continue;
				if (t.objects.size() >= lim.max_objects) {
					t.truncated = true;
					return t;
				}
				Object o;
				o.name = name;
				o.parent = i;
				std::vector<std::string> searched;
				bool ok = false;
				if (name.find('/') != std::string::npos) {
					searched.push_back(name);
					if (name.starts_with('/'))
						if (auto got = load(name, t, t.objects[0].elf.machine)) {
							o.path = name;
							o.elf = std::move(*got);
							ok = true;
						}
				} else {
					ok = find(t, i, name, o, searched);
				}
				if (!ok) {
					t.missing.push_back({name, i, std::move(searched)});
					continue;
				}
				finish(o);
				t.objects.push_back(std::move(o));
				queue.push_back(t.objects.size() - 1);
			}
		}
		gaps(t);
		return t;
	}

private:
	static std::size_t loaded(const Tree &t, const std::string &name)
	{
		for (std::size_t i = 0; i < t.objects.size(); ++i)
			if (t.objects[i].name == name || t.objects[i].elf.soname == name)
				return i;
		return kNone;
	}

	static void gaps(Tree &t)
	{
		for (std::size_t i = 0; i < t.objects.size(); ++i)
			for (const auto &vn : t.objects[i].elf.version_needs) {
				const std::size_t p = loaded(t, vn.file);
				if (p == kNone)
					continue; // missing: reported as such
				const auto &defs = t.objects[p].elf.version_defs;
				VersionGap g{i, p, {}};
				for (const auto &v : vn.versions)
					if (std::find(defs.begin(), defs.end(), v) == defs.end())
						g.versions.push_back(v);
				if (!g.versions.empty())
					t.gaps.push_back(std::move(g));
			}
	}

	io::RootFs &fs_;
	const Report &rep_;
	const std::map<std::string, std::string> &cache_;
};

} // namespace

Report check(io::RootFs &fs, const machine::Snapshot &snap, const coverage::Report *cov, const Limits &lim)
{
	Report rep;
	if (auto it = snap.environment.locate.find("LD_LIBRARY_PATH"); it != snap.environment.locate.end()) {
		rep.ld_library_path = it->second;
		rep.ld_library_path_set = true;
	}
	std::map<std::string, std::string> cache; // soname -> path, the first x86-64 entry (the loader's pick)
	if (auto bytes = fs.read_bytes("etc/ld.so.cache", lim.max_cache_bytes)) {
		if (auto entries = core::ldcache::parse(*bytes)) {
			for (const auto &e : *entries)
				if (e.flags == core::ldcache::kFlagX86_64Libc6)
					cache.emplace(e.soname, e.path);
		} else {
			rep.cache_problem = entries.error().message;
		}
	} else if (bytes.error().kind != io::FsErrorKind::not_found) {
		rep.cache_problem = "/etc/ld.so.cache: " + bytes.error().detail;
	}
	Resolver r(fs, rep, cache);
	// The HIP runtime a program that asks for a bare soname would get.
	Tree probe;
	probe.objects.push_back({});
	probe.objects[0].elf.machine = core::elfdyn::kMachineX86_64;
	{
		Object libc;
		std::vector<std::string> searched;
		if (!r.find(probe, 0, "libc.so.6", libc, searched)) {
			rep.judged = false;
			rep.not_judged = "no libc.so.6 where the loader looks (a partial tree)";
			return rep;
		}
	}
	std::string hip;
	for (const char *so : {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"}) {
		Object o;
		std::vector<std::string> searched;
		if (r.find(probe, 0, so, o, searched)) {
			hip = o.path;
			break;
		}
	}
	if (hip.empty()) {
		std::vector<std::string> dirs;
		if (auto it = snap.environment.locate.find("ROCM_PATH");
		    it != snap.environment.locate.end() && it->second.starts_with('/'))
			dirs.push_back(it->second + "/lib");
		dirs.push_back("/opt/rocm/lib");
		for (const auto &d : dirs)
			if (auto st = fs.stat(rel_of(d + "/libamdhip64.so")); st && st->type == io::FileType::regular) {
				hip = d + "/libamdhip64.so";
				break;
			}
	}
	if (!hip.empty())
		rep.trees.push_back(r.walk("HIP runtime", hip, lim));
	if (cov)
		for (const auto &in : cov->installs)
			for (const auto &lib : in.libraries) {
				if (lib.kind != coverage::LibraryKind::fatbin ||
				    !(lib.name == "libtorch_hip.so" || lib.name.starts_with("libggml-hip")))
					continue;
				if (rep.trees.size() >= lim.max_trees)
					return rep;
				rep.trees.push_back(r.walk(in.label + " " + lib.name, "/" + rel_of(lib.path), lim));
			}
	return rep;
}

} // namespace rdnafix::software::libload
