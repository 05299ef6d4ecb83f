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
#if RDNA_IN_PART(7)
DEF_TC(conv2d_tc_f16_r1, 1)
#endif
#if RDNA_IN_PART(9)
DEF_TC(conv2d_tc_f16_r3, 3)
#endif
#if RDNA_IN_PART(10)
DEF_TC(conv2d_tc_f16_r0, 0)
#endif

