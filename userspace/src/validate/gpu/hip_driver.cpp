// HIP entry-point table (libamdhip64.so.{7,6,5}), hand-written typedefs.
// Types: hipError_t = int, hipDevice_t = int, handles are opaque pointers,
// hipDeviceptr_t = void*.  Constants from Debian's HIP 6.4.3 headers.
#include <cstring>
#include <vector>

#include "driver.hpp"

namespace rdnafix::gpu {
namespace {

using hipError = int;
constexpr int hipMemcpyHostToDevice = 1;
constexpr int hipMemcpyDeviceToHost = 2;
constexpr int hipMemcpyDeviceToDevice = 3;
constexpr unsigned hipHostMallocPortable = 0x1;
constexpr unsigned hipHostMallocMapped = 0x2;
constexpr unsigned hipHostMallocCoherent = 0x40000000;
constexpr unsigned hipHostMallocNonCoherent = 0x80000000;
constexpr unsigned hipMemAttachGlobal = 0x1;

// hipDeviceProp_tR0600: offsets 288 (totalGlobalMem), 584 (pciBusID) and 1160
// (gcnArchName) measured on Debian's 6.4.3 headers (docs/rocm-facts.md §2);
// the others follow the same CUDA-12-compatible prefix of that struct.
constexpr size_t kPropsSize = 1472;
constexpr size_t kOffMultiProcessorCount = 388;
constexpr size_t kOffIntegrated = 396;
constexpr size_t kOffPciBusId = 584;
constexpr size_t kOffPciDeviceId = 588;
constexpr size_t kOffPciDomainId = 592;
constexpr size_t kOffManagedMemory = 652;
constexpr size_t kOffGcnArchName = 1160;

struct HipTable {
	hipError (*hipInit)(unsigned);
	hipError (*hipGetDeviceCount)(int *);
	hipError (*hipRuntimeGetVersion)(int *);
	hipError (*hipDriverGetVersion)(int *);
	const char *(*hipGetErrorName)(hipError);
	const char *(*hipGetErrorString)(hipError);
	hipError (*hipSetDevice)(int);
	hipError (*hipDeviceGetName)(char *, int, int);
	hipError (*hipDeviceTotalMem)(size_t *, int);
	hipError (*hipGetDevicePropertiesR0600)(void *, int); // optional (HIP >= 6)
	hipError (*hipMalloc)(void **, size_t);
	hipError (*hipFree)(void *);
	hipError (*hipHostMalloc)(void **, size_t, unsigned);
	hipError (*hipHostFree)(void *);
	hipError (*hipHostGetDevicePointer)(void **, void *, unsigned);
	hipError (*hipMallocManaged)(void **, size_t, unsigned);
	hipError (*hipMemcpy)(void *, const void *, size_t, int);
	hipError (*hipMemset)(void *, int, size_t);
	hipError (*hipMemGetInfo)(size_t *, size_t *);
	hipError (*hipModuleLoadData)(void **, const void *);
	hipError (*hipModuleUnload)(void *);
	hipError (*hipModuleGetFunction)(void **, void *, const char *);
	hipError (*hipModuleLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
					  void *, void **, void **);
	hipError (*hipEventCreate)(void **);
	hipError (*hipEventRecord)(void *, void *);
	hipError (*hipEventSynchronize)(void *);
	hipError (*hipEventElapsedTime)(float *, void *, void *);
	hipError (*hipEventDestroy)(void *);
	hipError (*hipDeviceSynchronize)();
	hipError (*hipGetLastError)();
};

template <typename F> void bind(const DlHandle &lib, F &fn, const char *name)
{
	fn = reinterpret_cast<F>(lib.sym(name));
}

class HipDriver final : public Driver {
public:
	explicit HipDriver(DlHandle lib) : lib_(std::move(lib))
	{
#define B(n) bind(lib_, t_.n, #n)
		B(hipInit);
		B(hipGetDeviceCount);
		B(hipRuntimeGetVersion);
		B(hipDriverGetVersion);
		B(hipGetErrorName);
		B(hipGetErrorString);
		B(hipSetDevice);
		B(hipDeviceGetName);
		B(hipDeviceTotalMem);
		B(hipGetDevicePropertiesR0600);
		B(hipMalloc);
		B(hipFree);
		B(hipHostMalloc);
		B(hipHostFree);
		B(hipHostGetDevicePointer);
		B(hipMallocManaged);
		B(hipMemcpy);
		B(hipMemset);
		B(hipMemGetInfo);
		B(hipModuleLoadData);
		B(hipModuleUnload);
		B(hipModuleGetFunction);
		B(hipModuleLaunchKernel);
		B(hipEventCreate);
		B(hipEventRecord);
		B(hipEventSynchronize);
		B(hipEventElapsedTime);
		B(hipEventDestroy);
		B(hipDeviceSynchronize);
		B(hipGetLastError);
#undef B
	}

	Api api() const override
	{
		return Api::hip;
	}
	int init_raw() override
	{
		return t_.hipInit(0);
	}
	int device_count_raw(int *n) override
	{
		return t_.hipGetDeviceCount(n);
	}
	int no_device_code() const override
	{
		return 100;
	} // hipErrorNoDevice
	int runtime_version() override
	{
		int v = 0;
		return t_.hipRuntimeGetVersion(&v) == 0 ? v : 0;
	}
	int driver_version() override
	{
		int v = 0;
		return t_.hipDriverGetVersion(&v) == 0 ? v : 0;
	}
	std::string error_name(int code) override
	{
		const char *s = t_.hipGetErrorName(code);
		return s ? s : "hipError" + std::to_string(code);
	}
	std::string error_text(int code) override
	{
		const char *s = t_.hipGetErrorString(code);
		return s ? s : "";
	}

	DeviceInfo device_info(int index) override
	{
		DeviceInfo d;
		d.index = index;
		char name[256] = {};
		check(t_.hipDeviceGetName(name, sizeof(name) - 1, index), "hipDeviceGetName");
		d.name = name;
		size_t total = 0;
		check(t_.hipDeviceTotalMem(&total, index), "hipDeviceTotalMem");
		d.total_bytes = total;
		if (t_.hipGetDevicePropertiesR0600) {
			std::vector<unsigned char> p(kPropsSize + 4096, 0); // generous: newer runtimes may append
			check(t_.hipGetDevicePropertiesR0600(p.data(), index), "hipGetDevicePropertiesR0600");
			auto i32 = [&](size_t off) {
				int v;
				std::memcpy(&v, p.data() + off, sizeof v);
				return v;
			};
			const char *arch = reinterpret_cast<const char *>(p.data() + kOffGcnArchName);
			d.arch_full.assign(arch, strnlen(arch, 255));
			if (d.arch_full.rfind("gfx", 0) != 0)
				d.arch_full.clear(); // layout not as expected: do not guess
			d.arch = d.arch_full.substr(0, d.arch_full.find(':'));
			d.compute_units = i32(kOffMultiProcessorCount);
			d.integrated = i32(kOffIntegrated) != 0;
			d.managed_memory = i32(kOffManagedMemory) != 0;
			char bus[32];
			snprintf(bus, sizeof bus, "%04x:%02x:%02x.0", i32(kOffPciDomainId) & 0xffff,
				 i32(kOffPciBusId) & 0xff, i32(kOffPciDeviceId) & 0x1f);
			d.pci_bus_id = bus;
		}
		return d;
	}

	void open(int index) override
	{
		check(t_.hipSetDevice(index), "hipSetDevice");
	}

	bool supports(MemKind k, const DeviceInfo &d) const override
	{
		if (k == MemKind::managed)
			return d.managed_memory;
		return true;
	}

	void *alloc(MemKind k, size_t n, std::uint64_t *dev) override
	{
		void *p = nullptr;
		switch (k) {
		case MemKind::device:
			check(t_.hipMalloc(&p, n), "hipMalloc");
			*dev = reinterpret_cast<std::uint64_t>(p);
			return nullptr;
		case MemKind::host_coherent:
		case MemKind::host_noncoherent: {
			unsigned fl = hipHostMallocMapped | hipHostMallocPortable |
				      (k == MemKind::host_coherent ? hipHostMallocCoherent : hipHostMallocNonCoherent);
			check(t_.hipHostMalloc(&p, n, fl), "hipHostMalloc");
			void *d = nullptr;
			int e = t_.hipHostGetDevicePointer(&d, p, 0);
			if (e) {
				t_.hipHostFree(p);
				check(e, "hipHostGetDevicePointer");
			}
			*dev = reinterpret_cast<std::uint64_t>(d);
			return p;
		}
		case MemKind::managed:
			check(t_.hipMallocManaged(&p, n, hipMemAttachGlobal), "hipMallocManaged");
			*dev = reinterpret_cast<std::uint64_t>(p);
			return p;
		case MemKind::pageable:
			break;
		}
		throw GpuError("alloc", -1, "pageable memory is allocated by the host, not the runtime");
	}

	void free(MemKind k, void *host, std::uint64_t dev) noexcept override
	{
		if (k == MemKind::host_coherent || k == MemKind::host_noncoherent)
			t_.hipHostFree(host);
		else
			t_.hipFree(reinterpret_cast<void *>(dev));
	}

	void copy(CopyDir d, std::uint64_t dst, std::uint64_t src, size_t n) override
	{
		int kind = d == CopyDir::h2d   ? hipMemcpyHostToDevice
			   : d == CopyDir::d2h ? hipMemcpyDeviceToHost
					       : hipMemcpyDeviceToDevice;
		check(t_.hipMemcpy(reinterpret_cast<void *>(dst), reinterpret_cast<const void *>(src), n, kind),
		      "hipMemcpy");
	}
	void memset_d8(std::uint64_t dst, unsigned char v, size_t n) override
	{
		check(t_.hipMemset(reinterpret_cast<void *>(dst), v, n), "hipMemset");
	}
	void mem_info(std::uint64_t *f, std::uint64_t *t) override
	{
		size_t a = 0, b = 0;
		check(t_.hipMemGetInfo(&a, &b), "hipMemGetInfo");
		*f = a;
		*t = b;
	}

	void *module_load(const void *image) override
	{
		void *m = nullptr;
		check(t_.hipModuleLoadData(&m, image), "hipModuleLoadData");
		return m;
	}
	void module_unload(void *m) noexcept override
	{
		t_.hipModuleUnload(m);
	}
	void *module_function(void *m, const std::string &name) override
	{
		void *f = nullptr;
		check(t_.hipModuleGetFunction(&f, m, name.c_str()), ("hipModuleGetFunction(" + name + ")").c_str());
		return f;
	}
	void launch(void *f, Dim3 g, Dim3 b, unsigned shmem, void **args) override
	{
		check(t_.hipModuleLaunchKernel(f, g.x, g.y, g.z, b.x, b.y, b.z, shmem, nullptr, args, nullptr),
		      "hipModuleLaunchKernel");
	}
	void set_max_dynamic_shared(void *, unsigned) override {}

	void *event_create() override
	{
		void *e = nullptr;
		check(t_.hipEventCreate(&e), "hipEventCreate");
		return e;
	}
	void event_destroy(void *e) noexcept override
	{
		t_.hipEventDestroy(e);
	}
	void event_record(void *e) override
	{
		check(t_.hipEventRecord(e, nullptr), "hipEventRecord");
	}
	float event_elapsed_ms(void *a, void *b) override
	{
		check(t_.hipEventSynchronize(b), "hipEventSynchronize");
		float ms = 0;
		check(t_.hipEventElapsedTime(&ms, a, b), "hipEventElapsedTime");
		return ms;
	}
	void synchronize() override
	{
		check(t_.hipDeviceSynchronize(), "hipDeviceSynchronize");
		check(t_.hipGetLastError(), "hipGetLastError");
	}

private:
	DlHandle lib_;
	HipTable t_{};
};

} // namespace

std::unique_ptr<Driver> make_hip_driver(DlHandle lib)
{
	return std::make_unique<HipDriver>(std::move(lib));
}

} // namespace rdnafix::gpu
