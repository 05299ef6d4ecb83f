#pragma once
// The table of entry points that is the only difference between the HIP
// and the CUDA backend.  Implementations: hip_driver.cpp, cuda_driver.cpp.
// Methods throw GpuError unless they return a raw code (the *_raw ones, used
// by probe() to classify "no device").
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "backend.hpp"
#include "loader.hpp"

namespace rdnafix::gpu {

enum class CopyDir { h2d, d2h, d2d };

class Driver {
public:
	virtual ~Driver() = default;
	virtual Api api() const = 0;

	virtual int init_raw() = 0;               // hipInit(0) / cuInit(0)
	virtual int device_count_raw(int *n) = 0; // hipGetDeviceCount / cuDeviceGetCount
	virtual int no_device_code() const = 0;   // 100 for both
	virtual int runtime_version() = 0;
	virtual int driver_version() = 0;
	virtual std::string error_name(int code) = 0;
	virtual std::string error_text(int code) = 0;
	virtual DeviceInfo device_info(int index) = 0;

	virtual void open(int index) = 0; // make the device current (context)
	virtual bool supports(MemKind k, const DeviceInfo &d) const = 0;
	// Returns the host pointer (nullptr for device memory); *dev = kernel address.
	virtual void *alloc(MemKind k, std::size_t n, std::uint64_t *dev) = 0;
	virtual void free(MemKind k, void *host, std::uint64_t dev) noexcept = 0;
	virtual void copy(CopyDir d, std::uint64_t dst, std::uint64_t src, std::size_t n) = 0;
	virtual void memset_d8(std::uint64_t dst, unsigned char v, std::size_t n) = 0;
	virtual void mem_info(std::uint64_t *free_b, std::uint64_t *total_b) = 0;

	virtual void *module_load(const void *image) = 0;
	virtual void module_unload(void *m) noexcept = 0;
	virtual void *module_function(void *m, const std::string &name) = 0;
	virtual void launch(void *f, Dim3 g, Dim3 b, unsigned shmem, void **args) = 0;
	virtual void set_max_dynamic_shared(void *f, unsigned bytes) = 0;

	virtual void *event_create() = 0;
	virtual void event_destroy(void *e) noexcept = 0;
	virtual void event_record(void *e) = 0;
	virtual float event_elapsed_ms(void *start, void *stop) = 0;
	virtual void synchronize() = 0;

protected:
	// Throws GpuError("call", code, "<name> (<text>)") when code != 0.
	void check(int code, const char *call);
};

// `lib` must have passed DlHandle::open with the matching symbol list.
std::unique_ptr<Driver> make_hip_driver(DlHandle lib);
std::unique_ptr<Driver> make_cuda_driver(DlHandle lib);

} // namespace rdnafix::gpu
