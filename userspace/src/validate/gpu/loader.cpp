#include "loader.hpp"

#include <dlfcn.h>
#include <elf.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

namespace rdnafix::gpu {

DlHandle::DlHandle(DlHandle &&o) noexcept : h_(o.h_), path_(std::move(o.path_))
{
	o.h_ = nullptr;
}

DlHandle &DlHandle::operator=(DlHandle &&o) noexcept
{
	if (this != &o) {
		if (h_)
			dlclose(h_);
		h_ = o.h_;
		path_ = std::move(o.path_);
		o.h_ = nullptr;
	}
	return *this;
}

DlHandle::~DlHandle()
{
	if (h_)
		dlclose(h_);
}

void *DlHandle::sym(const char *name) const
{
	return h_ ? dlsym(h_, name) : nullptr;
}

DlHandle DlHandle::open(const std::string &what, const std::string &path, const std::vector<std::string> &required,
			std::vector<LoadAttempt> &log, bool global)
{
	LoadAttempt a;
	a.what = what;
	a.path = path;
	dlerror();
	void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_NODELETE | (global ? RTLD_GLOBAL : RTLD_LOCAL));
	if (!h) {
		const char *e = dlerror();
		a.detail =
			describe_dlopen_error(path, e ? e : "dlopen failed",
					      path.find('/') == std::string::npos ? std::string() : elf_mismatch(path));
		log.push_back(std::move(a));
		return {};
	}
	DlHandle handle(h, path);
	std::vector<std::string> missing;
	for (const auto &s : required)
		if (!handle.sym(s.c_str()))
			missing.push_back(s);
	if (!missing.empty()) {
		a.detail = "missing symbol";
		if (missing.size() > 1)
			a.detail += "s";
		for (size_t i = 0; i < missing.size() && i < 4; ++i)
			a.detail += (i ? ", " : " ") + missing[i];
		if (missing.size() > 4)
			a.detail += " (+" + std::to_string(missing.size() - 4) + " more)";
		log.push_back(std::move(a));
		return {};
	}
	a.ok = true;
	char real[4096];
	if (dlinfo(h, RTLD_DI_ORIGIN, real) == 0 && path.find('/') == std::string::npos)
		a.detail = std::string("found in ") + real;
	log.push_back(std::move(a));
	return handle;
}

namespace {

constexpr const char kNoFile[] = "cannot open shared object file: No such file or directory";

#if defined(__x86_64__)
constexpr unsigned kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kHostMachine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr unsigned kHostMachine = EM_PPC64;
#elif defined(__riscv)
constexpr unsigned kHostMachine = EM_RISCV;
#else
constexpr unsigned kHostMachine = 0; // unknown: machine not compared
#endif

std::string machine_name(unsigned m)
{
	switch (m) {
	case EM_386:
		return "i386";
	case EM_X86_64:
		return "x86_64";
	case EM_AARCH64:
		return "aarch64";
	case EM_ARM:
		return "arm";
	case EM_PPC64:
		return "ppc64";
	case EM_RISCV:
		return "riscv";
	case EM_S390:
		return "s390";
	default:
		return "machine " + std::to_string(m);
	}
}

} // namespace

std::string elf_mismatch(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	unsigned char h[EI_NIDENT + 4] = {};
	if (!f)
		return {};
	f.read(reinterpret_cast<char *>(h), sizeof h);
	const auto n = std::size_t(f.gcount());
	if (n < SELFMAG || std::memcmp(h, ELFMAG, SELFMAG) != 0) {
		bool text = n > 0;
		for (std::size_t i = 0; i < n; ++i)
			text = text && (std::isprint(h[i]) || std::isspace(h[i]));
		if (n == 0)
			return "not an ELF file (empty)";
		return text ? "not an ELF file (text: a linker script or a stub?)" : "not an ELF file";
	}
	if (n < sizeof h)
		return "not an ELF file (truncated header)";
	const int want_class = sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32;
	if (h[EI_CLASS] != want_class)
		return h[EI_CLASS] == ELFCLASS32   ? "a 32-bit ELF (ELFCLASS32); rdnactl is 64-bit"
		       : h[EI_CLASS] == ELFCLASS64 ? "a 64-bit ELF (ELFCLASS64); rdnactl is 32-bit"
						   : "an ELF of unknown class " + std::to_string(h[EI_CLASS]);
	const bool le = h[EI_DATA] == ELFDATA2LSB;
	const unsigned machine = le ? unsigned(h[18] | h[19] << 8) : unsigned(h[18] << 8 | h[19]);
	if (kHostMachine && machine != kHostMachine)
		return "an ELF for " + machine_name(machine) + " (e_machine " + std::to_string(machine) +
		       "); rdnactl runs on " + machine_name(kHostMachine);
	const bool host_le = std::endian::native == std::endian::little;
	if (le != host_le)
		return std::string("an ELF of the other byte order (") + (le ? "little" : "big") + "-endian)";
	return {};
}

std::string describe_dlopen_error(const std::string &path, std::string err, const std::string &mismatch)
{
	// dlerror() starts with the path again: drop it.
	if (err.rfind(path + ": ", 0) == 0)
		err.erase(0, path.size() + 2);
	if (err == kNoFile)
		return mismatch.empty() ? "not found" : "cannot be loaded: " + mismatch;
	if (err.rfind("wrong ELF class: ", 0) == 0)
		return "cannot be loaded: " + (mismatch.empty() ? err : mismatch) + " (" + err + ")";
	if (err == "invalid ELF header" || err == "file too short")
		return "cannot be loaded: " + (mismatch.empty() ? std::string("not an ELF shared library") : mismatch) +
		       " (" + err + ")";
	if (err.find("Permission denied") != std::string::npos)
		return "cannot be read: permission denied (" + err + ")";
	if (err.rfind("undefined symbol: ", 0) == 0 || err.find(": undefined symbol: ") != std::string::npos)
		return "cannot be loaded: " + err + " (a library it depends on is of another version)";
	// "libhsa-runtime64.so.1: cannot open shared object file: No such file or directory":
	// the library is there, one it depends on is not.
	if (const auto pos = err.find(std::string(": ") + kNoFile); pos != std::string::npos && pos > 0)
		return "cannot be loaded: it needs " + err.substr(0, pos) + ", which is not found";
	if (!mismatch.empty())
		return "cannot be loaded: " + mismatch + " (" + err + ")";
	return err;
}

std::string dir_of(const std::string &path)
{
	auto pos = path.rfind('/');
	if (pos == std::string::npos)
		return "";
	return path.substr(0, pos == 0 ? 1 : pos);
}

namespace {

void add_unique(std::vector<std::string> &out, std::set<std::string> &seen, const std::string &s)
{
	if (!s.empty() && seen.insert(s).second)
		out.push_back(s);
}

std::vector<std::string> search_dirs(Api api, const SearchConfig &cfg, const std::string &first_dir)
{
	std::vector<std::string> dirs;
	std::set<std::string> seen;
	add_unique(dirs, seen, first_dir);
	if (cfg.explicit_dir)
		add_unique(dirs, seen, *cfg.explicit_dir);
	if (cfg.only_explicit && cfg.explicit_dir)
		return dirs;
	if (api == Api::hip) {
		for (const auto &r : cfg.rocm_paths)
			add_unique(dirs, seen, r + "/lib");
	} else {
		add_unique(dirs, seen, "/usr/local/nvidia/lib64"); // driver mount in containers
		for (const auto &c : cfg.cuda_paths)
			add_unique(dirs, seen, c + "/lib64");
	}
	for (const auto &p : cfg.python_lib_dirs)
		add_unique(dirs, seen, p);
	add_unique(dirs, seen, cfg.multiarch_dir);
	return dirs;
}

std::vector<std::string> expand(const std::vector<std::string> &dirs, const std::vector<std::string> &names,
				const SearchConfig &cfg)
{
	std::vector<std::string> out;
	std::set<std::string> seen;
	for (const auto &d : dirs)
		for (const auto &n : names)
			add_unique(out, seen, d + "/" + n);
	if (cfg.use_system_search && !(cfg.only_explicit && cfg.explicit_dir))
		for (const auto &n : names)
			if (n.find(".so.") != std::string::npos) // only versioned sonames from the system
				add_unique(out, seen, n);
	return out;
}

} // namespace

std::vector<std::string> runtime_candidates(Api api, const SearchConfig &cfg)
{
	if (api == Api::hip)
		return expand(search_dirs(api, cfg, ""),
			      {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"}, cfg);
	return expand(search_dirs(api, cfg, ""), {"libcuda.so.1", "libcuda.so"}, cfg);
}

std::vector<std::string> rtc_candidates(Api api, const SearchConfig &cfg, const std::string &runtime_path)
{
	if (api == Api::hip)
		return expand(search_dirs(api, cfg, dir_of(runtime_path)),
			      {"libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so"}, cfg);
	return expand(search_dirs(api, cfg, ""),
		      {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"}, cfg);
}

std::vector<std::string> comgr_candidates(const SearchConfig &cfg, const std::string &runtime_path)
{
	return expand(search_dirs(Api::hip, cfg, dir_of(runtime_path)),
		      {"libamd_comgr.so.3", "libamd_comgr.so.2", "libamd_comgr.so"}, cfg);
}

const std::vector<std::string> &hip_runtime_symbols()
{
	static const std::vector<std::string> s = {
		"hipInit",
		"hipGetDeviceCount",
		"hipRuntimeGetVersion",
		"hipDriverGetVersion",
		"hipGetErrorName",
		"hipGetErrorString",
		"hipSetDevice",
		"hipDeviceGetName",
		"hipDeviceTotalMem",
		"hipMalloc",
		"hipFree",
		"hipHostMalloc",
		"hipHostFree",
		"hipHostGetDevicePointer",
		"hipMallocManaged",
		"hipMemcpy",
		"hipMemset",
		"hipMemGetInfo",
		"hipModuleLoadData",
		"hipModuleUnload",
		"hipModuleGetFunction",
		"hipModuleLaunchKernel",
		"hipEventCreate",
		"hipEventRecord",
		"hipEventSynchronize",
		"hipEventElapsedTime",
		"hipEventDestroy",
		"hipDeviceSynchronize",
		"hipGetLastError",
	};
	return s;
}

const std::vector<std::string> &cuda_driver_symbols()
{
	static const std::vector<std::string> s = {
		"cuInit",
		"cuDriverGetVersion",
		"cuDeviceGetCount",
		"cuDeviceGet",
		"cuDeviceGetName",
		"cuDeviceTotalMem_v2",
		"cuDeviceGetAttribute",
		"cuGetErrorName",
		"cuGetErrorString",
		"cuDevicePrimaryCtxRetain",
		"cuDevicePrimaryCtxRelease_v2",
		"cuCtxSetCurrent",
		"cuCtxSynchronize",
		"cuMemAlloc_v2",
		"cuMemFree_v2",
		"cuMemHostAlloc",
		"cuMemFreeHost",
		"cuMemHostGetDevicePointer_v2",
		"cuMemAllocManaged",
		"cuMemcpyHtoD_v2",
		"cuMemcpyDtoH_v2",
		"cuMemcpyDtoD_v2",
		"cuMemsetD8_v2",
		"cuMemGetInfo_v2",
		"cuModuleLoadData",
		"cuModuleUnload",
		"cuModuleGetFunction",
		"cuLaunchKernel",
		"cuFuncSetAttribute",
		"cuEventCreate",
		"cuEventRecord",
		"cuEventSynchronize",
		"cuEventElapsedTime",
		"cuEventDestroy_v2",
	};
	return s;
}

const std::vector<std::string> &hiprtc_symbols()
{
	static const std::vector<std::string> s = {
		"hiprtcCreateProgram", "hiprtcCompileProgram", "hiprtcGetProgramLogSize", "hiprtcGetProgramLog",
		"hiprtcGetCodeSize",   "hiprtcGetCode",        "hiprtcDestroyProgram",    "hiprtcGetErrorString",
	};
	return s;
}

const std::vector<std::string> &nvrtc_symbols()
{
	static const std::vector<std::string> s = {
		"nvrtcCreateProgram",  "nvrtcCompileProgram", "nvrtcGetProgramLogSize",
		"nvrtcGetProgramLog",  "nvrtcGetCUBINSize",   "nvrtcGetCUBIN",
		"nvrtcDestroyProgram", "nvrtcGetErrorString", "nvrtcVersion",
	};
	return s;
}

const std::vector<std::string> &comgr_symbols()
{
	static const std::vector<std::string> s = {"amd_comgr_get_isa_count", "amd_comgr_get_isa_name"};
	return s;
}

namespace {

std::string getenv_str(const char *name)
{
	const char *v = std::getenv(name);
	return v ? v : "";
}

std::vector<std::string> python_dirs()
{
	// find_spec does not import torch (fast, and no GPU initialisation).
	static const char *script = "python3 -c \"import importlib.util as u, os\n"
				    "for m in ('torch', '_rocm_sdk_core', 'nvidia'):\n"
				    "    try:\n"
				    "        s = u.find_spec(m)\n"
				    "    except Exception:\n"
				    "        s = None\n"
				    "    for d in (s.submodule_search_locations or []) if s else []:\n"
				    "        if m == 'nvidia':\n"
				    "            for sub in sorted(os.listdir(d)):\n"
				    "                p = os.path.join(d, sub, 'lib')\n"
				    "                if os.path.isdir(p): print(p)\n"
				    "        else:\n"
				    "            print(os.path.join(d, 'lib'))\n\" 2>/dev/null";
	std::vector<std::string> out;
	std::unique_ptr<FILE, int (*)(FILE *)> p(popen(script, "r"), pclose);
	if (!p)
		return out;
	std::array<char, 4096> line{};
	while (fgets(line.data(), line.size(), p.get())) {
		std::string s(line.data());
		while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
			s.pop_back();
		if (!s.empty())
			out.push_back(s);
	}
	return out;
}

} // namespace

SearchConfig SearchConfig::from_environment(bool ask_python)
{
	namespace fs = std::filesystem;
	SearchConfig c;
	for (const char *v : {"ROCM_PATH", "HIP_PATH"})
		if (auto s = getenv_str(v); !s.empty())
			c.rocm_paths.push_back(s);
	c.rocm_paths.push_back("/opt/rocm");
	std::vector<std::string> versioned;
	std::error_code ec;
	for (const auto &e : fs::directory_iterator("/opt", ec)) {
		auto n = e.path().filename().string();
		if (n.rfind("rocm-", 0) == 0)
			versioned.push_back(e.path().string());
	}
	std::sort(versioned.rbegin(), versioned.rend()); // newest first (lexical is good enough for x.y.z of one width)
	c.rocm_paths.insert(c.rocm_paths.end(), versioned.begin(), versioned.end());
	for (const char *v : {"CUDA_PATH", "CUDA_HOME"})
		if (auto s = getenv_str(v); !s.empty())
			c.cuda_paths.push_back(s);
	c.cuda_paths.push_back("/usr/local/cuda");
	if (ask_python)
		c.python_lib_dirs = python_dirs();
	return c;
}

} // namespace rdnafix::gpu
