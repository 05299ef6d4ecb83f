// The stack's reading half (stack.hpp): PyTorch from the interpreters the
// coverage scan finds, and the GPU runtime libraries the validate loader would
// load, from the files under the snapshot's root.  No dlopen, no subprocess.
#include <algorithm>

#include "software/find.hpp"
#include "core/text_util.hpp"
#include "io/rootfs.hpp"
#include "software/stack.hpp"

#ifdef RDNAFIX_STACK_LOADER
#include "loader.hpp"
#endif

namespace rdnafix::validate {

namespace {

namespace cd = coverage::detail;

// torch/version.py: `cuda: Optional[str] = '12.4'` / `hip = '6.2.41133-…'`;
// None (or anything not a quoted string) -> "".
std::string version_py_field(const std::string &text, std::string_view key)
{
	for (const auto &l : core::detail::split_lines(text)) {
		std::string_view line(l);
		if (!line.starts_with(key))
			continue;
		std::string_view rest = line.substr(key.size());
		if (rest.empty() || (rest[0] != ' ' && rest[0] != ':' && rest[0] != '='))
			continue;
		const auto eq = rest.find('=');
		if (eq == std::string_view::npos)
			continue;
		rest = rest.substr(eq + 1);
		while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
			rest.remove_prefix(1);
		while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t' || rest.back() == '\r'))
			rest.remove_suffix(1);
		if (rest.size() >= 2 && (rest[0] == '\'' || rest[0] == '"') && rest.back() == rest[0])
			return std::string(rest.substr(1, rest.size() - 2));
		return "";
	}
	return "";
}

struct PythonFacts {
	std::vector<std::string> lib_dirs; // absolute: torch/lib, _rocm_sdk_*/lib, nvidia/*/lib
};

PythonFacts python_facts(io::RootFs &fs, const machine::Snapshot &snap, const StackOptions &opts, Stack &s)
{
	PythonFacts p;
	cd::Found found;
	cd::find_python(fs, snap.environment, opts.pythons, found);
	bool torch_done = false;
	for (const auto &inst : found.installs) {
		const std::string abs = "/" + inst.path;
		p.lib_dirs.push_back(abs + "/lib");
		if (inst.kind != coverage::InstallKind::pytorch)
			continue;
		// The NVIDIA wheels next to torch (nvidia/cuda_nvrtc/lib, ...).
		const std::string nvidia = cd::join(cd::dirname_of(inst.path), "nvidia");
		if (auto listed = fs.list_dir(nvidia)) {
			std::vector<std::string> subs(listed->begin(), listed->end());
			std::sort(subs.begin(), subs.end());
			for (const auto &sub : subs)
				if (fs.exists(cd::join(nvidia, sub + "/lib")))
					p.lib_dirs.push_back("/" + cd::join(nvidia, sub + "/lib"));
		}
		if (torch_done)
			continue;
		torch_done = true; // the first interpreter's PyTorch is the one a user runs
		auto text =
			fs.read_text(cd::join(inst.path, "version.py"), {.max_bytes = 64 * 1024, .allow_empty = true});
		const std::string t = text ? *text : std::string();
		if (!inst.version.empty())
			s.set("torch", inst.version);
		if (auto hip = version_py_field(t, "hip"); !hip.empty())
			s.set("torch.hip", hip);
		if (auto cuda = version_py_field(t, "cuda"); !cuda.empty())
			s.set("torch.cuda", cuda);
	}
	return p;
}

// The directories ld.so searches for a bare soname on Debian/Ubuntu x86_64
// (ld.so.conf.d/x86_64-linux-gnu.conf, libc.conf, then the built-in ones).
const std::vector<std::string> &system_lib_dirs()
{
	static const std::vector<std::string> d{"usr/local/lib/x86_64-linux-gnu",
						"lib/x86_64-linux-gnu",
						"usr/lib/x86_64-linux-gnu",
						"usr/local/lib",
						"lib64",
						"usr/lib64",
						"lib",
						"usr/lib"};
	return d;
}

// The first candidate that is a file under the root: its version from the
// resolved file name, "" when none is there.
std::string first_library_version(io::RootFs &fs, const std::vector<std::string> &candidates)
{
	for (const auto &c : candidates) {
		std::vector<std::string> rels;
		if (c.starts_with('/'))
			rels.push_back(cd::rel_of(c));
		else
			for (const auto &d : system_lib_dirs())
				rels.push_back(cd::join(d, c));
		for (const auto &rel : rels) {
			auto st = fs.stat(rel);
			if (!st || st->type != io::FileType::regular)
				continue;
			auto canon = fs.canonical(rel);
			return library_version(cd::basename_of(c), cd::basename_of(canon ? *canon : rel));
		}
	}
	return "";
}

#ifdef RDNAFIX_STACK_LOADER
// The loader's SearchConfig for the snapshot's machine: the directories of
// gpu::SearchConfig::from_environment, read under the root.
gpu::SearchConfig search_config(io::RootFs &fs, const machine::Snapshot &snap,
				const std::vector<std::string> &python_lib_dirs)
{
	gpu::SearchConfig c;
	if (auto it = snap.environment.locate.find("ROCM_PATH");
	    it != snap.environment.locate.end() && it->second.starts_with('/'))
		c.rocm_paths.push_back(it->second);
	c.rocm_paths.push_back("/opt/rocm");
	std::vector<std::string> versioned;
	if (auto names = fs.list_dir("opt"))
		for (const auto &n : *names)
			if (n.starts_with("rocm-"))
				versioned.push_back("/opt/" + n);
	std::sort(versioned.rbegin(), versioned.rend()); // newest first, as the loader
	c.rocm_paths.insert(c.rocm_paths.end(), versioned.begin(), versioned.end());
	c.cuda_paths.push_back("/usr/local/cuda");
	c.python_lib_dirs = python_lib_dirs;
	return c;
}
#endif

} // namespace

Stack collect_stack(const machine::Snapshot &snap, const StackOptions &opts)
{
	Stack s = stack_of_snapshot(snap);
	if (snap.nothing_readable || snap.root.empty())
		return s;
	io::RootFs fs(snap.root);
	const PythonFacts py = python_facts(fs, snap, opts, s);
#ifdef RDNAFIX_STACK_LOADER
	const gpu::SearchConfig cfg = search_config(fs, snap, py.lib_dirs);
	if (auto v = first_library_version(fs, gpu::runtime_candidates(gpu::Api::hip, cfg)); !v.empty())
		s.set("hip", v);
	if (auto v = first_library_version(fs, gpu::runtime_candidates(gpu::Api::cuda, cfg)); !v.empty())
		s.set("cuda", v);
	if (s.get("cuda"))
		if (auto v = first_library_version(fs, gpu::rtc_candidates(gpu::Api::cuda, cfg, "")); !v.empty())
			s.set("nvrtc", v);
#else
	(void)py; // built without the GPU backend: validate loads no runtime, so none is part of the stack
#endif
	return s;
}

} // namespace rdnafix::validate
