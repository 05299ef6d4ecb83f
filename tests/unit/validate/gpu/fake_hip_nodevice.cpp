// Fake libamdhip64 exporting every entry point rdnactl needs, behaving like
// the real HIP 6.4.3 runtime on a machine without a GPU (docs/rocm-facts.md
// §2: hipInit and hipGetDeviceCount return 100 hipErrorNoDevice, the version
// query still works).  Mock at the GPU boundary; the real runtime is tested
// in tests/rocm/run.sh.
// Built a second time with FAKE_DEVICE_COUNT: init succeeds and the count is
// that (impossible) number, as a broken runtime or shim might report.
extern "C" {
#ifdef FAKE_DEVICE_COUNT
int hipInit(unsigned)
{
	return 0;
}
int hipGetDeviceCount(int *n)
{
	*n = FAKE_DEVICE_COUNT;
	return 0;
}
#else
int hipInit(unsigned)
{
	return 100;
}
int hipGetDeviceCount(int *n)
{
	*n = 0;
	return 100;
}
#endif
int hipRuntimeGetVersion(int *v)
{
	*v = 60443484;
	return 0;
}
int hipDriverGetVersion(int *v)
{
	*v = 60443484;
	return 0;
}
const char *hipGetErrorName(int e)
{
	return e == 100 ? "hipErrorNoDevice" : "hipErrorUnknown";
}
const char *hipGetErrorString(int e)
{
	return e == 100 ? "no ROCm-capable device is detected" : "unknown error";
}
#define FAIL(name)                                                                                                     \
	int name()                                                                                                     \
	{                                                                                                              \
		return 100;                                                                                            \
	}
// clang-format off
FAIL(hipSetDevice)
FAIL(hipDeviceGetName)
FAIL(hipDeviceTotalMem)
FAIL(hipMalloc)
FAIL(hipFree)
FAIL(hipHostMalloc)
FAIL(hipHostFree)
FAIL(hipHostGetDevicePointer)
FAIL(hipMallocManaged)
FAIL(hipMemcpy)
FAIL(hipMemset)
FAIL(hipMemGetInfo)
FAIL(hipModuleLoadData)
FAIL(hipModuleUnload)
FAIL(hipModuleGetFunction)
FAIL(hipModuleLaunchKernel)
FAIL(hipEventCreate)
FAIL(hipEventRecord)
FAIL(hipEventSynchronize)
FAIL(hipEventElapsedTime)
FAIL(hipEventDestroy)
FAIL(hipDeviceSynchronize)
FAIL(hipGetLastError)
// clang-format on
}
