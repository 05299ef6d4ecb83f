// Checks: the library-load check of the software picture (RDNA-LIB-001..003):
// a missing library, two ROCm releases in one process, a needed symbol
// version the chosen library does not define (docs/library-load.md).
#include "checks.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace rdnafix::status {

namespace detail {

namespace {

namespace ll = software::libload;

std::string where(const ll::Object &o)
{
	switch (o.origin) {
	case ll::Origin::start:
		return "";
	case ll::Origin::rpath:
		return fmt::format(" (DT_RPATH {})", o.via);
	case ll::Origin::ld_library_path:
		return fmt::format(" (LD_LIBRARY_PATH entry {})", o.via);
	case ll::Origin::runpath:
		return fmt::format(" (DT_RUNPATH {})", o.via);
	case ll::Origin::ld_cache:
		return " (ld.so.cache)";
	case ll::Origin::default_dir:
		return " (default directory)";
	}
	return "";
}

std::string joined(const std::vector<std::string> &v, std::string_view sep)
{
	std::string s;
	for (const auto &x : v)
		s += (s.empty() ? "" : std::string(sep)) + x;
	return s;
}

// LD_LIBRARY_PATH without `entry`: the typed remedy (unset when nothing is left).
std::vector<Remedy> drop_entry(const ll::Report &r, const std::string &entry, std::string_view note)
{
	std::vector<std::string> keep;
	std::size_t start = 0;
	const std::string &list = r.ld_library_path;
	while (start <= list.size()) {
		const auto c = list.find(':', start);
		std::string item = list.substr(start, c == std::string::npos ? std::string::npos : c - start);
		if (!item.empty() && item != entry)
			keep.push_back(std::move(item));
		if (c == std::string::npos)
			break;
		start = c + 1;
	}
	if (keep.empty())
		return {UnsetEnv{"LD_LIBRARY_PATH", std::string(note)}};
	return {SetEnv{"LD_LIBRARY_PATH", joined(keep, ":"), std::string(note)}};
}

std::string drop_text(const std::vector<Remedy> &rem)
{
	if (const auto *u = std::get_if<UnsetEnv>(&rem.front()))
		return fmt::format("unset {}", u->name);
	const auto &s = std::get<SetEnv>(rem.front());
	return fmt::format("export {}={}", s.name, core::shell_word(s.value));
}

// "libamdhip64" of "libamdhip64.so.6".
std::string stem(const std::string &soname)
{
	const auto p = soname.find(".so");
	return p == std::string::npos ? soname : soname.substr(0, p);
}

void mixed(Ctx &c, const ll::Report &r, const ll::Tree &t)
{
	std::map<std::string, std::vector<std::size_t>> by_release;
	for (std::size_t i = 0; i < t.objects.size(); ++i)
		if (!t.objects[i].rocm_release.empty())
			by_release[t.objects[i].rocm_release].push_back(i);
	std::map<std::string, std::set<std::string>> by_stem; // the same library under two sonames
	for (const auto &o : t.objects)
		if (!o.elf.soname.empty())
			by_stem[stem(o.elf.soname)].insert(o.elf.soname);
	std::vector<std::string> twice;
	for (const auto &[s, names] : by_stem)
		if (names.size() > 1)
			twice.push_back(joined({names.begin(), names.end()}, " and "));
	if (by_release.size() < 2 && twice.empty())
		return;
	std::vector<std::string> parts;
	const ll::Object *via_env = nullptr;
	for (const auto &[rel, idx] : by_release) {
		const ll::Object &o = t.objects[idx.front()];
		parts.push_back(fmt::format("ROCm {}: {} {}, {}{}", rel, idx.size(),
					    idx.size() == 1 ? "library" : "libraries", o.path, where(o)));
		for (auto i : idx)
			if (t.objects[i].origin == ll::Origin::ld_library_path && !via_env)
				via_env = &t.objects[i];
	}
	std::string finding = fmt::format("loading {} would map {}", t.objects.front().path, joined(parts, "; "));
	if (!twice.empty())
		finding += (parts.empty() ? "" : "; ") + std::string("the same library twice: ") + joined(twice, ", ");
	std::vector<Remedy> rem{NoChange{}};
	std::string fix = "use one ROCm release for the whole process: point ROCM_PATH and LD_LIBRARY_PATH at one "
			  "/opt/rocm-X.Y.Z, or install the build of the program made for the ROCm you have";
	if (via_env) {
		rem = drop_entry(r, via_env->via, "two ROCm releases in one process");
		fix = fmt::format("{} (its entry {} brings in ROCm {}); {}", drop_text(rem), via_env->via,
				  via_env->rocm_release, fix);
	}
	c.add("RDNA-LIB-002", t.label, finding,
	      "HIP, rocBLAS, MIOpen and the kernel driver interface are built and tested as one release; mixed "
	      "releases fail with undefined symbols, 'hipErrorInvalidDeviceFunction' or crashes inside the runtime",
	      fix, rem);
}

} // namespace

void check_libload(Ctx &c)
{
	if (!c.a.libload || !c.a.libload->judged)
		return;
	const ll::Report &r = *c.a.libload;
	for (const auto &t : r.trees) {
		for (const auto &m : t.missing) {
			const ll::Object &by = t.objects[m.needed_by];
			c.add("RDNA-LIB-001", t.label,
			      fmt::format("{}, needed by {}, is not found (searched {})", m.name, by.path,
					  joined(m.searched, ", ")),
			      fmt::format(
				      "the loader refuses {}: 'error while loading shared libraries: {}: cannot open "
				      "shared object file'",
				      t.objects.front().path, m.name),
			      fmt::format("install the package that ships {}, or add the directory that holds it to "
					  "LD_LIBRARY_PATH",
					  m.name));
		}
		for (const auto &g : t.gaps) {
			const ll::Object &need = t.objects[g.needer], &prov = t.objects[g.provider];
			const std::string finding = fmt::format(
				"{} needs {} from {}, but the {} the loader would pick, {}{}, does not define "
				"{}",
				need.path, joined(g.versions, ", "), prov.name, prov.name, prov.path, where(prov),
				g.versions.size() == 1 ? "it" : "them");
			const std::string why =
				fmt::format("loading fails with \"{}: version `{}' not found (required by "
					    "{})\"",
					    prov.path, g.versions.front(), need.path);
			if (prov.origin == ll::Origin::ld_library_path) {
				auto rem = drop_entry(r, prov.via,
						      fmt::format("{} lacks {}", prov.path, g.versions.front()));
				c.add("RDNA-LIB-003", t.label, finding, why,
				      fmt::format("{} (the system's {} defines it), or upgrade the environment's {} "
						  "(conda: conda install -c conda-forge 'libstdcxx-ng>=12')",
						  drop_text(rem), prov.name, prov.name),
				      rem);
			} else {
				c.add("RDNA-LIB-003", t.label, finding, why,
				      fmt::format(
					      "install a {} that defines {} (a newer GCC runtime or glibc), or a build "
					      "of {} made for this system",
					      prov.name, g.versions.front(), need.name));
			}
		}
		mixed(c, r, t);
	}
}

} // namespace detail

} // namespace rdnafix::status
