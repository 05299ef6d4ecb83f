#pragma once
// GPU runtime boundary of `rdnactl validate`.
//
// The HIP runtime (libamdhip64 + hiprtc + comgr) or the CUDA driver API
// (libcuda.so.1 + libnvrtc) is loaded with dlopen at run time through
// hand-written typedefs: building rdnactl needs no GPU SDK.  The two runtimes
// differ only in a table of entry points (class Driver in driver.hpp); the
// kernel source text is the same for both (kernels/*.cu).
//
// Errors: every call that can fail throws GpuError (runtime error code, its
// name/text, and which call failed).  probe() never throws: it reports.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model.hpp"

namespace rdnafix::gpu {

enum class Api { hip, cuda };
const char *api_name(Api api); // "HIP" / "CUDA"

// ---------------------------------------------------------------- errors
class GpuError : public std::runtime_error {
public:
	GpuError(std::string call, int code, std::string text);
	const std::string &call() const { return call_; }
	int code() const { return code_; } // hipError_t / CUresult / hiprtc / nvrtc code
	const std::string &text() const { return text_; }

private:
	std::string call_;
	int code_;
	std::string text_;
};

// ---------------------------------------------------------------- loading
// Where to look.  Defaults come from the environment (from_environment());
// tests build one by hand so nothing depends on the machine.
struct SearchConfig {
	std::optional<std::string> explicit_dir; // searched first, alone if `only_explicit` (tests, tools)
	bool only_explicit = false;
	std::vector<std::string> rocm_paths;      // $ROCM_PATH, /opt/rocm, /opt/rocm-* (newest first)
	std::vector<std::string> cuda_paths;      // $CUDA_PATH/$CUDA_HOME, /usr/local/cuda
	std::vector<std::string> python_lib_dirs; // torch/lib, _rocm_sdk_core/lib, nvidia/*/lib from python3
	std::string multiarch_dir = "/usr/lib/x86_64-linux-gnu";
	bool use_system_search = true; // finally plain sonames (ld.so cache, LD_LIBRARY_PATH)

	// $ROCM_PATH, $CUDA_PATH, /opt/rocm*, and (if ask_python) the dirs
	// `python3` reports for torch / _rocm_sdk_core / nvidia wheels.
	static SearchConfig from_environment(bool ask_python);
};

// One dlopen attempt, in order.  `detail` is dlerror() text, or
// "missing symbol hipFoo" when the library opened but lacks an entry point.
struct LoadAttempt {
	std::string what; // "runtime", "rtc", "comgr"
	std::string path; // absolute path or bare soname
	bool ok = false;
	std::string detail;
};

struct DeviceInfo {
	int index = 0;
	std::string name;      // "AMD Radeon RX 6700 XT" / "NVIDIA H200"
	std::string arch;      // "gfx1031" (gcnArchName without features) / "sm_90"
	std::string arch_full; // "gfx1031:xnack-" / "sm_90"
	std::uint64_t total_bytes = 0;
	std::uint64_t free_bytes = 0; // at probe time, 0 if unknown
	bool integrated = false;      // APU / iGPU: shares system memory
	bool managed_memory = false;  // runtime reports managed/HMM support
	int compute_units = 0;        // CUs / SMs
	std::string pci_bus_id;       // "0000:03:00.0" when known
};

enum class ProbeState {
	no_runtime,        // no usable runtime library anywhere we looked
	runtime_no_device, // library loaded, init/device count says no device (e.g. hipErrorNoDevice = 100)
	init_failed,       // library loaded, init failed with another error
	ok,
};

struct ProbeResult {
	Api api = Api::hip;
	ProbeState state = ProbeState::no_runtime;
	std::vector<LoadAttempt> attempts; // EVERY path tried (runtime, rtc, comgr)
	std::string runtime_path;          // the library actually used
	std::string rtc_path;              // hiprtc / nvrtc used ("" = none found)
	std::string comgr_path;            // HIP only
	int runtime_version = 0;           // hipRuntimeGetVersion / cuDriverGetVersion
	int driver_version = 0;            // hipDriverGetVersion / cuDriverGetVersion
	std::string
		rtc_version; // "12.8" (nvrtcVersion); hiprtc's is a constant 9.0, so the HIP runtime version is used
	int init_error = 0;  // when state != ok
	std::string init_error_name; // "hipErrorNoDevice"
	std::string init_error_text; // "no ROCm-capable device is detected"
	std::vector<DeviceInfo> devices;

	// Multi-line human text: what was found, or "no HIP runtime found; looked
	// in: <every path>" / "HIP runtime 6.4.43484 (<path>) but no device:
	// hipInit: 100 hipErrorNoDevice (no ROCm-capable device is detected)".
	std::string describe() const;
};

// A device count above this (or below 0) from a runtime is a runtime error,
// not a count.
inline constexpr int kMaxDeviceCount = 1024;

// Probe one API; never throws.  `cfg` decides where to look.
ProbeResult probe(Api api, const SearchConfig &cfg);

// ---------------------------------------------------------------- run-time compilation
struct CompileRequest {
	std::string source;                    // kernel source text (same for HIP and CUDA)
	std::vector<std::string> kernel_names; // extern "C" names that must be in the result
	std::string target;                    // "gfx1031", "gfx1010:xnack-", "sm_90"
	std::vector<std::string> options;      // extra options (e.g. "-O3")
};

struct CompileResult {
	std::vector<std::uint8_t> code; // HIP: AMDGPU ELF code object; CUDA: cubin (ELF)
	std::string log;                // compiler log (may be non-empty on success)
	bool from_cache = false;
	std::string cache_file; // where it was (or would be) cached; "" if caching off
	double seconds = 0;     // wall time of the compile (0 when cached)
};

// Cache key: pure function of (source hash, target, options, runtime
// version).  Hex string, stable across runs and machines.
std::string compile_cache_key(Api api, const CompileRequest &req, const std::string &runtime_version);
// $XDG_CACHE_HOME/rdnafix/kernels, else $HOME/.cache/rdnafix/kernels; "" if neither is set.
std::string default_cache_dir(const char *xdg_cache_home, const char *home);

// The run-time compiler; usable without a device (HIP compiles offline).
class Rtc {
public:
	virtual ~Rtc() = default;
	virtual Api api() const = 0;
	// HIP: comgr's ISA list (e.g. 51 names on comgr 3.0); CUDA: nvrtcGetSupportedArchs as "sm_NN".
	virtual std::vector<std::string> supported_targets() const = 0;
	// Throws GpuError for: unknown target (checked BEFORE calling the
	// compiler, hiprtc aborts on those), compile errors (with log), and a
	// compiler child that died by a signal ("hiprtc crashed: SIGSEGV").
	// HIP compiles run in a forked child; results are cached when cache_dir != "".
	virtual CompileResult compile(const CompileRequest &req) = 0;
	virtual std::string version() const = 0; // part of the cache key

	void set_cache_dir(std::string dir) { cache_dir_ = std::move(dir); }
	const std::string &cache_dir() const { return cache_dir_; }
	void set_fork_timeout_s(int s) { fork_timeout_s_ = s; }
	// Tests only: skip the comgr/NVRTC target list check to exercise the
	// forked child against a compiler that aborts.
	void set_check_targets(bool on) { check_targets_ = on; }

protected:
	std::string cache_dir_;
	int fork_timeout_s_ = 300;
	bool check_targets_ = true;
};

// Load the compiler of `api` (hiprtc + comgr / nvrtc) from where probe found
// it.  Returns nullptr and appends to `*why` when it cannot.
std::unique_ptr<Rtc> load_rtc(const ProbeResult &probe, const SearchConfig &cfg, std::string *why);

// ---------------------------------------------------------------- memory
// The memory kind is the validate model's (model.hpp: what each kind maps to
// in HIP and CUDA); the runtime boundary uses it under this name.
using validate::MemKind;
using validate::memkind_name;
using validate::parse_memkind;

class Driver; // the entry-point table, driver.hpp

// RAII allocation.  device_ptr(): address kernels use; host_ptr(): CPU
// address (nullptr for MemKind::device).  Move-only; frees on destruction.
class Buffer {
public:
	Buffer() = default;
	Buffer(Driver *drv, MemKind kind, std::size_t bytes, void *host, std::uint64_t dev);
	Buffer(Buffer &&o) noexcept;
	Buffer &operator=(Buffer &&o) noexcept;
	Buffer(const Buffer &) = delete;
	Buffer &operator=(const Buffer &) = delete;
	~Buffer();

	MemKind kind() const { return kind_; }
	std::size_t bytes() const { return bytes_; }
	void *host_ptr() const { return host_; }
	std::uint64_t device_ptr() const { return dev_; }
	explicit operator bool() const { return bytes_ != 0; }

private:
	void release() noexcept;
	Driver *drv_ = nullptr;
	MemKind kind_ = MemKind::device;
	std::size_t bytes_ = 0;
	void *host_ = nullptr;
	std::uint64_t dev_ = 0;
};

// RAII event (hipEvent_t / CUevent).
class Event {
public:
	Event() = default;
	Event(Driver *drv, void *ev) : drv_(drv), ev_(ev) {}
	Event(Event &&o) noexcept;
	Event &operator=(Event &&o) noexcept;
	Event(const Event &) = delete;
	Event &operator=(const Event &) = delete;
	~Event();
	void *raw() const { return ev_; }

private:
	Driver *drv_ = nullptr;
	void *ev_ = nullptr;
};

// RAII loaded module (hipModule_t / CUmodule) and a function in it.
struct Function {
	void *raw = nullptr;
	std::string name;
};
class Module {
public:
	Module() = default;
	Module(Driver *drv, void *mod) : drv_(drv), mod_(mod) {}
	Module(Module &&o) noexcept;
	Module &operator=(Module &&o) noexcept;
	Module(const Module &) = delete;
	Module &operator=(const Module &) = delete;
	~Module();
	Function function(const std::string &name) const; // throws GpuError if absent
	void *raw() const { return mod_; }

private:
	Driver *drv_ = nullptr;
	void *mod_ = nullptr;
};

struct Dim3 {
	unsigned x = 1, y = 1, z = 1;
};

// ---------------------------------------------------------------- the backend
// One device of one runtime, with a context current on the calling thread.
// All operations are on the default (null) stream.
class Backend {
public:
	// Opens device `index` of the runtime probe found.  Throws GpuError
	// when probe.state != ok or the device cannot be opened.
	static std::unique_ptr<Backend> open(const ProbeResult &probe, int index);
	~Backend();
	Backend(const Backend &) = delete;
	Backend &operator=(const Backend &) = delete;

	Api api() const;
	const DeviceInfo &device() const { return dev_; }
	const ProbeResult &probe() const { return probe_; }

	bool supports(MemKind k) const;                     // e.g. managed off when the device says so
	Buffer alloc(MemKind k, std::size_t bytes);         // throws GpuError (hipErrorOutOfMemory = 2 ...)
	std::pair<std::uint64_t, std::uint64_t> mem_info(); // free, total

	// Synchronous copies; `dst`/`src` are device addresses (Buffer::device_ptr()) or host pointers.
	void copy_h2d(std::uint64_t dst, const void *src, std::size_t n);
	void copy_d2h(void *dst, std::uint64_t src, std::size_t n);
	void copy_d2d(std::uint64_t dst, std::uint64_t src, std::size_t n);
	void memset_d8(std::uint64_t dst, unsigned char v, std::size_t n);

	Module load_module(const std::vector<std::uint8_t> &code);
	// args: pointers to each argument value, like hipModuleLaunchKernel/cuLaunchKernel.
	void launch(const Function &f, Dim3 grid, Dim3 block, unsigned shared_bytes, void **args);
	void set_max_dynamic_shared(const Function &f, unsigned bytes); // no-op on HIP

	Event event();
	void record(const Event &e);
	float elapsed_ms(const Event &start, const Event &stop); // synchronises on stop
	void synchronize();                                      // device/context synchronise; throws on async errors
	std::string error_string(int code) const;

	Driver &driver() { return *drv_; }

private:
	Backend() = default;
	std::unique_ptr<Driver> drv_;
	ProbeResult probe_;
	DeviceInfo dev_;
};

} // namespace rdnafix::gpu
