/* vecpath.c: the vector path of the sin/cos reference: binary32 sin and
 * cos of pos * omega_i for a whole row of frequencies, certified by a
 * rounding test (the analysis is in vecpath_kernel.h and docs/reference.md,
 * "Vector path").
 *
 * One kernel text (vecpath_kernel.h) is compiled three times: AVX-512F
 * (8 lanes), AVX2 + FMA (4 lanes) and scalar C with fma() (1 lane, every
 * other CPU, and the tail of a row whose length is not a multiple of the
 * lanes).  The choice is made once at run time (__builtin_cpu_supports).
 * All three perform the same correctly rounded IEEE-754 operations in the
 * same order, so they compute the same bits (tests/vecpath_test.c checks). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "vecpath.h"

struct pc_vec {
    int h;
    double *w1, *w2; /* w = omega_i 2/pi = w1 + w2 (+ 2^-105.9 w), h padded to 8 */
    double *xa, *xb; /* RoPE scratch: the row's pairs, padded to 8 */
    float *tmp;      /* RoPE scratch: 2 h rotated values */
};

/* ---- constants (scripts/vecpath_constants.py prints and checks them) ----- */

/* Taylor coefficients RN_binary64(+-1/k!) */
#define VS3  -0x1.5555555555555p-3    /* RN(-1/3!) */
#define VS5  0x1.1111111111111p-7     /* RN(+1/5!) */
#define VS7  -0x1.a01a01a01a01ap-13   /* RN(-1/7!) */
#define VS9  0x1.71de3a556c734p-19    /* RN(+1/9!) */
#define VS11 -0x1.ae64567f544e4p-26   /* RN(-1/11!) */
#define VS13 0x1.6124613a86d09p-33    /* RN(+1/13!) */
#define VS15 -0x1.ae7f3e733b81fp-41   /* RN(-1/15!) */
#define VS17 0x1.952c77030ad4ap-49    /* RN(+1/17!) */
#define VC2  -0x1.0000000000000p-1    /* RN(-1/2!), exact */
#define VC4  0x1.5555555555555p-5     /* RN(+1/4!) */
#define VC6  -0x1.6c16c16c16c17p-10   /* RN(-1/6!) */
#define VC8  0x1.a01a01a01a01ap-16    /* RN(+1/8!) */
#define VC10 -0x1.27e4fb7789f5cp-22   /* RN(-1/10!) */
#define VC12 0x1.1eed8eff8d898p-29    /* RN(+1/12!) */
#define VC14 -0x1.93974a8c07c9dp-37   /* RN(-1/14!) */
#define VC16 0x1.ae7f3e733b81fp-45    /* RN(+1/16!) */
#define VP_PIO2  0x1.921fb54442d18p+0 /* RN(pi/2), |pi/2 - VP_PIO2| = 2^-53.858 */
#define VP_ROUND 0x1.8p+52            /* 1.5 2^52: x + it - it = nearest integer, |x| < 2^51 */

/* ---- scalar instantiation (1 lane) ------------------------------------- */

static inline uint64_t sc_bits(double x) { uint64_t b; memcpy(&b, &x, sizeof b); return b; }
static inline double sc_dbl(uint64_t b) { double x; memcpy(&x, &b, sizeof x); return x; }
static inline void sc_store(int mode, float *out, int h, int i, double s, double c)
{
    float fs = (float)s, fc = (float)c; /* RN, as cvtpd2ps */
    if (mode == PC_VEC_HALF) { out[i] = fs; out[h + i] = fc; }
    else if (mode == PC_VEC_SC) { out[2 * i] = fs; out[2 * i + 1] = fc; }
    else { out[2 * i] = fc; out[2 * i + 1] = fs; }
}

#define VP_W 1
#define VP_FN(x) x##_scalar
#define VP_TARGET
#define VD double
#define VI uint64_t
#define VM unsigned
#define LOADD(p) (*(p))
#define SETD(x) ((double)(x))
#define SETI(x) ((uint64_t)(int64_t)(x))
#define ADD(a, b) ((a) + (b))
#define SUB(a, b) ((a) - (b))
#define MUL(a, b) ((a) * (b))
#define FMA(a, b, c) fma(a, b, c)
#define FMS(a, b, c) fma(a, b, -(c))
#define MAXD(a, b) ((a) > (b) ? (a) : (b))
#define ABSD(x) fabs(x)
#define ASI(x) sc_bits(x)
#define ASD(x) sc_dbl(x)
#define IAND(a, b) ((a) & (b))
#define IXOR(a, b) ((a) ^ (b))
#define IOR(a, b) ((a) | (b))
#define IADD(a, b) ((a) + (b))
#define ISUB(a, b) ((a) - (b))
#define ISHL(a, k) ((a) << (k))
#define GED(a, b) ((unsigned)((a) >= (b)))
#define GTD(a, b) ((unsigned)((a) > (b)))
#define IGT(a, b) ((unsigned)((int64_t)(a) > (int64_t)(b)))
#define MAND(a, b) ((a) & (b))
#define MANDN(a, b) ((a) & ~(b) & 1u)
#define MBITS(m) (m)
#define BLEND_ODD(qb, a, b) (((qb) & 1u) ? (b) : (a))
#define STORED(p, v) (*(p) = (v))
#define VP_STORE(mode, out, h, i, s, c) sc_store(mode, out, h, i, s, c)
#include "vecpath_kernel.h"
#include "vecpath_undef.h"

/* ---- x86-64: AVX2 + FMA and AVX-512F ----------------------------------- */

#if defined(__x86_64__) && defined(__GNUC__)
#define PC_VEC_X86 1
#include <immintrin.h>

/* AVX2 + FMA, 4 lanes; masks are all-ones lanes of a __m256d. */
#define VP_W 4
#define VP_FN(x) x##_avx2
#define VP_TARGET __attribute__((target("avx2,fma")))
#define VD __m256d
#define VI __m256i
#define VM __m256d
#define LOADD(p) _mm256_loadu_pd(p)
#define SETD(x) _mm256_set1_pd(x)
#define SETI(x) _mm256_set1_epi64x(x)
#define ADD(a, b) _mm256_add_pd(a, b)
#define SUB(a, b) _mm256_sub_pd(a, b)
#define MUL(a, b) _mm256_mul_pd(a, b)
#define FMA(a, b, c) _mm256_fmadd_pd(a, b, c)
#define FMS(a, b, c) _mm256_fmsub_pd(a, b, c)
#define MAXD(a, b) _mm256_max_pd(a, b)
#define ABSD(x) _mm256_andnot_pd(_mm256_set1_pd(-0.0), x)
#define ASI(x) _mm256_castpd_si256(x)
#define ASD(x) _mm256_castsi256_pd(x)
#define IAND(a, b) _mm256_and_si256(a, b)
#define IXOR(a, b) _mm256_xor_si256(a, b)
#define IOR(a, b) _mm256_or_si256(a, b)
#define IADD(a, b) _mm256_add_epi64(a, b)
#define ISUB(a, b) _mm256_sub_epi64(a, b)
#define ISHL(a, k) _mm256_slli_epi64(a, k)
#define GED(a, b) _mm256_cmp_pd(a, b, _CMP_GE_OQ)
#define GTD(a, b) _mm256_cmp_pd(a, b, _CMP_GT_OQ)
#define IGT(a, b) _mm256_castsi256_pd(_mm256_cmpgt_epi64(a, b))
#define MAND(a, b) _mm256_and_pd(a, b)
#define MANDN(a, b) _mm256_andnot_pd(b, a)
#define MBITS(m) _mm256_movemask_pd(m)
#define BLEND_ODD(qb, a, b) _mm256_blendv_pd(a, b, _mm256_castsi256_pd(_mm256_slli_epi64(qb, 63)))
#define STORED(p, v) _mm256_storeu_pd(p, v)
#define VP_STORE(mode, out, h, i, s, c) do {                                   \
        __m128 s4_ = _mm256_cvtpd_ps(s), c4_ = _mm256_cvtpd_ps(c);             \
        if ((mode) == PC_VEC_HALF) {                                           \
            _mm_storeu_ps((out) + (i), s4_);                                   \
            _mm_storeu_ps((out) + (h) + (i), c4_);                             \
        } else {                                                               \
            __m128 a_ = (mode) == PC_VEC_SC ? s4_ : c4_;                       \
            __m128 b_ = (mode) == PC_VEC_SC ? c4_ : s4_;                       \
            _mm_storeu_ps((out) + 2 * (i), _mm_unpacklo_ps(a_, b_));           \
            _mm_storeu_ps((out) + 2 * (i) + 4, _mm_unpackhi_ps(a_, b_));       \
        }                                                                      \
    } while (0)
#include "vecpath_kernel.h"
#include "vecpath_undef.h"

/* AVX-512F, 8 lanes; masks are __mmask8. */
#define VP_W 8
#define VP_FN(x) x##_avx512
#define VP_TARGET __attribute__((target("avx512f")))
#define VD __m512d
#define VI __m512i
#define VM __mmask8
#define LOADD(p) _mm512_loadu_pd(p)
#define SETD(x) _mm512_set1_pd(x)
#define SETI(x) _mm512_set1_epi64(x)
#define ADD(a, b) _mm512_add_pd(a, b)
#define SUB(a, b) _mm512_sub_pd(a, b)
#define MUL(a, b) _mm512_mul_pd(a, b)
#define FMA(a, b, c) _mm512_fmadd_pd(a, b, c)
#define FMS(a, b, c) _mm512_fmsub_pd(a, b, c)
#define MAXD(a, b) _mm512_max_pd(a, b)
#define ABSD(x) _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(x), \
                                                     _mm512_set1_epi64(INT64_MAX)))
#define ASI(x) _mm512_castpd_si512(x)
#define ASD(x) _mm512_castsi512_pd(x)
#define IAND(a, b) _mm512_and_si512(a, b)
#define IXOR(a, b) _mm512_xor_si512(a, b)
#define IOR(a, b) _mm512_or_si512(a, b)
#define IADD(a, b) _mm512_add_epi64(a, b)
#define ISUB(a, b) _mm512_sub_epi64(a, b)
#define ISHL(a, k) _mm512_slli_epi64(a, k)
#define GED(a, b) _mm512_cmp_pd_mask(a, b, _CMP_GE_OQ)
#define GTD(a, b) _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ)
#define IGT(a, b) _mm512_cmpgt_epi64_mask(a, b)
#define MAND(a, b) ((__mmask8)((a) & (b)))
#define MANDN(a, b) ((__mmask8)((a) & ~(b)))
#define MBITS(m) ((unsigned)(m))
#define BLEND_ODD(qb, a, b) _mm512_mask_blend_pd(_mm512_test_epi64_mask(qb, _mm512_set1_epi64(1)), a, b)
#define STORED(p, v) _mm512_storeu_pd(p, v)
#define VP_STORE(mode, out, h, i, s, c) do {                                   \
        __m256 s8_ = _mm512_cvtpd_ps(s), c8_ = _mm512_cvtpd_ps(c);             \
        if ((mode) == PC_VEC_HALF) {                                           \
            _mm256_storeu_ps((out) + (i), s8_);                                \
            _mm256_storeu_ps((out) + (h) + (i), c8_);                          \
        } else {                                                               \
            __m256 a_ = (mode) == PC_VEC_SC ? s8_ : c8_;                       \
            __m256 b_ = (mode) == PC_VEC_SC ? c8_ : s8_;                       \
            __m256 lo_ = _mm256_unpacklo_ps(a_, b_), hi_ = _mm256_unpackhi_ps(a_, b_); \
            _mm256_storeu_ps((out) + 2 * (i), _mm256_permute2f128_ps(lo_, hi_, 0x20)); \
            _mm256_storeu_ps((out) + 2 * (i) + 8, _mm256_permute2f128_ps(lo_, hi_, 0x31)); \
        }                                                                      \
    } while (0)
#include "vecpath_kernel.h"
#else
#define PC_VEC_X86 0
#endif

/* ---- dispatch ------------------------------------------------------------ */

static int isa_best, isa_used;
static pthread_once_t isa_once = PTHREAD_ONCE_INIT;

static void isa_init(void)
{
    isa_best = PC_VEC_SCALAR;
#if PC_VEC_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        isa_best = PC_VEC_AVX2;
    if (__builtin_cpu_supports("avx512f"))
        isa_best = PC_VEC_AVX512;
#endif
    isa_used = isa_best;
}

int pc_vec_isa(void)
{
    pthread_once(&isa_once, isa_init);
    return isa_used;
}

int pc_vec_force_isa(int isa)
{
    pthread_once(&isa_once, isa_init);
    isa_used = isa < PC_VEC_SCALAR ? PC_VEC_SCALAR : isa > isa_best ? isa_best : isa;
    return isa_used;
}

pc_vec *pc_vec_new(int d)
{
    pthread_once(&isa_once, isa_init);
    if (d < 2) return NULL;
    pc_vec *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->h = d / 2;
    size_t n = ((size_t)v->h + 7) / 8 * 8; /* room for whole 8-lane loads */
    v->w1 = calloc(n, sizeof *v->w1);
    v->w2 = calloc(n, sizeof *v->w2);
    v->xa = calloc(n, sizeof *v->xa);
    v->xb = calloc(n, sizeof *v->xb);
    v->tmp = calloc(2 * n, sizeof *v->tmp);
    if (!v->w1 || !v->w2 || !v->xa || !v->xb || !v->tmp) {
        pc_vec_free(v);
        return NULL;
    }
    return v;
}

void pc_vec_free(pc_vec *v)
{
    if (!v) return;
    free(v->w1);
    free(v->w2);
    free(v->xa);
    free(v->xb);
    free(v->tmp);
    free(v);
}

void pc_vec_set(pc_vec *v, int i, const mpfr_t omega)
{
    if (!(mpfr_cmp_d(omega, 0x1p-900) >= 0 && mpfr_cmp_ui(omega, 1) <= 0)) {
        v->w1[i] = v->w2[i] = 0.0; /* p1 = 0 < 2^-100: never decided */
        return;
    }
    mpfr_prec_t p = mpfr_get_prec(omega);
    mpfr_t t, w;
    mpfr_inits2(p, t, w, (mpfr_ptr)0);
    /* w~ = omega 2/pi at precision p >= 300: const_pi, ui_div and mul each
     * add a relative 2^-p to omega's 4 2^-p: |w~ - w| <= 8 2^-p w <=
     * 2^-297 w.  w1 = RN(w~), w2 = RN(w~ - w1) (the subtraction is exact
     * at p bits): |w~ - w1 - w2| <= u |w2| <= u^2 w1 (1 + u) = 2^-106 w
     * (1 + 2^-52).  In all |w - w1 - w2| <= 2^-105.99 w <= 2^-105.9 w. */
    mpfr_const_pi(t, MPFR_RNDN);
    mpfr_ui_div(t, 2, t, MPFR_RNDN);
    mpfr_mul(w, omega, t, MPFR_RNDN);
    v->w1[i] = mpfr_get_d(w, MPFR_RNDN);
    mpfr_sub_d(t, w, v->w1[i], MPFR_RNDN);
    v->w2[i] = mpfr_get_d(t, MPFR_RNDN);
    mpfr_clears(t, w, (mpfr_ptr)0);
}

int pc_vec_row32(const pc_vec *v, int64_t pos, int mode, float *out, int *undec)
{
    double P = (double)pos; /* exact: pos <= 2^40 */
    int i = 0, n = 0;
    if (pos < 1 || pos > PC_VEC_POS_MAX) { /* outside the analysis: all undecided */
        for (; i < v->h; i++) undec[i] = i;
        return v->h;
    }
#if PC_VEC_X86
    if (isa_used == PC_VEC_AVX512)
        n = row_avx512(v, P, mode, out, undec, &i);
    else if (isa_used == PC_VEC_AVX2)
        n = row_avx2(v, P, mode, out, undec, &i);
#endif
    return n + row_scalar(v, P, mode, out, undec + n, &i);
}

void pc_vec_raw(const pc_vec *v, int64_t pos, double *s, double *c, double *p1,
                unsigned char *ok)
{
    int i = 0;
    double P = (double)pos;
#if PC_VEC_X86
    if (isa_used == PC_VEC_AVX512)
        raw_avx512(v, P, s, c, p1, ok, &i);
    else if (isa_used == PC_VEC_AVX2)
        raw_avx2(v, P, s, c, p1, ok, &i);
#endif
    raw_scalar(v, P, s, c, p1, ok, &i);
}

int pc_vec_rope32(pc_vec *v, int64_t pos, int layout, const float *x, float *out, int *undec)
{
    int h = v->h, i = 0, n = 0;
    if (pos < 1 || pos > PC_VEC_POS_MAX) {
        for (; i < h; i++) undec[i] = i;
        return h;
    }
    for (int k = 0; k < h; k++) { /* exact: binary32 -> binary64 */
        v->xa[k] = (double)x[layout == 0 ? 2 * k : k];
        v->xb[k] = (double)x[layout == 0 ? 2 * k + 1 : h + k];
    }
    double P = (double)pos;
#if PC_VEC_X86
    if (isa_used == PC_VEC_AVX512)
        n = rope_avx512(v, P, v->xa, v->xb, v->tmp, undec, &i);
    else if (isa_used == PC_VEC_AVX2)
        n = rope_avx2(v, P, v->xa, v->xb, v->tmp, undec, &i);
#endif
    n += rope_scalar(v, P, v->xa, v->xb, v->tmp, undec + n, &i);
    if (layout == 0) {
        for (int k = 0; k < h; k++) {
            out[2 * k] = v->tmp[k];
            out[2 * k + 1] = v->tmp[h + k];
        }
    } else {
        memcpy(out, v->tmp, 2 * (size_t)h * sizeof *out);
    }
    return n;
}
