#pragma once
// dlopen side of the GPU boundary: where to look (pure functions, tested) and
// opening a library while checking it has every entry point we need.
#include <string>
#include <vector>

#include "backend.hpp"

namespace rdnafix::gpu {

// RAII dlopen handle.  Opened RTLD_NOW|RTLD_LOCAL|RTLD_NODELETE: GPU runtimes
// register exit handlers and must never be unmapped.
class DlHandle {
public:
	DlHandle() = default;
	explicit DlHandle(void *h, std::string path) : h_(h), path_(std::move(path)) {}
	DlHandle(DlHandle &&o) noexcept;
	DlHandle &operator=(DlHandle &&o) noexcept;
	DlHandle(const DlHandle &) = delete;
	DlHandle &operator=(const DlHandle &) = delete;
	~DlHandle();

	explicit operator bool() const { return h_ != nullptr; }
	void *sym(const char *name) const; // nullptr if absent
	const std::string &path() const { return path_; }

	// Open `path` and check `required` symbols.  Appends one LoadAttempt.
	// Returns an empty handle on failure.
	static DlHandle open(const std::string &what, const std::string &path, const std::vector<std::string> &required,
			     std::vector<LoadAttempt> &log, bool global = false);

private:
	void *h_ = nullptr;
	std::string path_;
};

// Ordered candidate lists (absolute paths first, then bare sonames when
// cfg.use_system_search).  Pure: no file-system access.
std::vector<std::string> runtime_candidates(Api api, const SearchConfig &cfg);
// Compiler library candidates, `runtime_path`'s directory first so runtime,
// hiprtc and comgr come from one installation.
std::vector<std::string> rtc_candidates(Api api, const SearchConfig &cfg, const std::string &runtime_path);
std::vector<std::string> comgr_candidates(const SearchConfig &cfg, const std::string &runtime_path);

std::string dir_of(const std::string &path); // "" for a bare soname

// What the first bytes of the file at `path` say when they explain a failed
// dlopen: "" when it cannot be read or is an ELF this process can load, else
// e.g. "not an ELF file (text: a linker script?)", "a 32-bit ELF
// (ELFCLASS32); rdnactl is 64-bit", "an ELF for aarch64 (e_machine 183);
// rdnactl runs on x86_64".
std::string elf_mismatch(const std::string &path);
// Pure: the words for a failed dlopen of `path`, from dlerror()'s text and
// elf_mismatch(path).  glibc says "No such file or directory" also for an ELF
// of another architecture; only a file that is not there is "not found".
std::string describe_dlopen_error(const std::string &path, std::string err, const std::string &mismatch);

// Entry points each library must export (the loader refuses a library that
// lacks one and says which).
const std::vector<std::string> &hip_runtime_symbols();
const std::vector<std::string> &cuda_driver_symbols();
const std::vector<std::string> &hiprtc_symbols();
const std::vector<std::string> &nvrtc_symbols();
const std::vector<std::string> &comgr_symbols();

} // namespace rdnafix::gpu
