// PyTorch and the _rocm_sdk_* wheels in the interpreters a user really uses:
// --python PATH, VIRTUAL_ENV, CONDA_PREFIX, python3 on PATH.  The prefix of
// an interpreter is found from files (pyvenv.cfg, the symlink chain,
// lib/pythonX.Y), never by running it.
#include "software/find.hpp"

#include "io/rootfs.hpp"

#include "core/text_util.hpp"

#include <algorithm>

namespace rdnafix::coverage::detail {

namespace {

struct Interp {
	std::string prefix;      // root-relative
	std::string interpreter; // as the user would name it ("/home/u/venv/bin/python3")
	FoundBy by = FoundBy::path_python;
	std::string via;                   // "VIRTUAL_ENV=/home/u/venv"
	std::vector<std::string> versions; // "3.11"
	std::string base_prefix;           // a venv with include-system-site-packages
};

std::string trim(std::string_view s)
{
	while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
		s.remove_prefix(1);
	while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
		s.remove_suffix(1);
	return std::string(s);
}

std::vector<std::string> split_colon(std::string_view s)
{
	std::vector<std::string> out;
	std::size_t b = 0;
	while (b <= s.size()) {
		auto e = s.find(':', b);
		if (e == std::string_view::npos)
			e = s.size();
		out.emplace_back(s.substr(b, e - b));
		b = e + 1;
	}
	return out;
}

// "python3.11" -> "3.11"; anything else -> "".
std::string version_of_name(std::string_view n)
{
	if (!n.starts_with("python3."))
		return "";
	std::string_view v = n.substr(6);
	std::string_view minor = v.substr(2);
	if (minor.empty() || minor.size() > 3 ||
	    !std::all_of(minor.begin(), minor.end(), [](char c) { return c >= '0' && c <= '9'; }))
		return "";
	return std::string(v);
}

void add_version(std::vector<std::string> &v, const std::string &x)
{
	if (!x.empty() && std::find(v.begin(), v.end(), x) == v.end())
		v.push_back(x);
}

// The Python versions whose lib/pythonX.Y exists below a prefix.
void versions_below(io::RootFs &fs, const std::string &prefix, std::vector<std::string> &v)
{
	for (const char *lib : {"lib", "lib64"})
		if (auto names = fs.list_dir(join(prefix, lib)))
			for (const auto &n : *names)
				add_version(v, version_of_name(n));
}

// Reads pyvenv.cfg (key = value lines) into the interpreter.
void read_pyvenv(io::RootFs &fs, const std::string &cfg, Interp &in)
{
	auto text = fs.read_text(cfg, {.max_bytes = 64 * 1024, .allow_empty = true});
	if (!text)
		return;
	for (const auto &raw : core::detail::split_lines(*text)) {
		auto eq = raw.find('=');
		if (eq == std::string::npos)
			continue;
		std::string key = trim(std::string_view(raw).substr(0, eq));
		std::string val = trim(std::string_view(raw).substr(eq + 1));
		if (key == "version" || key == "version_info") {
			auto dot = val.find('.', val.find('.') + 1);
			add_version(in.versions, version_of_name("python" + val.substr(0, dot)));
		} else if (key == "home" && val.starts_with('/'))
			in.base_prefix = dirname_of(rel_of(val)); // home = /usr/bin -> usr
		else if (key == "include-system-site-packages" && val != "true")
			in.base_prefix.clear();
	}
	// include-system-site-packages defaults to false: keep the base only when said.
	if (text->find("include-system-site-packages") == std::string::npos)
		in.base_prefix.clear();
}

// An interpreter file (or an environment directory) -> its prefix.  False
// (with a note) when it is not there.
bool resolve(io::RootFs &fs, const std::string &given, Interp &in, Found &f)
{
	std::string rel = rel_of(given);
	auto st = fs.stat(rel);
	if (!st) {
		f.notes.push_back(in.via + ": " + st.error().reason());
		return false;
	}
	std::string bin = st->type == io::FileType::directory ? join(rel, "bin") : dirname_of(rel);
	std::string prefix = st->type == io::FileType::directory ? rel : dirname_of(bin);
	if (st->type == io::FileType::directory && !fs.exists(join(rel, "pyvenv.cfg")) &&
	    !fs.exists(join(bin, "python3")) && !fs.exists(join(bin, "python"))) {
		f.notes.push_back(in.via + ": not an interpreter or a Python environment");
		return false;
	}
	in.interpreter = "/" + (st->type == io::FileType::directory ? join(bin, "python3") : rel);
	// A pyenv shim (a script): the interpreter is the selected version's, named
	// by <pyenv root>/version ("3.11.9"; "system" means the system one).
	if (basename_of(bin) == "shims" && basename_of(prefix) == ".pyenv") {
		auto v = fs.read_value(join(prefix, "version"), {.max_bytes = 4096});
		std::string name = v ? v->substr(0, v->find_first_of(" \n")) : "";
		if (name.empty() || name == "system" || name.find('/') != std::string::npos || name == "..") {
			f.notes.push_back(in.via + ": a pyenv shim without a selected version (" +
					  join(prefix, "version") + ")");
			return false;
		}
		rel = join(prefix, "versions/" + name + "/bin/python3");
		prefix = join(prefix, "versions/" + name);
		in.via += " -> pyenv " + name;
		if (!fs.exists(rel)) {
			f.notes.push_back(in.via + ": /" + rel + " does not exist");
			return false;
		}
	}
	if (fs.exists(join(prefix, "pyvenv.cfg"))) {
		in.prefix = prefix; // a venv: its bin/python3 links to the base interpreter
		read_pyvenv(fs, join(prefix, "pyvenv.cfg"), in);
	} else if (st->type != io::FileType::directory) {
		// A system or conda interpreter: follow the links (python3 -> python3.11).
		auto canon = fs.canonical(rel);
		std::string real = canon ? *canon : rel;
		add_version(in.versions, version_of_name(basename_of(real)));
		in.prefix = dirname_of(dirname_of(real));
	} else
		in.prefix = prefix;
	add_version(in.versions, version_of_name(basename_of(rel)));
	if (in.versions.empty())
		versions_below(fs, in.prefix, in.versions);
	return true;
}

// The site directories of a prefix that exist (Debian: dist-packages).
std::vector<std::string> site_dirs(io::RootFs &fs, const std::string &prefix, const std::vector<std::string> &versions,
				   Found &f)
{
	std::vector<std::string> cands;
	for (const auto &v : versions) {
		cands.push_back(join(prefix, "lib/python" + v + "/site-packages"));
		cands.push_back(join(prefix, "lib64/python" + v + "/site-packages"));
		cands.push_back(join(prefix, "lib/python" + v + "/dist-packages"));
		if (prefix == "usr")
			cands.push_back("usr/local/lib/python" + v + "/dist-packages");
	}
	cands.push_back(join(prefix, "lib/python3/dist-packages"));
	std::vector<std::string> out;
	for (const auto &c : cands) {
		f.searched.push_back(c);
		if (fs.exists(c) && std::find(out.begin(), out.end(), c) == out.end())
			out.push_back(c);
	}
	return out;
}

// torch/version.py: __version__ = '2.5.1+rocm6.2' and hip = '6.2.41133-...'
// (or "hip: Optional[str] = ..."); None -> "".
std::string py_string(const std::string &text, std::string_view key)
{
	for (const auto &l : core::detail::split_lines(text)) {
		if (!std::string_view(l).starts_with(key))
			continue;
		std::string_view rest = std::string_view(l).substr(key.size());
		if (rest.empty() || (rest[0] != ' ' && rest[0] != ':' && rest[0] != '='))
			continue;
		auto eq = rest.find('=');
		if (eq == std::string_view::npos)
			continue;
		std::string val = trim(rest.substr(eq + 1));
		if (val.size() >= 2 && (val[0] == '\'' || val[0] == '"') && val.back() == val[0])
			return val.substr(1, val.size() - 2);
		return "";
	}
	return "";
}

void torch_in(io::RootFs &fs, const std::string &site, const Interp &in, Found &f)
{
	std::string torch = join(site, "torch");
	auto text = fs.read_text(join(torch, "version.py"), {.max_bytes = 64 * 1024, .allow_empty = true});
	if (!text)
		return;
	auto canon = fs.canonical(torch);
	if (canon && f.seen[*canon + "/"])
		return; // the same site-packages reached through another route
	if (canon)
		f.seen[*canon + "/"] = true;
	Install inst;
	inst.kind = InstallKind::pytorch;
	inst.found_by = in.by;
	inst.version = py_string(*text, "__version__");
	inst.runtime_version = py_string(*text, "hip");
	inst.label = "PyTorch " + (inst.version.empty() ? std::string("(version unknown)") : inst.version);
	if (inst.runtime_version.empty())
		inst.label += " (not a ROCm build: torch.version.hip is None)";
	inst.path = torch;
	inst.via = in.via;
	inst.libraries = libraries_in(fs, f, join(torch, "lib"));
	add_data_dirs(fs, f, inst, join(torch, "lib"), join(torch, "share"));
	f.installs.push_back(std::move(inst));
}

// The ROCm libraries of the TheRock wheels: _rocm_sdk_core,
// _rocm_sdk_libraries_<family> (docs/rocm-facts.md §3).
void rocm_sdk_in(io::RootFs &fs, const std::string &site, const std::vector<std::string> &entries, const Interp &in,
		 Found &f)
{
	std::string version;
	for (const auto &e : entries)
		if (e.starts_with("rocm_sdk_core-") && e.ends_with(".dist-info"))
			version = e.substr(14, e.size() - 14 - 10);
	for (const auto &e : entries) {
		if (!e.starts_with("_rocm_sdk_"))
			continue;
		std::string dir = join(site, e);
		auto canon = fs.canonical(dir);
		if (!canon || f.seen[*canon + "/"])
			continue;
		f.seen[*canon + "/"] = true;
		Install inst;
		inst.kind = InstallKind::rocm_bundled;
		inst.found_by = in.by;
		inst.label = "ROCm wheel " + e;
		inst.version = version;
		inst.runtime_version = version;
		inst.path = dir;
		inst.via = in.via;
		inst.libraries = libraries_in(fs, f, join(dir, "lib"));
		add_data_dirs(fs, f, inst, join(dir, "lib"), join(dir, "share"));
		if (!inst.libraries.empty())
			f.installs.push_back(std::move(inst));
	}
}

void scan_interp(io::RootFs &fs, const machine::Environment &env, Interp in, Found &f)
{
	std::vector<std::string> sites = site_dirs(fs, in.prefix, in.versions, f);
	if (in.by != FoundBy::virtual_env && !in.base_prefix.empty())
		in.base_prefix.clear();
	if (!in.base_prefix.empty())
		for (auto &s : site_dirs(fs, in.base_prefix, in.versions, f))
			sites.push_back(s);
	// pip install --user: ~/.local (not for a venv without system packages).
	auto home = env.locate.find("HOME");
	if (home != env.locate.end() && (!fs.exists(join(in.prefix, "pyvenv.cfg")) || !in.base_prefix.empty()))
		for (const auto &v : in.versions) {
			std::string user = join(rel_of(home->second), ".local/lib/python" + v + "/site-packages");
			f.searched.push_back(user);
			if (fs.exists(user))
				sites.push_back(user);
		}
	for (const auto &site : sites) {
		torch_in(fs, site, in, f);
		if (auto entries = fs.list_dir(site))
			rocm_sdk_in(fs, site, *entries, in, f);
	}
}

} // namespace

void find_python(io::RootFs &fs, const machine::Environment &env, const std::vector<std::string> &pythons, Found &f)
{
	std::vector<Interp> todo;
	for (const auto &p : pythons) {
		Interp in;
		in.by = FoundBy::python_option;
		in.via = "--python " + p;
		if (resolve(fs, p, in, f))
			todo.push_back(in);
	}
	auto var = [&](const char *name, FoundBy by) {
		auto it = env.locate.find(name);
		if (it == env.locate.end() || it->second.empty())
			return;
		Interp in;
		in.by = by;
		in.via = std::string(name) + "=" + it->second;
		if (!it->second.starts_with('/')) {
			f.notes.push_back(in.via + ": not an absolute path");
			return;
		}
		if (resolve(fs, it->second, in, f))
			todo.push_back(in);
	};
	var("VIRTUAL_ENV", FoundBy::virtual_env);
	var("CONDA_PREFIX", FoundBy::conda_prefix);
	// The python3 the user's shell runs: the first on PATH.
	auto path = env.locate.find("PATH");
	bool found = false;
	if (path != env.locate.end())
		for (const auto &dir : split_colon(path->second)) {
			if (!dir.starts_with('/'))
				continue;
			std::string cand = join(rel_of(dir), "python3");
			if (!fs.exists(cand))
				continue;
			Interp in;
			in.by = FoundBy::path_python;
			in.via = "python3 on PATH (" + dir + "/python3)";
			found = resolve(fs, "/" + cand, in, f);
			if (found)
				todo.push_back(in);
			break;
		}
	if (!found)
		f.notes.push_back(path == env.locate.end() ? "PATH is not set: no python3 looked up"
							   : "no python3 on PATH");
	for (const auto &in : todo)
		scan_interp(fs, env, in, f);
}

} // namespace rdnafix::coverage::detail
