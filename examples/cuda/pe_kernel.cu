// pe_kernel.cu: the shape of a pecheck plugin wrapping a CUDA kernel.
//
// NOT built by `make` (pecheck does not need CUDA).  To gate your kernel:
//
//   nvcc -O2 -Xcompiler -fPIC -shared -I../../include pe_kernel.cu -o pe_kernel.so
//   pecheck check --plugin ./pe_kernel.so --family sinusoidal --timeout-ms 30000
//
// The host wrapper below is what pecheck calls: copy the inputs to the
// device, launch, copy OUT back, free, return 0 (or nonzero on any CUDA
// error: pecheck reports it).  Notes:
//   - pecheck calls every entry point in a fresh forked child (a crash or a
//     hang of the kernel cannot take pecheck down), so each call creates its
//     own CUDA context: keep no device state in globals across calls, and
//     give --timeout-ms room for context creation (hundreds of ms).
//   - pecheck itself never initialises CUDA, so the fork is safe.
//   - the kernel computes the angle in binary32 like most production
//     kernels; pecheck's bound (docs/precision-model.md) is built for that.
//     __sinf/__cosf (-use_fast_math) have absolute errors of about 2^-21.4
//     on [-pi, pi] and grow with |x|: expect pecheck to fail them at large
//     positions, which is the point of gating.
#include <cuda_runtime.h>
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
