// ------------------------------------------------------------------ stream (BabelStream-style, fp64)
// Each thread handles 4 elements blockDim apart (coalesced, 4 loads in flight).
#define STREAM_UNROLL 4
#if RDNA_IN_PART(8)
extern "C" __global__ void __launch_bounds__(256) stream_copy(const double *__restrict__ a, double *__restrict__ c,
							       rdna_u64 n)
{
	rdna_u64 base = (rdna_u64)blockIdx.x * blockDim.x * STREAM_UNROLL + threadIdx.x;
	double v[STREAM_UNROLL];
#pragma unroll
	for (int u = 0; u < STREAM_UNROLL; ++u) {
		rdna_u64 i = base + (rdna_u64)u * blockDim.x;
		v[u] = i < n ? a[i] : 0.0;
	}
#pragma unroll
	for (int u = 0; u < STREAM_UNROLL; ++u) {
		rdna_u64 i = base + (rdna_u64)u * blockDim.x;
		if (i < n)
			c[i] = v[u];
	}
}

extern "C" __global__ void __launch_bounds__(256) stream_triad(double *__restrict__ a, const double *__restrict__ b,
								const double *__restrict__ c, double scalar, rdna_u64 n)
{
	rdna_u64 base = (rdna_u64)blockIdx.x * blockDim.x * STREAM_UNROLL + threadIdx.x;
	double vb[STREAM_UNROLL], vc[STREAM_UNROLL];
#pragma unroll
	for (int u = 0; u < STREAM_UNROLL; ++u) {
		rdna_u64 i = base + (rdna_u64)u * blockDim.x;
		vb[u] = i < n ? b[i] : 0.0;
		vc[u] = i < n ? c[i] : 0.0;
	}
#pragma unroll
	for (int u = 0; u < STREAM_UNROLL; ++u) {
		rdna_u64 i = base + (rdna_u64)u * blockDim.x;
		if (i < n)
			a[i] = vb[u] + scalar * vc[u];
	}
}

extern "C" __global__ void __launch_bounds__(256) stream_init(double *__restrict__ a, double *__restrict__ b,
							       double *__restrict__ c, double va, double vb, double vc,
							       rdna_u64 n)
{
	for (rdna_u64 i = (rdna_u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (rdna_u64)gridDim.x * blockDim.x) {
		a[i] = va;
		b[i] = vb;
		c[i] = vc;
	}
}

// Counts elements of p that differ from `expect` by more than tol.
extern "C" __global__ void __launch_bounds__(256) stream_check(const double *__restrict__ p, double expect, double tol,
								rdna_u64 n, rdna_u64 *__restrict__ bad)
{
	rdna_u64 mine = 0;
	for (rdna_u64 i = (rdna_u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (rdna_u64)gridDim.x * blockDim.x) {
		double d = p[i] - expect;
		if (!(d <= tol && d >= -tol))
			++mine;
	}
	if (mine)
		atomicAdd(bad, mine);
}
#endif
