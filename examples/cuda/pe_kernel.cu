// pe_kernel.cu: the shape of a pecheck plugin wrapping CUDA kernels: a
// sinusoidal kernel (ABI v1, pecheck_sinusoidal_f32) and a half-precision
// RoPE kernel (ABI v2, pecheck_rope_v2) that rotates q or k in place on a
// strided [tokens, heads, head_dim] tensor of f16 or bf16, partial rotary.
//
// NOT built by `make` (pecheck does not need CUDA).  To gate your kernels:
//
//   nvcc -O2 -Xcompiler -fPIC -shared -I../../include pe_kernel.cu -o pe_kernel.so
//   pecheck check --plugin ./pe_kernel.so --timeout-ms 30000 [--hf-config config.json]
//
// The host wrappers below are what pecheck calls: copy the inputs to the
// device, launch, copy OUT back, free, return 0 (or nonzero on any CUDA
// error: pecheck reports it).  Notes:
//   - pecheck calls the entry points in a pool of plugin host processes
//     (--plugin-hosts N, default 2), one call at a time in each
//     (docs/plugins.md): each host loads this library and creates its own
//     CUDA context at its first call, kept for the next ones until a fault
//     replaces the host; give --timeout-ms room for creating it (hundreds
//     of ms).  N hosts hold N contexts and N times the device memory
//     allocated here: a kernel sized to most of the GPU fails (out of
//     memory) in host 2; run it with --plugin-hosts 1.
//   - pecheck itself never initialises CUDA.
//   - the kernels compute the angle in binary32 like most production
//     kernels; pecheck's bound (docs/precision-model.md) is built for that.
//     __sinf/__cosf (-use_fast_math) have absolute errors of about 2^-21.4
//     on [-pi, pi] and grow with |x|: expect pecheck to fail them at large
//     positions, which is the point of gating.
//   - the RoPE kernel rounds each output once to f16/bf16 (__float2half_rn,
//     __float2bfloat16_rn), which passes pecheck's --strict class for
//     f16/bf16 outputs (binary32 values rounded once), and
//     touches neither the pass-through dims nor the padding between heads
//     and tokens (pecheck checks both come back bit-identical).
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <math.h>
#include <stdint.h>
#include "pecheck_plugin.h"

__global__ void sinusoidal_kernel(const int64_t *pos, size_t n, int d, float neg_log_base_over_d,
                                  int layout, float *out)
{
    size_t r = blockIdx.x;
    int i = threadIdx.x + blockIdx.y * blockDim.x; // pair index
    if (r >= n || i >= d / 2) return;
    // div_term = exp(2i * -ln(base)/d), angle = pos * div_term: the PyTorch formulation
    float w = expf((float)(2 * i) * neg_log_base_over_d);
    float theta = (float)pos[r] * w;
    float s, c;
    sincosf(theta, &s, &c);
    size_t a = layout == PECHECK_LAYOUT_INTERLEAVED ? (size_t)(2 * i) : (size_t)i;
    size_t b = layout == PECHECK_LAYOUT_INTERLEAVED ? (size_t)(2 * i + 1) : (size_t)(i + d / 2);
    out[r * (size_t)d + a] = s;
    out[r * (size_t)d + b] = c;
}

extern "C" int pecheck_abi_version(void) { return PECHECK_ABI_VERSION; }

extern "C" int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base,
                                      int layout, float *out)
{
    if (d < 2 || d % 2 || n == 0) return 1;
    if (layout != PECHECK_LAYOUT_INTERLEAVED && layout != PECHECK_LAYOUT_HALF) return 1;
    int64_t *dpos = NULL;
    float *dout = NULL;
    size_t out_bytes = n * (size_t)d * sizeof(float);
    int rc = 2;
    if (cudaMalloc(&dpos, n * sizeof *dpos) != cudaSuccess) goto done;
    if (cudaMalloc(&dout, out_bytes) != cudaSuccess) goto done;
    if (cudaMemcpy(dpos, pos, n * sizeof *dpos, cudaMemcpyHostToDevice) != cudaSuccess) goto done;
    {
        int threads = 128;
        dim3 grid((unsigned)n, (unsigned)((d / 2 + threads - 1) / threads));
        sinusoidal_kernel<<<grid, threads>>>(dpos, n, d, (float)(-log(base) / d), layout, dout);
    }
    if (cudaGetLastError() != cudaSuccess) goto done;            // launch error
    if (cudaDeviceSynchronize() != cudaSuccess) goto done;       // kernel fault
    if (cudaMemcpy(out, dout, out_bytes, cudaMemcpyDeviceToHost) != cudaSuccess) goto done;
    rc = 0;
done:
    cudaFree(dpos);
    cudaFree(dout);
    return rc;
}

// ---- ABI v2: RoPE on a strided [tokens, heads, head_dim] half tensor ----

__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ inline void from_float(float v, __half *out) { *out = __float2half_rn(v); }
__device__ inline void from_float(float v, __nv_bfloat16 *out) { *out = __float2bfloat16_rn(v); }

// One thread per pair i of head blockIdx.y of token blockIdx.x, in place.
template <typename T>
__global__ void rope_kernel(T *x, const int64_t *pos, const double *freqs, long long st_tok,
                            long long st_head, int rot, int layout, float att)
{
    long long t = blockIdx.x, h = blockIdx.y;
    int i = threadIdx.x + blockIdx.z * blockDim.x; // pair index
    if (i >= rot / 2) return;
    T *row = x + t * st_tok + h * st_head;
    int a = layout == PECHECK_LAYOUT_INTERLEAVED ? 2 * i : i;
    int b = layout == PECHECK_LAYOUT_INTERLEAVED ? 2 * i + 1 : i + rot / 2;
    float theta = (float)pos[t] * (float)freqs[i]; // the frequencies pecheck passes
    float s, c;
    sincosf(theta, &s, &c);
    float xa = to_float(row[a]), xb = to_float(row[b]);
    from_float(att * (xa * c - xb * s), &row[a]);
    from_float(att * (xa * s + xb * c), &row[b]);
}

extern "C" int pecheck_rope_v2(const pecheck_rope_args *p)
{
    // a pecheck older than this header may pass fewer members
    if (!PECHECK_ARGS_HAS(p, pecheck_rope_args, attention_factor))
        return PECHECK_V2_ARGS_TOO_SMALL;
    if (p->dtype_in != p->dtype_out || p->x != p->out) return PECHECK_V2_UNSUPPORTED;
    if (p->dtype_in != PECHECK_DTYPE_F16 && p->dtype_in != PECHECK_DTYPE_BF16)
        return PECHECK_V2_UNSUPPORTED; // a half-precision kernel
    if (p->layout != PECHECK_LAYOUT_INTERLEAVED && p->layout != PECHECK_LAYOUT_HALF)
        return PECHECK_V2_UNSUPPORTED;
    if (p->n_tokens == 0) return 0;
    // the elements the view spans (pecheck's strides are >= 0 and checked)
    size_t span = (p->n_tokens - 1) * (size_t)p->stride_token
                + (size_t)(p->heads - 1) * (size_t)p->stride_head + (size_t)p->head_dim;
    size_t bytes = span * 2; // f16 and bf16: 2 bytes
    size_t pos_bytes = p->n_tokens * sizeof(int64_t);
    size_t freq_bytes = (size_t)(p->rotary_dim / 2) * sizeof(double);
    void *dx = NULL;
    int64_t *dpos = NULL;
    double *dfreqs = NULL;
    int threads = 128;
    dim3 grid((unsigned)p->n_tokens, (unsigned)p->heads,
              (unsigned)((p->rotary_dim / 2 + threads - 1) / threads));
    float att = (float)p->attention_factor;
    int rc = 2;
    if (cudaMalloc(&dx, bytes) != cudaSuccess) goto done;
    if (cudaMalloc(&dpos, pos_bytes) != cudaSuccess) goto done;
    if (cudaMalloc(&dfreqs, freq_bytes) != cudaSuccess) goto done;
    if (cudaMemcpy(dx, p->x, bytes, cudaMemcpyHostToDevice) != cudaSuccess) goto done;
    if (cudaMemcpy(dpos, p->pos, pos_bytes, cudaMemcpyHostToDevice) != cudaSuccess) goto done;
    if (cudaMemcpy(dfreqs, p->freqs, freq_bytes, cudaMemcpyHostToDevice) != cudaSuccess) goto done;
    if (p->dtype_in == PECHECK_DTYPE_F16)
        rope_kernel<__half><<<grid, threads>>>((__half *)dx, dpos, dfreqs, (long long)p->stride_token,
                                               (long long)p->stride_head, p->rotary_dim, p->layout, att);
    else
        rope_kernel<__nv_bfloat16><<<grid, threads>>>((__nv_bfloat16 *)dx, dpos, dfreqs,
                                                      (long long)p->stride_token,
                                                      (long long)p->stride_head, p->rotary_dim,
                                                      p->layout, att);
    if (cudaGetLastError() != cudaSuccess) goto done;            // launch error
    if (cudaDeviceSynchronize() != cudaSuccess) goto done;       // kernel fault
    // the padding and pass-through dims go back as they came
    if (cudaMemcpy(p->out, dx, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) goto done;
    rc = 0;
done:
    cudaFree(dx);
    cudaFree(dpos);
    cudaFree(dfreqs);
    return rc;
}
