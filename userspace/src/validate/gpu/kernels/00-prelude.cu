// rdnafix validation kernels.  ONE source for HIP (hiprtc) and CUDA (NVRTC):
// only constructs both accept, plus the small prelude below.  No #include:
// hiprtc pre-includes the HIP device headers, NVRTC has the builtins.
// Every kernel is extern "C" so the host finds it by its plain name.

// ------------------------------------------------------------------ prelude
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define RDNA_CUDA 1
__device__ __forceinline__ float rdna_h2f(unsigned short h)
{
	float f;
	asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
	return f;
}
__device__ __forceinline__ unsigned short rdna_f2h(float f)
{
	unsigned short h;
	asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
	return h;
}
#else
__device__ __forceinline__ float rdna_h2f(unsigned short h)
{
	return (float)__builtin_bit_cast(_Float16, h);
}
__device__ __forceinline__ unsigned short rdna_f2h(float f)
{
	return __builtin_bit_cast(unsigned short, (_Float16)f);
}
#endif

typedef unsigned long long rdna_u64;

// Compile parts: on CUDA rdnactl compiles the kernels as several programs at
// once, one thread each, with -DRDNA_PART=<n> (gpu/session.cpp: kernel_part
// says which part holds which kernel); without RDNA_PART every kernel is in.
#ifdef RDNA_PART
#define RDNA_IN_PART(n) (RDNA_PART == (n))
#else
#define RDNA_IN_PART(n) 1
#endif

__device__ __forceinline__ float rdna_load(const float *p, long long i) { return p[i]; }
__device__ __forceinline__ float rdna_load(const unsigned short *p, long long i) { return rdna_h2f(p[i]); }
__device__ __forceinline__ void rdna_store(float *p, long long i, float v) { p[i] = v; }
__device__ __forceinline__ void rdna_store(unsigned short *p, long long i, float v) { p[i] = rdna_f2h(v); }

