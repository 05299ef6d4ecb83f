// Finding installations by reading files only (coverage/find_*.cpp), on
// temporary trees read through io::RootFs as with --root.
#include "software/find.hpp"

#include "io/rootfs.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

namespace fs = std::filesystem;
using namespace rdnafix::coverage;
using rdnafix::coverage::detail::device_code_lib;
using rdnafix::coverage::detail::Found;

namespace {

struct Tree {
	fs::path root;
	Tree()
	{
		std::random_device rd;
		root = fs::temp_directory_path() / ("rdnafix-cov-" + std::to_string(rd()) + std::to_string(rd()));
		fs::create_directories(root);
	}
	~Tree() { fs::remove_all(root); }
	void write(const std::string &rel, const std::string &content = "x") const
	{
		fs::create_directories((root / rel).parent_path());
		std::ofstream(root / rel) << content;
	}
	void link(const std::string &rel, const std::string &target) const
	{
		fs::create_directories((root / rel).parent_path());
		fs::create_symlink(target, root / rel);
	}
};

const Install *by_label(const Found &f, std::string_view prefix)
{
	for (const auto &i : f.installs)
		if (i.label.starts_with(prefix))
			return &i;
	return nullptr;
}

std::vector<std::string> names(const Install &i)
{
	std::vector<std::string> v;
	for (const auto &l : i.libraries)
		v.push_back(l.name);
	return v;
}

void torch_at(const Tree &t, const std::string &site, const std::string &version, const std::string &hip)
{
	t.write(site + "/torch/version.py",
		"from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
		"__version__ = '" +
			version +
			"'\ndebug = False\ncuda: Optional[str] = None\n"
			"git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\nhip: Optional[str] = " +
			hip + "\n");
	t.write(site + "/torch/lib/libtorch_hip.so");
	t.write(site + "/torch/lib/libtorch_cpu.so");
	t.write(site + "/torch/lib/libamdhip64.so");
	t.write(site + "/torch/lib/librocblas.so");
	t.write(site + "/torch/lib/libMIOpen.so");
	t.write(site + "/torch/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat");
	t.write(site + "/torch/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat");
	t.write(site + "/torch/lib/rocblas/library/TensileLibrary.dat");
	t.write(site + "/torch/share/miopen/db/gfx1030_36.HIP.fdb.txt");
}

} // namespace

TEST_CASE("the device-code table: which file names are opened")
{
	CHECK(device_code_lib("libtorch_hip.so"));
	CHECK(device_code_lib("librocblas.so.4"));
	CHECK(device_code_lib("librocblas.so.4.4.0"));
	CHECK(device_code_lib("libMIOpen.so.1"));
	CHECK(device_code_lib("libMIOpenCKGroupedConv_gfx1100.so"));
	CHECK(device_code_lib("libggml-hip.so"));
	CHECK(!device_code_lib("libtorch_cpu.so"));
	CHECK(!device_code_lib("libamdhip64.so"));
	CHECK(!device_code_lib("librocblas.a"));
	CHECK(!device_code_lib("librocblas.so.4.bak"));
	CHECK(!device_code_lib("librocblasx.so")); // no variants for rocBLAS
	CHECK(!device_code_lib("libhipblas.so"));
}

TEST_CASE("VIRTUAL_ENV: pyvenv.cfg, lib/pythonX.Y/site-packages, torch version and hip, bundled ROCm")
{
	Tree t;
	t.write("home/u/venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n");
	t.link("home/u/venv/bin/python3", "/usr/bin/python3.11");
	torch_at(t, "home/u/venv/lib/python3.11/site-packages", "2.5.1+rocm6.2", "'6.2.41133-dd7f95766'");
	t.write("usr/bin/python3.11");
	rdnafix::io::RootFs rfs(t.root.string());
	rdnafix::machine::Environment env;
	env.locate["VIRTUAL_ENV"] = "/home/u/venv";
	Found f;
	detail::find_python(rfs, env, {}, f);
	const Install *torch = by_label(f, "PyTorch 2.5.1+rocm6.2");
	REQUIRE(torch);
	CHECK(torch->found_by == FoundBy::virtual_env);
	CHECK(torch->via == "VIRTUAL_ENV=/home/u/venv");
	CHECK(torch->runtime_version == "6.2.41133-dd7f95766");
	CHECK(torch->path == "home/u/venv/lib/python3.11/site-packages/torch");
	CHECK(names(*torch) == std::vector<std::string>{"libMIOpen.so", "librocblas.so", "libtorch_hip.so",
							"rocBLAS Tensile library", "MIOpen database"});
	REQUIRE(torch->libraries[3].targets.size() == 2);
	CHECK(torch->libraries[4].targets.size() == 1);
	// No PATH: said, not guessed.
	CHECK(std::find(f.notes.begin(), f.notes.end(), "PATH is not set: no python3 looked up") != f.notes.end());
}

TEST_CASE("python3 on PATH: the first one, its symlink chain and Debian's dist-packages")
{
	Tree t;
	t.write("usr/bin/python3.13");
	t.link("usr/bin/python3", "python3.13");
	t.write("usr/local/bin/other"); // earlier on PATH, no python3 there
	torch_at(t, "usr/local/lib/python3.13/dist-packages", "2.7.1+rocm6.3", "'6.3.42131-fa1d09cbd'");
	rdnafix::io::RootFs rfs(t.root.string());
	rdnafix::machine::Environment env;
	env.locate["PATH"] = "relative/bin:/usr/local/bin:/usr/bin:/bin";
	Found f;
	detail::find_python(rfs, env, {}, f);
	const Install *torch = by_label(f, "PyTorch 2.7.1+rocm6.3");
	REQUIRE(torch);
	CHECK(torch->found_by == FoundBy::path_python);
	CHECK(torch->via == "python3 on PATH (/usr/bin/python3)");
}

TEST_CASE("the same torch reached twice is listed once; a CUDA build says so; bad --python is a note")
{
	Tree t;
	t.write("opt/conda/bin/python3.12");
	t.link("opt/conda/bin/python3", "python3.12");
	torch_at(t, "opt/conda/lib/python3.12/site-packages", "2.4.0+cu121", "None");
	rdnafix::io::RootFs rfs(t.root.string());
	rdnafix::machine::Environment env;
	env.locate["CONDA_PREFIX"] = "/opt/conda";
	env.locate["PATH"] = "/opt/conda/bin:/usr/bin";
	Found f;
	detail::find_python(rfs, env, {"/opt/conda/bin/python3", "/nonexistent/python3"}, f);
	REQUIRE(f.installs.size() == 1);
	CHECK(f.installs[0].found_by == FoundBy::python_option);
	CHECK(f.installs[0].label == "PyTorch 2.4.0+cu121 (not a ROCm build: torch.version.hip is None)");
	CHECK(f.installs[0].runtime_version.empty());
	REQUIRE(!f.notes.empty());
	CHECK(f.notes[0].starts_with("--python /nonexistent/python3: "));
}

TEST_CASE("_rocm_sdk_* wheels: their lib/ directories")
{
	Tree t;
	t.write("v/pyvenv.cfg", "home = /usr/bin\nversion_info = 3.12.3.final.0\n");
	t.write("v/bin/python3");
	std::string site = "v/lib/python3.12/site-packages";
	t.write(site + "/rocm_sdk_core-7.0.0rc20250911.dist-info/METADATA");
	t.write(site + "/_rocm_sdk_core/lib/libamdhip64.so.7");
	t.write(site + "/_rocm_sdk_libraries_gfx1151/lib/librocblas.so.5");
	t.write(site + "/_rocm_sdk_libraries_gfx1151/lib/libMIOpen.so.1");
	t.write(site + "/_rocm_sdk_libraries_gfx1151/lib/rocblas/library/TensileLibrary_lazy_gfx1151.dat");
	rdnafix::io::RootFs rfs(t.root.string());
	Found f;
	detail::find_python(rfs, {}, {"/v/bin/python3"}, f);
	const Install *sdk = by_label(f, "ROCm wheel _rocm_sdk_libraries_gfx1151");
	REQUIRE(sdk);
	CHECK(sdk->runtime_version == "7.0.0rc20250911");
	CHECK(names(*sdk) == std::vector<std::string>{"libMIOpen.so.1", "librocblas.so.5", "rocBLAS Tensile library"});
	CHECK(!by_label(f, "ROCm wheel _rocm_sdk_core")); // host-only: nothing to judge
}

TEST_CASE("system ROCm: ROCM_PATH and /opt/rocm* folded by their real path; Debian multiarch; ollama")
{
	Tree t;
	t.write("opt/rocm-6.4.1/.info/version", "6.4.1-120\n");
	t.write("opt/rocm-6.4.1/lib/librocblas.so.4.4");
	t.link("opt/rocm-6.4.1/lib/librocblas.so.4", "librocblas.so.4.4");
	t.link("opt/rocm-6.4.1/lib/librocblas.so", "librocblas.so.4");
	t.write("opt/rocm-6.4.1/lib/libamdhip64.so.6");
	t.write("opt/rocm-6.4.1/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat");
	t.link("opt/rocm", "rocm-6.4.1");
	t.write("usr/lib/x86_64-linux-gnu/librocblas.so.4.4");
	t.write("usr/lib/x86_64-linux-gnu/libggml-hip.so");
	t.write("usr/lib/x86_64-linux-gnu/rocblas/4.4.0/library/TensileLibrary_lazy_gfx1010.dat");
	t.write("usr/local/lib/ollama/libggml-hip.so");
	t.write("usr/local/lib/ollama/rocm/librocblas.so.4");
	t.write("usr/local/lib/ollama/rocm/rocblas/library/TensileLibrary_lazy_gfx1030.dat");
	rdnafix::io::RootFs rfs(t.root.string());
	rdnafix::machine::Environment env;
	env.locate["ROCM_PATH"] = "/opt/rocm";
	Found f;
	detail::find_rocm(rfs, env, f);
	detail::find_consumers(rfs, f);
	const Install *rocm = by_label(f, "ROCm 6.4.1");
	REQUIRE(rocm);
	CHECK(rocm->found_by == FoundBy::rocm_path);
	CHECK(rocm->path == "opt/rocm-6.4.1");
	CHECK(names(*rocm) == std::vector<std::string>{"librocblas.so.4.4", "rocBLAS Tensile library"});
	CHECK(std::count_if(f.installs.begin(), f.installs.end(),
			    [](const Install &i) { return i.label.starts_with("ROCm 6.4.1"); }) == 1);
	const Install *deb = by_label(f, "ROCm libraries of the distribution (/usr/lib/x86_64-linux-gnu)");
	REQUIRE(deb);
	CHECK(names(*deb) == std::vector<std::string>{"librocblas.so.4.4", "rocBLAS Tensile library 4.4.0"});
	const Install *ggml = by_label(f, "llama.cpp GGML HIP backend");
	REQUIRE(ggml);
	CHECK(ggml->path == "usr/lib/x86_64-linux-gnu");
	REQUIRE(by_label(f, "ollama GGML HIP backend"));
	const Install *oll = by_label(f, "ROCm bundled with ollama");
	REQUIRE(oll);
	CHECK(names(*oll) == std::vector<std::string>{"librocblas.so.4", "rocBLAS Tensile library"});
}

TEST_CASE("PATH arguments: a file is read whatever its name; a Tensile directory by names")
{
	Tree t;
	t.write("work/kernel.bin");
	t.write("work/library/TensileLibrary_lazy_gfx1031.dat");
	t.write("work/library/Kernels.so-000-gfx1031.hsaco");
	rdnafix::io::RootFs rfs(t.root.string());
	Found f;
	detail::find_argument(rfs, "/work/kernel.bin", f);
	detail::find_argument(rfs, "/work/library", f);
	detail::find_argument(rfs, "/work/none", f);
	REQUIRE(f.installs.size() == 2);
	CHECK(f.installs[0].libraries[0].kind == LibraryKind::fatbin);
	CHECK(f.installs[0].libraries[0].path == "work/kernel.bin");
	CHECK(f.installs[1].libraries[0].kind == LibraryKind::tensile_files);
	CHECK(f.installs[1].libraries[0].targets.size() == 1);
	REQUIRE(f.notes.size() == 1);
	CHECK(f.notes[0].starts_with("/work/none: "));
}

TEST_CASE("hostile trees: link loops, huge or binary version.py, paths that climb out of the root")
{
	Tree t;
	t.link("usr/bin/python3", "python3.x");
	t.link("usr/bin/python3.x", "python3"); // a loop
	t.write("v/pyvenv.cfg", std::string(100 * 1024, 'x'));
	t.write("v/bin/python3");
	t.write("v/lib/python3.12/site-packages/torch/version.py", std::string(200 * 1024, '#')); // over 64 KiB
	t.write("w/bin/python3");
	t.write("w/lib/python3.12/site-packages/torch/version.py", std::string("__version__ = '2\0x'\n", 19));
	t.write("w/lib/python3.12/site-packages/torch/lib/libtorch_hip.so");
	rdnafix::io::RootFs rfs(t.root.string());
	rdnafix::machine::Environment env;
	env.locate["PATH"] = "/usr/bin:/../../../../usr/bin";
	env.locate["VIRTUAL_ENV"] = "/../../v";
	env.locate["CONDA_PREFIX"] = "w"; // not absolute
	Found f;
	detail::find_python(rfs, env, {"/w/bin/python3"}, f);
	// The loop is a note, the huge version.py is skipped, the binary one is unreadable: no torch.
	CHECK(f.installs.empty());
	bool loop = false, relative = false;
	for (const auto &n : f.notes) {
		loop = loop || n.find("python3") != std::string::npos;
		relative = relative || n == "CONDA_PREFIX=w: not an absolute path";
	}
	CHECK(loop);
	CHECK(relative);
	// Everything looked at stays inside the root.
	for (const auto &s : f.searched)
		CHECK(s.find("..") == std::string::npos);
}

TEST_CASE("rel_of: lexical, clamped at the root")
{
	CHECK(detail::rel_of("/usr/lib/") == "usr/lib");
	CHECK(detail::rel_of("/usr/./lib/../lib64") == "usr/lib64");
	CHECK(detail::rel_of("/../../etc") == "etc");
	CHECK(detail::rel_of("/") == "");
	CHECK(detail::rel_of("a//b") == "a/b");
}

TEST_CASE("a pyenv shim on PATH leads to the selected version's prefix")
{
	Tree t;
	t.write("home/u/.pyenv/shims/python3", "#!/usr/bin/env bash\nexec pyenv exec \"$@\"\n");
	t.write("home/u/.pyenv/version", "3.11.7\n");
	t.write("home/u/.pyenv/versions/3.11.7/bin/python3.11");
	t.link("home/u/.pyenv/versions/3.11.7/bin/python3", "python3.11");
	torch_at(t, "home/u/.pyenv/versions/3.11.7/lib/python3.11/site-packages", "2.6.0+rocm6.2.4",
		 "'6.2.41134-65d174c3e'");
	rdnafix::io::RootFs rfs(t.root.string());
	rdnafix::machine::Environment env;
	env.locate["PATH"] = "/home/u/.pyenv/shims:/usr/bin";
	Found f;
	detail::find_python(rfs, env, {}, f);
	const Install *torch = by_label(f, "PyTorch 2.6.0+rocm6.2.4");
	REQUIRE(torch);
	CHECK(torch->via == "python3 on PATH (/home/u/.pyenv/shims/python3) -> pyenv 3.11.7");
	// "system" selects no pyenv version: said, not guessed.
	t.write("home/u/.pyenv/version", "system\n");
	rdnafix::io::RootFs rfs2(t.root.string());
	Found g;
	detail::find_python(rfs2, env, {}, g);
	CHECK(g.installs.empty());
	REQUIRE(!g.notes.empty());
	CHECK(g.notes[0].find("a pyenv shim without a selected version") != std::string::npos);
}
