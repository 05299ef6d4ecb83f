// CUDA driver-API entry-point table (libcuda.so.1), hand-written typedefs.
// Types: CUresult = int, CUdevice = int, CUdeviceptr = unsigned long long,
// handles are opaque pointers.  The primary context of the device is used.
#include <cstdio>
#include <cstring>

#include "driver.hpp"

namespace rdnafix::gpu {
namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_INTEGRATED = 18;
constexpr int CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33;
constexpr int CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34;
constexpr int CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr unsigned CU_MEMHOSTALLOC_PORTABLE = 0x1;
constexpr unsigned CU_MEMHOSTALLOC_DEVICEMAP = 0x2;
constexpr unsigned CU_MEMHOSTALLOC_WRITECOMBINED = 0x4;
constexpr unsigned CU_MEM_ATTACH_GLOBAL = 0x1;

struct CuTable {
	CUresult (*cuInit)(unsigned);
	CUresult (*cuDriverGetVersion)(int *);
	CUresult (*cuDeviceGetCount)(int *);
	CUresult (*cuDeviceGet)(int *, int);
	CUresult (*cuDeviceGetName)(char *, int, int);
	CUresult (*cuDeviceTotalMem_v2)(size_t *, int);
	CUresult (*cuDeviceGetAttribute)(int *, int, int);
	CUresult (*cuGetErrorName)(CUresult, const char **);
	CUresult (*cuGetErrorString)(CUresult, const char **);
	CUresult (*cuDevicePrimaryCtxRetain)(void **, int);
	CUresult (*cuDevicePrimaryCtxRelease_v2)(int);
	CUresult (*cuCtxSetCurrent)(void *);
	CUresult (*cuCtxSynchronize)();
	CUresult (*cuMemAlloc_v2)(CUdeviceptr *, size_t);
	CUresult (*cuMemFree_v2)(CUdeviceptr);
	CUresult (*cuMemHostAlloc)(void **, size_t, unsigned);
	CUresult (*cuMemFreeHost)(void *);
	CUresult (*cuMemHostGetDevicePointer_v2)(CUdeviceptr *, void *, unsigned);
	CUresult (*cuMemAllocManaged)(CUdeviceptr *, size_t, unsigned);
	CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr, const void *, size_t);
	CUresult (*cuMemcpyDtoH_v2)(void *, CUdeviceptr, size_t);
	CUresult (*cuMemcpyDtoD_v2)(CUdeviceptr, CUdeviceptr, size_t);
	CUresult (*cuMemsetD8_v2)(CUdeviceptr, unsigned char, size_t);
	CUresult (*cuMemGetInfo_v2)(size_t *, size_t *);
	CUresult (*cuModuleLoadData)(void **, const void *);
	CUresult (*cuModuleUnload)(void *);
	CUresult (*cuModuleGetFunction)(void **, void *, const char *);
	CUresult (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
				   void **, void **);
	CUresult (*cuFuncSetAttribute)(void *, int, int);
	CUresult (*cuEventCreate)(void **, unsigned);
	CUresult (*cuEventRecord)(void *, void *);
	CUresult (*cuEventSynchronize)(void *);
	CUresult (*cuEventElapsedTime)(float *, void *, void *);
	CUresult (*cuEventDestroy_v2)(void *);
};

template <typename F> void bind(const DlHandle &lib, F &fn, const char *name)
{
	fn = reinterpret_cast<F>(lib.sym(name));
}

class CudaDriver final : public Driver {
public:
	explicit CudaDriver(DlHandle lib) : lib_(std::move(lib))
	{
#define B(n) bind(lib_, t_.n, #n)
		B(cuInit);
		B(cuDriverGetVersion);
		B(cuDeviceGetCount);
		B(cuDeviceGet);
		B(cuDeviceGetName);
		B(cuDeviceTotalMem_v2);
		B(cuDeviceGetAttribute);
		B(cuGetErrorName);
		B(cuGetErrorString);
		B(cuDevicePrimaryCtxRetain);
		B(cuDevicePrimaryCtxRelease_v2);
		B(cuCtxSetCurrent);
		B(cuCtxSynchronize);
		B(cuMemAlloc_v2);
		B(cuMemFree_v2);
		B(cuMemHostAlloc);
		B(cuMemFreeHost);
		B(cuMemHostGetDevicePointer_v2);
		B(cuMemAllocManaged);
		B(cuMemcpyHtoD_v2);
		B(cuMemcpyDtoH_v2);
		B(cuMemcpyDtoD_v2);
		B(cuMemsetD8_v2);
		B(cuMemGetInfo_v2);
		B(cuModuleLoadData);
		B(cuModuleUnload);
		B(cuModuleGetFunction);
		B(cuLaunchKernel);
		B(cuFuncSetAttribute);
		B(cuEventCreate);
		B(cuEventRecord);
		B(cuEventSynchronize);
		B(cuEventElapsedTime);
		B(cuEventDestroy_v2);
#undef B
	}
	~CudaDriver() override
	{
		if (ctx_)
			t_.cuDevicePrimaryCtxRelease_v2(dev_);
	}

	Api api() const override
	{
		return Api::cuda;
	}
	int init_raw() override
	{
		return t_.cuInit(0);
	}
	int device_count_raw(int *n) override
	{
		return t_.cuDeviceGetCount(n);
	}
	int no_device_code() const override
	{
		return 100;
	} // CUDA_ERROR_NO_DEVICE
	int runtime_version() override
	{
		return driver_version();
	}
	int driver_version() override
	{
		int v = 0;
		return t_.cuDriverGetVersion(&v) == 0 ? v : 0;
	}
	std::string error_name(int code) override
	{
		const char *s = nullptr;
		if (t_.cuGetErrorName(code, &s) != 0 || !s)
			return "CUresult" + std::to_string(code);
		return s;
	}
	std::string error_text(int code) override
	{
		const char *s = nullptr;
		if (t_.cuGetErrorString(code, &s) != 0 || !s)
			return "";
		return s;
	}

	DeviceInfo device_info(int index) override
	{
		DeviceInfo d;
		d.index = index;
		int dev = 0;
		check(t_.cuDeviceGet(&dev, index), "cuDeviceGet");
		char name[256] = {};
		check(t_.cuDeviceGetName(name, sizeof(name) - 1, dev), "cuDeviceGetName");
		d.name = name;
		size_t total = 0;
		check(t_.cuDeviceTotalMem_v2(&total, dev), "cuDeviceTotalMem");
		d.total_bytes = total;
		auto attr = [&](int a) {
			int v = 0;
			check(t_.cuDeviceGetAttribute(&v, a, dev), "cuDeviceGetAttribute");
			return v;
		};
		d.arch = "sm_" + std::to_string(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)) +
			 std::to_string(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
		d.arch_full = d.arch;
		d.compute_units = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
		d.integrated = attr(CU_DEVICE_ATTRIBUTE_INTEGRATED) != 0;
		d.managed_memory = attr(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY) != 0;
		char bus[32];
		snprintf(bus, sizeof bus, "%04x:%02x:%02x.0", attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID) & 0xffff,
			 attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID) & 0xff, attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID) & 0x1f);
		d.pci_bus_id = bus;
		return d;
	}

	void open(int index) override
	{
		check(t_.cuDeviceGet(&dev_, index), "cuDeviceGet");
		check(t_.cuDevicePrimaryCtxRetain(&ctx_, dev_), "cuDevicePrimaryCtxRetain");
		check(t_.cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
	}

	bool supports(MemKind k, const DeviceInfo &d) const override
	{
		if (k == MemKind::managed)
			return d.managed_memory;
		return true;
	}

	void *alloc(MemKind k, size_t n, std::uint64_t *dev) override
	{
		switch (k) {
		case MemKind::device: {
			CUdeviceptr p = 0;
			check(t_.cuMemAlloc_v2(&p, n), "cuMemAlloc");
			*dev = p;
			return nullptr;
		}
		case MemKind::host_coherent:
		case MemKind::host_noncoherent: {
			unsigned fl = CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE |
				      (k == MemKind::host_noncoherent ? CU_MEMHOSTALLOC_WRITECOMBINED : 0);
			void *h = nullptr;
			check(t_.cuMemHostAlloc(&h, n, fl), "cuMemHostAlloc");
			CUdeviceptr d = 0;
			int e = t_.cuMemHostGetDevicePointer_v2(&d, h, 0);
			if (e) {
				t_.cuMemFreeHost(h);
				check(e, "cuMemHostGetDevicePointer");
			}
			*dev = d;
			return h;
		}
		case MemKind::managed: {
			CUdeviceptr p = 0;
			check(t_.cuMemAllocManaged(&p, n, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged");
			*dev = p;
			return reinterpret_cast<void *>(p);
		}
		case MemKind::pageable:
			break;
		}
		throw GpuError("alloc", -1, "pageable memory is allocated by the host, not the runtime");
	}

	void free(MemKind k, void *host, std::uint64_t dev) noexcept override
	{
		if (k == MemKind::host_coherent || k == MemKind::host_noncoherent)
			t_.cuMemFreeHost(host);
		else
			t_.cuMemFree_v2(dev);
	}

	void copy(CopyDir d, std::uint64_t dst, std::uint64_t src, size_t n) override
	{
		switch (d) {
		case CopyDir::h2d:
			check(t_.cuMemcpyHtoD_v2(dst, reinterpret_cast<const void *>(src), n), "cuMemcpyHtoD");
			break;
		case CopyDir::d2h:
			check(t_.cuMemcpyDtoH_v2(reinterpret_cast<void *>(dst), src, n), "cuMemcpyDtoH");
			break;
		case CopyDir::d2d:
			check(t_.cuMemcpyDtoD_v2(dst, src, n), "cuMemcpyDtoD");
			break;
		}
	}
	void memset_d8(std::uint64_t dst, unsigned char v, size_t n) override
	{
		check(t_.cuMemsetD8_v2(dst, v, n), "cuMemsetD8");
	}
	void mem_info(std::uint64_t *f, std::uint64_t *t) override
	{
		size_t a = 0, b = 0;
		check(t_.cuMemGetInfo_v2(&a, &b), "cuMemGetInfo");
		*f = a;
		*t = b;
	}

	void *module_load(const void *image) override
	{
		void *m = nullptr;
		check(t_.cuModuleLoadData(&m, image), "cuModuleLoadData");
		return m;
	}
	void module_unload(void *m) noexcept override
	{
		t_.cuModuleUnload(m);
	}
	void *module_function(void *m, const std::string &name) override
	{
		void *f = nullptr;
		check(t_.cuModuleGetFunction(&f, m, name.c_str()), ("cuModuleGetFunction(" + name + ")").c_str());
		return f;
	}
	void launch(void *f, Dim3 g, Dim3 b, unsigned shmem, void **args) override
	{
		check(t_.cuLaunchKernel(f, g.x, g.y, g.z, b.x, b.y, b.z, shmem, nullptr, args, nullptr),
		      "cuLaunchKernel");
	}
	void set_max_dynamic_shared(void *f, unsigned bytes) override
	{
		check(t_.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(bytes)),
		      "cuFuncSetAttribute");
	}

	void *event_create() override
	{
		void *e = nullptr;
		check(t_.cuEventCreate(&e, 0), "cuEventCreate");
		return e;
	}
	void event_destroy(void *e) noexcept override
	{
		t_.cuEventDestroy_v2(e);
	}
	void event_record(void *e) override
	{
		check(t_.cuEventRecord(e, nullptr), "cuEventRecord");
	}
	float event_elapsed_ms(void *a, void *b) override
	{
		check(t_.cuEventSynchronize(b), "cuEventSynchronize");
		float ms = 0;
		check(t_.cuEventElapsedTime(&ms, a, b), "cuEventElapsedTime");
		return ms;
	}
	void synchronize() override
	{
		check(t_.cuCtxSynchronize(), "cuCtxSynchronize");
	}

private:
	DlHandle lib_;
	CuTable t_{};
	int dev_ = 0;
	void *ctx_ = nullptr;
};

} // namespace

std::unique_ptr<Driver> make_cuda_driver(DlHandle lib)
{
	return std::make_unique<CudaDriver>(std::move(lib));
}

} // namespace rdnafix::gpu
