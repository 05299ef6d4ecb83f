// ------------------------------------------------------------------ capacity fill / verify
#if RDNA_IN_PART(8)
__device__ __forceinline__ unsigned rdna_pattern(rdna_u64 i, unsigned seed)
{
	unsigned v = (unsigned)i ^ (unsigned)(i >> 32) * 0x9e3779b9u ^ seed;
	v ^= v >> 16;
	v *= 0x7feb352du;
	v ^= v >> 15;
	v *= 0x846ca68bu;
	v ^= v >> 16;
	return v;
}

extern "C" __global__ void __launch_bounds__(256) fill_pattern(unsigned *__restrict__ p, rdna_u64 n, unsigned seed)
{
	for (rdna_u64 i = (rdna_u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (rdna_u64)gridDim.x * blockDim.x)
		p[i] = rdna_pattern(i, seed);
}

extern "C" __global__ void __launch_bounds__(256) verify_pattern(const unsigned *__restrict__ p, rdna_u64 n,
								  unsigned seed, rdna_u64 *__restrict__ bad)
{
	rdna_u64 mine = 0;
	for (rdna_u64 i = (rdna_u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (rdna_u64)gridDim.x * blockDim.x)
		if (p[i] != rdna_pattern(i, seed))
			++mine;
	if (mine)
		atomicAdd(bad, mine);
}
#endif
