/* alibi-paper: ALiBi slopes as the paper's code computes them (Press et
 * al., attention_with_linear_biases, get_slopes), in Python doubles:
 *   start = 2**(-2**-(log2(n) - 3)); slopes = [start * start**i ...]
 * for a power of two n, else the closest power of two C plus the odd
 * members of the rule for 2C; then torch.tensor(...) rounds to binary32.
 * The bias is slope * -|j - i| in binary32. */
#include "impl/relative_common.h"
#include "alibi_paper.h"

static void pow2_rule(int n, int count, int step, double *out)
{
    /* slopes of the rule for N, indices 0, STEP, 2 STEP, ... (COUNT of them) */
    double start = pow(2.0, -pow(2.0, -(log2((double)n) - 3.0)));
    for (int i = 0; i < count; i++)
        out[i] = start * pow(start, (double)(i * step));
}

int pc_alibi_paper_slopes(void *ctx, int heads, float *out)
{
    (void)ctx;
    if (heads < 1 || heads > 4096) return 1;
    double *s = malloc((size_t)heads * sizeof *s);
    if (!s) return 2;
    int c = 1;
    while (2 * c <= heads) c *= 2;
    pow2_rule(c, c, 1, s);
    if (heads > c)
        pow2_rule(2 * c, heads - c, 2, s + c);  /* get_slopes(2C)[0::2] */
    for (int h = 0; h < heads; h++)
        out[h] = (float)s[h];
    free(s);
    return 0;
}

static int run_bias(void *ctx, int heads, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, int causal, float *out)
{
    float *s = malloc((heads > 0 ? (size_t)heads : 1) * sizeof *s);
    if (!s) return 2;
    int rc = pc_alibi_paper_slopes(ctx, heads, s);
    if (rc == 0)
        pc_rel_alibi_bias(s, heads, qpos, nq, kpos, nk, causal, out);
    free(s);
    return rc;
}

const pc_impl pc_impl_alibi_paper = {
    .name = "alibi-paper",
    .description = "ALiBi slopes as the paper's get_slopes (doubles, then binary32), bias -m|j-i|",
    .family_hint = "alibi",
    .expect_pass = 1,
    .alibi_slopes = pc_alibi_paper_slopes,
    .alibi_bias = run_bias,
};
