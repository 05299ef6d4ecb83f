// System ROCm (ROCM_PATH, /opt/rocm*), the distribution's multiarch ROCm
// libraries (Debian usr/lib/x86_64-linux-gnu, Fedora usr/lib64), the
// consumers (the GGML HIP backend of llama.cpp / ollama), and PATH arguments.
#include "software/find.hpp"

#include "software/libdirs.hpp"

#include "io/rootfs.hpp"

#include <algorithm>

namespace rdnafix::coverage::detail {

namespace {

// "6.4.1-120" -> "6.4.1"; the first line of .info/version.
std::string rocm_version(io::RootFs &fs, const std::string &dir)
{
	auto v = fs.read_value(join(dir, ".info/version"), {.max_bytes = 4096});
	if (v) {
		std::string s = v->substr(0, v->find('\n'));
		auto dash = s.find('-');
		s = s.substr(0, dash);
		if (!s.empty() && s.size() < 40 &&
		    std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; }))
			return s;
	}
	std::string base = basename_of(dir);
	if (base.starts_with("rocm-") && base.size() < 40)
		return base.substr(5);
	return "";
}

void rocm_tree(io::RootFs &fs, const std::string &dir, FoundBy by, const std::string &via, Found &f)
{
	f.searched.push_back(dir);
	auto canon = fs.canonical(dir);
	if (!canon)
		return;
	if (f.seen[*canon + "/"])
		return;
	f.seen[*canon + "/"] = true;
	Install inst;
	inst.kind = InstallKind::rocm_system;
	inst.found_by = by;
	inst.version = rocm_version(fs, *canon);
	inst.runtime_version = inst.version;
	inst.label = "ROCm " + (inst.version.empty() ? std::string("(version unknown)") : inst.version);
	inst.path = *canon;
	inst.via = via;
	inst.libraries = libraries_in(fs, f, join(*canon, "lib"), {"libggml-hip"});
	add_data_dirs(fs, f, inst, join(*canon, "lib"), join(*canon, "share"));
	if (!inst.libraries.empty())
		f.installs.push_back(std::move(inst));
}

// usr/lib/x86_64-linux-gnu/rocblas/<version>/library (Debian) or
// usr/lib64/rocblas/library (Fedora).
void versioned_data(io::RootFs &fs, Found &f, Install &inst, const std::string &libdir)
{
	add_data_dirs(fs, f, inst, libdir, "");
	for (const char *lib : {"rocblas", "hipblaslt"}) {
		auto vers = fs.list_dir(join(libdir, lib));
		if (!vers)
			continue;
		for (const auto &v : *vers) {
			std::string d = join(libdir, std::string(lib) + "/" + v + "/library");
			auto canon = fs.canonical(d);
			if (!canon || f.seen[*canon])
				continue;
			auto l = read_tensile_dir(
				fs, d,
				std::string(lib == std::string_view("rocblas") ? "rocBLAS" : "hipBLASLt") +
					" Tensile library " + v);
			if (l) {
				f.seen[*canon] = true;
				inst.libraries.push_back(std::move(*l));
			}
		}
	}
}

} // namespace

void find_rocm(io::RootFs &fs, const machine::Environment &env, Found &f)
{
	auto rp = env.locate.find("ROCM_PATH");
	if (rp != env.locate.end() && !rp->second.empty()) {
		if (rp->second.starts_with('/'))
			rocm_tree(fs, rel_of(rp->second), FoundBy::rocm_path, "ROCM_PATH=" + rp->second, f);
		else
			f.notes.push_back("ROCM_PATH=" + rp->second + ": not an absolute path");
	}
	rocm_tree(fs, "opt/rocm", FoundBy::opt_rocm, "/opt/rocm", f);
	if (auto opt = fs.list_dir("opt"))
		for (const auto &n : *opt)
			if (n.starts_with("rocm-"))
				rocm_tree(fs, "opt/" + n, FoundBy::opt_rocm, "/opt/" + n, f);

	for (const char *dir : {"usr/lib/x86_64-linux-gnu", "usr/lib64"}) {
		f.searched.push_back(dir);
		auto canon = fs.canonical(dir);
		if (!canon || f.seen[*canon + "/"])
			continue;
		f.seen[*canon + "/"] = true;
		Install inst;
		inst.kind = InstallKind::rocm_debian;
		inst.found_by = FoundBy::multiarch;
		inst.label = std::string("ROCm libraries of the distribution (/") + dir + ")";
		inst.path = dir;
		inst.via = std::string("/") + dir;
		inst.libraries = libraries_in(fs, f, dir, {"libggml-hip"});
		versioned_data(fs, f, inst, dir);
		if (fs.exists("usr/share/miopen/db") && !inst.libraries.empty())
			add_data_dirs(fs, f, inst, "", "usr/share");
		if (!inst.libraries.empty())
			f.installs.push_back(std::move(inst));
	}
}

void find_consumers(io::RootFs &fs, Found &f)
{
	// llama.cpp installs libggml-hip.so in <prefix>/lib; Debian's ggml in the
	// multiarch directory; ollama in <prefix>/lib/ollama (its own ROCm
	// libraries in lib/ollama/rocm).
	static const char *const dirs[] = {"usr/local/lib",
					   "usr/lib",
					   "usr/lib/x86_64-linux-gnu",
					   "usr/lib/x86_64-linux-gnu/ggml",
					   "usr/lib/x86_64-linux-gnu/ggml/backends0",
					   "usr/lib64",
					   "usr/local/lib/ollama",
					   "usr/lib/ollama",
					   "opt/ollama/lib/ollama"};
	for (const char *dir : dirs) {
		f.searched.push_back(dir);
		auto names = fs.list_dir(dir);
		if (!names)
			continue;
		bool ggml = std::any_of(names->begin(), names->end(),
					[](const std::string &n) { return n.starts_with("libggml-hip.so"); });
		if (!ggml)
			continue;
		Install inst;
		inst.kind = InstallKind::consumer;
		inst.found_by = FoundBy::multiarch;
		inst.label = std::string(dir).find("ollama") != std::string::npos ? "ollama GGML HIP backend"
										  : "llama.cpp GGML HIP backend";
		inst.path = dir;
		inst.via = std::string("/") + dir;
		for (auto &l : libraries_in(fs, f, dir))
			if (l.name.starts_with("libggml-hip"))
				inst.libraries.push_back(std::move(l));
		if (inst.libraries.empty())
			continue;
		f.installs.push_back(std::move(inst));
		// ollama's bundled ROCm next to it.
		std::string rocm = join(dir, "rocm");
		if (fs.exists(rocm)) {
			Install b;
			b.kind = InstallKind::rocm_bundled;
			b.found_by = FoundBy::multiarch;
			b.label = "ROCm bundled with ollama";
			b.path = rocm;
			b.via = "/" + rocm;
			b.libraries = libraries_in(fs, f, rocm);
			add_data_dirs(fs, f, b, rocm, "");
			if (!b.libraries.empty())
				f.installs.push_back(std::move(b));
		}
	}
}

void find_argument(io::RootFs &fs, const std::string &path, Found &f)
{
	std::string rel = rel_of(path);
	f.searched.push_back(rel);
	auto st = fs.stat(rel);
	if (!st) {
		f.notes.push_back(path + ": " + st.error().reason());
		return;
	}
	Install inst;
	inst.kind = InstallKind::path_argument;
	inst.found_by = FoundBy::argument;
	inst.label = path;
	inst.path = rel;
	inst.via = "argument";
	if (st->type == io::FileType::regular) {
		auto canon = fs.canonical(rel);
		Library l;
		l.name = basename_of(rel);
		l.path = canon ? *canon : rel;
		inst.libraries.push_back(std::move(l));
		f.installs.push_back(std::move(inst));
		return;
	}
	if (st->type != io::FileType::directory) {
		f.notes.push_back(path + ": not a regular file or a directory");
		return;
	}
	// A directory: a Tensile library directory or MIOpen database itself, or
	// its device-code libraries, code objects and bundles by extension, and
	// the data directories of the usual layouts.
	auto names = fs.list_dir(rel);
	bool tensile = names && std::any_of(names->begin(), names->end(), [](const std::string &n) {
			       return n.starts_with("TensileLibrary") || n.starts_with("Kernels.so-");
		       });
	bool miopen = names && std::any_of(names->begin(), names->end(), [](const std::string &n) {
			      return n.ends_with(".kdb") || n.ends_with(".fdb.txt") || n.ends_with(".db.txt");
		      });
	if (tensile) {
		if (auto l = read_tensile_dir(fs, rel, "Tensile library"))
			inst.libraries.push_back(std::move(*l));
	} else if (miopen) {
		if (auto l = read_miopen_dir(fs, rel))
			inst.libraries.push_back(std::move(*l));
	} else if (names) {
		for (const auto &n : *names) {
			if (!n.ends_with(".co") && !n.ends_with(".hsaco") && !n.ends_with(".hipfb"))
				continue;
			auto canon = regular_candidate(fs, f, join(rel, n));
			if (!canon || f.seen[*canon])
				continue;
			f.seen[*canon] = true;
			Library l;
			l.name = n;
			l.path = *canon;
			inst.libraries.push_back(std::move(l));
		}
		for (auto &l : libraries_in(fs, f, rel))
			inst.libraries.push_back(std::move(l));
		for (auto &l : libraries_in(fs, f, join(rel, "lib")))
			inst.libraries.push_back(std::move(l));
		add_data_dirs(fs, f, inst, rel, "");
		add_data_dirs(fs, f, inst, join(rel, "lib"), join(rel, "share"));
	}
	if (inst.libraries.empty())
		f.notes.push_back(path + ": no library with device code, code object or kernel database found");
	else
		f.installs.push_back(std::move(inst));
}

} // namespace rdnafix::coverage::detail
