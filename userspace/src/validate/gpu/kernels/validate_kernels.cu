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

__device__ __forceinline__ float rdna_load(const float *p, long long i) { return p[i]; }
__device__ __forceinline__ float rdna_load(const unsigned short *p, long long i) { return rdna_h2f(p[i]); }
__device__ __forceinline__ void rdna_store(float *p, long long i, float v) { p[i] = v; }
__device__ __forceinline__ void rdna_store(unsigned short *p, long long i, float v) { p[i] = rdna_f2h(v); }

// ------------------------------------------------------------------ conv2d, implicit GEMM
// Per group g: Y[m][col] = sum_kr W[m][kr] * X(kr, col), m < Kg output channels
// of the group, col = (n, p, q) flattened, kr = (c, r, s) flattened over the
// group's Cg input channels.  Block tile TM x 128 (output channels x pixels),
// reduction slices of 8, double-buffered shared memory, a register tile of
// (TM/16) x 8 per thread.  RK = kernel size (compile time) or 0 = run time.
#define CONV_THREADS 256
#define CONV_TN 128
#define CONV_BK 8

template <typename T, int RK, int TM>
__device__ __forceinline__ void conv2d_gemm(const T *__restrict__ x, const T *__restrict__ w, const T *__restrict__ bias,
					    T *__restrict__ y, int N, int C, int H, int W, int K, int P, int Q, int R_rt,
					    int S_rt, int sh, int sw, int ph, int pw, int dh, int dw, int groups,
					    int has_bias)
{
	const int R = RK ? RK : R_rt;
	const int S = RK ? RK : S_rt;
	const int RS = R * S;
	const int Cg = C / groups, Kg = K / groups;
	const int Kred = Cg * RS;
	const int PQ = P * Q;
	const long long NPQ = (long long)N * PQ;
	const int g = blockIdx.z;
	const int m0 = blockIdx.y * TM;
	const long long col0 = (long long)blockIdx.x * CONV_TN;
	const int t = threadIdx.x;
	const int MI = TM / 16; // output channels per thread

	__shared__ __attribute__((aligned(16))) float As[2][CONV_BK][TM + 4];
	__shared__ __attribute__((aligned(16))) float Bs[2][CONV_BK][CONV_TN];

	// B loader: fixed column per thread, rows brow0 + 2*j.
	const int bcol = t % CONV_TN;
	const int brow0 = t / CONV_TN;
	const long long col = col0 + bcol;
	const bool col_ok = col < NPQ;
	int ih0 = 0, iw0 = 0;
	const T *xg = x;
	if (col_ok) {
		int n = (int)(col / PQ);
		int pq = (int)(col - (long long)n * PQ);
		int p = pq / Q, q = pq - (pq / Q) * Q;
		ih0 = p * sh - ph;
		iw0 = q * sw - pw;
		xg = x + ((long long)n * C + (long long)g * Cg) * H * W;
	}
	const T *wg = w + (long long)g * Kg * Kred;

	float ra[(TM * CONV_BK + CONV_THREADS - 1) / CONV_THREADS];
	float rb[CONV_BK * CONV_TN / CONV_THREADS];
	const int NA = (TM * CONV_BK + CONV_THREADS - 1) / CONV_THREADS;
	const int NB = CONV_BK * CONV_TN / CONV_THREADS;

	float acc[TM / 16][8];
#pragma unroll
	for (int i = 0; i < MI; ++i)
#pragma unroll
		for (int j = 0; j < 8; ++j)
			acc[i][j] = 0.f;

	const int ntiles = (Kred + CONV_BK - 1) / CONV_BK;

	// global -> registers
#define CONV_LOAD(k0)                                                                                        \
	do {                                                                                                 \
		_Pragma("unroll") for (int j = 0; j < NA; ++j)                                               \
		{                                                                                            \
			int e = t + j * CONV_THREADS;                                                        \
			int mm = e / CONV_BK, kk = e - (e / CONV_BK) * CONV_BK;                              \
			int m = m0 + mm, kr = (k0) + kk;                                                     \
			ra[j] = (e < TM * CONV_BK && m < Kg && kr < Kred) ? rdna_load(wg, (long long)m * Kred + kr) \
									 : 0.f;                              \
		}                                                                                            \
		_Pragma("unroll") for (int j = 0; j < NB; ++j)                                               \
		{                                                                                            \
			int kr = (k0) + brow0 + j * (CONV_THREADS / CONV_TN);                                \
			float v = 0.f;                                                                       \
			if (col_ok && kr < Kred) {                                                           \
				int c = kr / RS;                                                             \
				int rs = kr - c * RS;                                                        \
				int r = rs / S;                                                              \
				int s = rs - r * S;                                                          \
				int ih = ih0 + r * dh, iw = iw0 + s * dw;                                    \
				if ((unsigned)ih < (unsigned)H && (unsigned)iw < (unsigned)W)                \
					v = rdna_load(xg, ((long long)c * H + ih) * W + iw);                 \
			}                                                                                    \
			rb[j] = v;                                                                           \
		}                                                                                            \
	} while (0)

#define CONV_STORE(buf)                                                                                      \
	do {                                                                                                 \
		_Pragma("unroll") for (int j = 0; j < NA; ++j)                                               \
		{                                                                                            \
			int e = t + j * CONV_THREADS;                                                        \
			if (e < TM * CONV_BK)                                                                \
				As[buf][e - (e / CONV_BK) * CONV_BK][e / CONV_BK] = ra[j];                   \
		}                                                                                            \
		_Pragma("unroll") for (int j = 0; j < NB; ++j)                                               \
			Bs[buf][brow0 + j * (CONV_THREADS / CONV_TN)][bcol] = rb[j];                         \
	} while (0)

	const int tx = t % 16, ty = t / 16;
	CONV_LOAD(0);
	CONV_STORE(0);
	__syncthreads();
	for (int kt = 0; kt < ntiles; ++kt) {
		const int cur = kt & 1;
		if (kt + 1 < ntiles)
			CONV_LOAD((kt + 1) * CONV_BK);
#pragma unroll
		for (int kk = 0; kk < CONV_BK; ++kk) {
			float a[TM / 16], b[8];
#pragma unroll
			for (int i = 0; i < MI; ++i)
				a[i] = As[cur][kk][ty * MI + i];
#pragma unroll
			for (int j = 0; j < 4; ++j) {
				b[j] = Bs[cur][kk][tx * 4 + j];
				b[4 + j] = Bs[cur][kk][64 + tx * 4 + j];
			}
#pragma unroll
			for (int i = 0; i < MI; ++i)
#pragma unroll
				for (int j = 0; j < 8; ++j)
					acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
		}
		if (kt + 1 < ntiles)
			CONV_STORE(cur ^ 1);
		__syncthreads();
	}
#undef CONV_LOAD
#undef CONV_STORE

#pragma unroll
	for (int j = 0; j < 8; ++j) {
		long long cc = col0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + (j - 4));
		if (cc >= NPQ)
			continue;
		int n = (int)(cc / PQ);
		int pq = (int)(cc - (long long)n * PQ);
#pragma unroll
		for (int i = 0; i < MI; ++i) {
			int m = m0 + ty * MI + i;
			if (m >= Kg)
				continue;
			int k = g * Kg + m;
			float v = acc[i][j];
			if (has_bias)
				v += rdna_load(bias, k);
			rdna_store(y, ((long long)n * K + k) * PQ + pq, v);
		}
	}
}

// ------------------------------------------------------------------ conv2d, depthwise (Cg == Kg == 1)
template <typename T, int RK>
__device__ __forceinline__ void conv2d_dw(const T *__restrict__ x, const T *__restrict__ w, const T *__restrict__ bias,
					  T *__restrict__ y, int N, int C, int H, int W, int P, int Q, int R_rt, int S_rt,
					  int sh, int sw, int ph, int pw, int dh, int dw, int has_bias)
{
	const int R = RK ? RK : R_rt;
	const int S = RK ? RK : S_rt;
	const long long total = (long long)N * C * P * Q;
	for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
	     idx += (long long)gridDim.x * blockDim.x) {
		int q = (int)(idx % Q);
		long long t1 = idx / Q;
		int p = (int)(t1 % P);
		long long nc = t1 / P;
		int c = (int)(nc % C);
		const T *xp = x + nc * H * W;
		const T *wp = w + (long long)c * R * S;
		float acc = 0.f;
		for (int r = 0; r < R; ++r) {
			int ih = p * sh - ph + r * dh;
			if ((unsigned)ih >= (unsigned)H)
				continue;
			for (int s = 0; s < S; ++s) {
				int iw = q * sw - pw + s * dw;
				if ((unsigned)iw < (unsigned)W)
					acc = fmaf(rdna_load(wp, r * S + s), rdna_load(xp, (long long)ih * W + iw), acc);
			}
		}
		if (has_bias)
			acc += rdna_load(bias, c);
		rdna_store(y, idx, acc);
	}
}

#define CONV_GEMM_ARGS                                                                                         \
	int N, int C, int H, int W, int K, int P, int Q, int R, int S, int sh, int sw, int ph, int pw, int dh, int dw, \
		int groups, int has_bias
#define CONV_GEMM_PASS N, C, H, W, K, P, Q, R, S, sh, sw, ph, pw, dh, dw, groups, has_bias

#define DEF_GEMM(NAME, T, RK, TM)                                                                              \
	extern "C" __global__ void __launch_bounds__(CONV_THREADS, 2)                                          \
		NAME(const T *__restrict__ x, const T *__restrict__ w, const T *__restrict__ b, T *__restrict__ y, \
		     CONV_GEMM_ARGS)                                                                           \
	{                                                                                                      \
		conv2d_gemm<T, RK, TM>(x, w, b, y, CONV_GEMM_PASS);                                            \
	}
#define DEF_DW(NAME, T, RK)                                                                                    \
	extern "C" __global__ void __launch_bounds__(256)                                                      \
		NAME(const T *__restrict__ x, const T *__restrict__ w, const T *__restrict__ b, T *__restrict__ y, \
		     CONV_GEMM_ARGS)                                                                           \
	{                                                                                                      \
		conv2d_dw<T, RK>(x, w, b, y, N, C, H, W, P, Q, R, S, sh, sw, ph, pw, dh, dw, has_bias);       \
	}

#define DEF_GEMM3(T, TN_, RK)                                                                                  \
	DEF_GEMM(conv2d_gemm_##TN_##_r##RK##_m128, T, RK, 128)                                                 \
	DEF_GEMM(conv2d_gemm_##TN_##_r##RK##_m64, T, RK, 64)                                                   \
	DEF_GEMM(conv2d_gemm_##TN_##_r##RK##_m32, T, RK, 32)

// Names: conv2d_gemm_<f32|f16>_r<1|3|0>_m<128|64|32>, conv2d_dw_<f32|f16>_r<3|0>
// (r0: any R x S given at run time, used for 5x5, 7x7 and non-square kernels;
// m: output channels per block).  Few variants keep run-time compiles short.
DEF_GEMM3(float, f32, 1)
DEF_GEMM3(float, f32, 3)
DEF_GEMM3(float, f32, 0)
DEF_GEMM3(unsigned short, f16, 1)
DEF_GEMM3(unsigned short, f16, 3)
DEF_GEMM3(unsigned short, f16, 0)
DEF_DW(conv2d_dw_f32_r3, float, 3)
DEF_DW(conv2d_dw_f32_r0, float, 0)
DEF_DW(conv2d_dw_f16_r3, unsigned short, 3)
DEF_DW(conv2d_dw_f16_r0, unsigned short, 0)

// ------------------------------------------------------------------ conv2d fp16, tensor cores (CUDA sm_80+)
// Same implicit GEMM, fp16 operands through mma.sync.m16n8k16 with fp32
// accumulation.  Block tile 128 x 128 x 16, 8 warps as 2 (channels) x 4
// (pixels), warp tile 64 x 32.  Shared tiles are k-contiguous with rows padded
// to 24 halves (conflict-free fragment loads).  Where mma.sync does not exist
// (HIP, older NVIDIA) the name maps to the portable fp16 kernel above.
#if defined(RDNA_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define RDNA_HAVE_MMA 1
#endif

#ifdef RDNA_HAVE_MMA
__device__ __forceinline__ void rdna_mma16816(float *d, const unsigned *a, const unsigned *b)
{
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
		     "{%0,%1,%2,%3};\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#endif

#define TC_BK 16
#define TC_LD 24

template <int RK>
__device__ __forceinline__ void conv2d_tc_f16(const unsigned short *__restrict__ x, const unsigned short *__restrict__ w,
					      const unsigned short *__restrict__ bias, unsigned short *__restrict__ y, int N,
					      int C, int H, int W, int K, int P, int Q, int R_rt, int S_rt, int sh, int sw,
					      int ph, int pw, int dh, int dw, int groups, int has_bias)
{
#ifndef RDNA_HAVE_MMA
	conv2d_gemm<unsigned short, RK, 128>(x, w, bias, y, N, C, H, W, K, P, Q, R_rt, S_rt, sh, sw, ph, pw, dh, dw,
					     groups, has_bias);
#else
	const int R = RK ? RK : R_rt;
	const int S = RK ? RK : S_rt;
	const int RS = R * S;
	const int Cg = C / groups, Kg = K / groups;
	const int Kred = Cg * RS;
	const int PQ = P * Q;
	const long long NPQ = (long long)N * PQ;
	const int g = blockIdx.z;
	const int m0 = blockIdx.y * 128;
	const long long col0 = (long long)blockIdx.x * 128;
	const int t = threadIdx.x;

	__shared__ __attribute__((aligned(16))) unsigned short As[2][128][TC_LD];
	__shared__ __attribute__((aligned(16))) unsigned short Bs[2][128][TC_LD];

	const int bcol = t % 128, kb0 = t / 128;
	const long long col = col0 + bcol;
	const bool col_ok = col < NPQ;
	int ih0 = 0, iw0 = 0;
	const unsigned short *xg = x;
	if (col_ok) {
		int n = (int)(col / PQ);
		int pq = (int)(col - (long long)n * PQ);
		int p = pq / Q, q = pq - (pq / Q) * Q;
		ih0 = p * sh - ph;
		iw0 = q * sw - pw;
		xg = x + ((long long)n * C + (long long)g * Cg) * H * W;
	}
	const int am = t / 2, ak0 = (t % 2) * 8;
	const bool am_ok = m0 + am < Kg;
	const unsigned short *wrow = w + ((long long)g * Kg + m0 + am) * Kred;

	unsigned short ra[8], rb[8];
	float acc[4][4][4];
#pragma unroll
	for (int i = 0; i < 4; ++i)
#pragma unroll
		for (int j = 0; j < 4; ++j)
#pragma unroll
			for (int e = 0; e < 4; ++e)
				acc[i][j][e] = 0.f;

	const int ntiles = (Kred + TC_BK - 1) / TC_BK;
	const int lane = t % 32, wid = t / 32, gq = lane / 4, tq = lane % 4;
	const int wm = (wid / 4) * 64, wn = (wid % 4) * 32;

#define TC_LOAD(k0)                                                                                          \
	do {                                                                                                 \
		_Pragma("unroll") for (int j = 0; j < 8; ++j)                                                \
		{                                                                                            \
			int kr = (k0) + ak0 + j;                                                             \
			ra[j] = (am_ok && kr < Kred) ? wrow[kr] : (unsigned short)0;                         \
		}                                                                                            \
		_Pragma("unroll") for (int j = 0; j < 8; ++j)                                                \
		{                                                                                            \
			int kr = (k0) + kb0 + 2 * j;                                                         \
			unsigned short v = 0;                                                                \
			if (col_ok && kr < Kred) {                                                           \
				int c = kr / RS;                                                             \
				int rs = kr - c * RS;                                                        \
				int r = rs / S;                                                              \
				int s = rs - r * S;                                                          \
				int ih = ih0 + r * dh, iw = iw0 + s * dw;                                    \
				if ((unsigned)ih < (unsigned)H && (unsigned)iw < (unsigned)W)                \
					v = xg[((long long)c * H + ih) * W + iw];                            \
			}                                                                                    \
			rb[j] = v;                                                                           \
		}                                                                                            \
	} while (0)

#define TC_STORE(buf)                                                                                        \
	do {                                                                                                 \
		_Pragma("unroll") for (int j = 0; j < 8; j += 2)                                             \
			*(unsigned *)&As[buf][am][ak0 + j] = (unsigned)ra[j] | ((unsigned)ra[j + 1] << 16);  \
		_Pragma("unroll") for (int j = 0; j < 8; ++j)                                                \
			Bs[buf][bcol][kb0 + 2 * j] = rb[j];                                                  \
	} while (0)

	TC_LOAD(0);
	TC_STORE(0);
	__syncthreads();
	for (int kt = 0; kt < ntiles; ++kt) {
		const int cur = kt & 1;
		if (kt + 1 < ntiles)
			TC_LOAD((kt + 1) * TC_BK);
		unsigned a[4][4], b[4][2];
#pragma unroll
		for (int mi = 0; mi < 4; ++mi) {
			int row = wm + mi * 16 + gq;
			a[mi][0] = *(const unsigned *)&As[cur][row][tq * 2];
			a[mi][1] = *(const unsigned *)&As[cur][row + 8][tq * 2];
			a[mi][2] = *(const unsigned *)&As[cur][row][tq * 2 + 8];
			a[mi][3] = *(const unsigned *)&As[cur][row + 8][tq * 2 + 8];
		}
#pragma unroll
		for (int ni = 0; ni < 4; ++ni) {
			int n = wn + ni * 8 + gq;
			b[ni][0] = *(const unsigned *)&Bs[cur][n][tq * 2];
			b[ni][1] = *(const unsigned *)&Bs[cur][n][tq * 2 + 8];
		}
#pragma unroll
		for (int mi = 0; mi < 4; ++mi)
#pragma unroll
			for (int ni = 0; ni < 4; ++ni)
				rdna_mma16816(acc[mi][ni], a[mi], b[ni]);
		if (kt + 1 < ntiles)
			TC_STORE(cur ^ 1);
		__syncthreads();
	}
#undef TC_LOAD
#undef TC_STORE

#pragma unroll
	for (int ni = 0; ni < 4; ++ni) {
#pragma unroll
		for (int e1 = 0; e1 < 2; ++e1) {
			long long cc = col0 + wn + ni * 8 + tq * 2 + e1;
			if (cc >= NPQ)
				continue;
			int n = (int)(cc / PQ);
			int pq = (int)(cc - (long long)n * PQ);
#pragma unroll
			for (int mi = 0; mi < 4; ++mi) {
#pragma unroll
				for (int e0 = 0; e0 < 2; ++e0) {
					int m = m0 + wm + mi * 16 + gq + e0 * 8;
					if (m >= Kg)
						continue;
					int k = g * Kg + m;
					float v = acc[mi][ni][e0 * 2 + e1];
					if (has_bias)
						v += rdna_h2f(bias[k]);
					y[((long long)n * K + k) * PQ + pq] = rdna_f2h(v);
				}
			}
		}
	}
#endif
}

#define DEF_TC(NAME, RK)                                                                                       \
	extern "C" __global__ void __launch_bounds__(CONV_THREADS, 2)                                          \
		NAME(const unsigned short *__restrict__ x, const unsigned short *__restrict__ w,                \
		     const unsigned short *__restrict__ b, unsigned short *__restrict__ y, CONV_GEMM_ARGS)      \
	{                                                                                                      \
		conv2d_tc_f16<RK>(x, w, b, y, CONV_GEMM_PASS);                                                 \
	}
DEF_TC(conv2d_tc_f16_r1, 1)
DEF_TC(conv2d_tc_f16_r3, 3)
DEF_TC(conv2d_tc_f16_r0, 0)

// ------------------------------------------------------------------ stream (BabelStream-style, fp64)
// Each thread handles 4 elements blockDim apart (coalesced, 4 loads in flight).
#define STREAM_UNROLL 4
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

// ------------------------------------------------------------------ capacity fill / verify
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
