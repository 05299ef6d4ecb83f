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
#if RDNA_IN_PART(0)
DEF_GEMM3(float, f32, 1)
#endif
#if RDNA_IN_PART(1)
DEF_GEMM3(float, f32, 3)
#endif
#if RDNA_IN_PART(2)
DEF_GEMM3(float, f32, 0)
#endif
#if RDNA_IN_PART(3)
DEF_GEMM3(unsigned short, f16, 1)
#endif
#if RDNA_IN_PART(4)
DEF_GEMM3(unsigned short, f16, 3)
#endif
#if RDNA_IN_PART(5)
DEF_GEMM3(unsigned short, f16, 0)
#endif
#if RDNA_IN_PART(6)
DEF_DW(conv2d_dw_f32_r3, float, 3)
DEF_DW(conv2d_dw_f32_r0, float, 0)
DEF_DW(conv2d_dw_f16_r3, unsigned short, 3)
DEF_DW(conv2d_dw_f16_r0, unsigned short, 0)
#endif

