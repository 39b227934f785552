/* hookgen.h: the machinery that expands the hook table (hooks.def).
 *
 * An includer of hooks.def that needs the arguments of a hook includes this
 * header first: it turns each argument of the table into a tuple
 *   PC_VAL(T, N)           -> (VAL, T, N)
 *   PC_IN(T, N, A, B, C)   -> (IN, T, N, A, B, C)
 *   PC_OUT(T, N, A, B, C)  -> (OUT, T, N, A, B, C)
 * so that the sequence ARGS can be expanded several times in one
 * definition, once per form:
 *   PC_PARAMS(ARGS)   ", T N, T *N ..."        after a first parameter
 *   PC_PROTO(ARGS)    "T N, T *N ..." or "void"  a whole prototype
 *   PC_NAMES(ARGS)    ", N, N ..."             the arguments of a call
 *   PC_FIELDS(ARGS)   "T N; T *N; ..."         struct members
 *   PC_STORE(ARGS)    "hook_args->N = N; ..."  fill such a struct
 *   PC_FROM(ARGS)     ", hook_args->N ..."     call with its members
 *   PC_CALL_ARGS(ARGS) "hook_args->N, ..."     the same, a whole list
 *   PC_OUT_GET(ARGS)  "hook_out = (void *)hook_args->N;" for the output
 *   PC_OUT_SET(ARGS)  "hook_args->N = (T *)hook_out;" for the output
 *   PC_IN_SIZE, PC_IN_PUT, PC_IN_FIX (ARGS)  the input arrays' bytes, their
 *                     copy into shared memory and their place there
 *   PC_OUT_BYTES(ARGS) the output's size in bytes (SIZE_MAX on overflow,
 *                     0 without output)
 *   PC_PACK(ARGS)     "hook_s.N = hook_args->N;"  a v2 struct from them
 * (each form walks the sequence with two macros calling each other, A and
 * B, and the last dangling name is pasted with _END into a final macro).
 * All names are PC_-prefixed; hookgen.h is included through impl.h. */
#ifndef PECHECK_HOOKGEN_H
#define PECHECK_HOOKGEN_H

#include <stddef.h>
#include <stdint.h>

#define PC_VAL(T, N) (VAL, T, N)
#define PC_IN(T, N, A, B, C) (IN, T, N, A, B, C)
#define PC_OUT(T, N, A, B, C) (OUT, T, N, A, B, C)
#define PC_VOID

/* Expands its argument (a walk that ends in a dangling A or B name), then
 * pastes _END to that last name. */
#define PC_EACH_END(...) PC_EACH_END_(__VA_ARGS__)
#define PC_EACH_END_(...) __VA_ARGS__##_END

/* ", T N" for every argument */
#define PC_PARAMS(ARGS) PC_EACH_END(PC_PRM_A ARGS)
#define PC_PRM_A(K, ...) PC_PRM_##K(__VA_ARGS__) PC_PRM_B
#define PC_PRM_B(K, ...) PC_PRM_##K(__VA_ARGS__) PC_PRM_A
#define PC_PRM_A_END
#define PC_PRM_B_END
#define PC_PRM_VAL(T, N) , T N
#define PC_PRM_IN(T, N, A, B, C) , T *N
#define PC_PRM_OUT(T, N, A, B, C) , T *N

/* "T N, T N" without a leading comma, "void" for none */
#define PC_PROTO(ARGS) PC_EACH_END(PC_PRO_A ARGS)
#define PC_PRO_A(K, ...) PC_PRO1_##K(__VA_ARGS__) PC_PRO_B
#define PC_PRO_B(K, ...) PC_PRM_##K(__VA_ARGS__) PC_PRO_C
#define PC_PRO_C(K, ...) PC_PRM_##K(__VA_ARGS__) PC_PRO_B
#define PC_PRO_A_END void
#define PC_PRO_B_END
#define PC_PRO_C_END
#define PC_PRO1_VAL(T, N) T N
#define PC_PRO1_IN(T, N, A, B, C) T *N
#define PC_PRO1_OUT(T, N, A, B, C) T *N

/* ", N" for every argument */
#define PC_NAMES(ARGS) PC_EACH_END(PC_NAM_A ARGS)
#define PC_NAM_A(K, T, N, ...) , N PC_NAM_B
#define PC_NAM_B(K, T, N, ...) , N PC_NAM_A
#define PC_NAM_A_END
#define PC_NAM_B_END

/* "T N;" for every argument (arrays as pointers) */
#define PC_FIELDS(ARGS) PC_EACH_END(PC_FLD_A ARGS)
#define PC_FLD_A(K, ...) PC_FLD_##K(__VA_ARGS__) PC_FLD_B
#define PC_FLD_B(K, ...) PC_FLD_##K(__VA_ARGS__) PC_FLD_A
#define PC_FLD_A_END
#define PC_FLD_B_END
#define PC_FLD_VAL(T, N) T N;
#define PC_FLD_IN(T, N, A, B, C) T *N;
#define PC_FLD_OUT(T, N, A, B, C) T *N;

/* "hook_args->N = N;" for every argument */
#define PC_STORE(ARGS) PC_EACH_END(PC_STO_A ARGS)
#define PC_STO_A(K, T, N, ...) hook_args->N = N; PC_STO_B
#define PC_STO_B(K, T, N, ...) hook_args->N = N; PC_STO_A
#define PC_STO_A_END
#define PC_STO_B_END

/* "hook_s.N = hook_args->N;" for every argument (a v2 struct) */
#define PC_PACK(ARGS) PC_EACH_END(PC_PCK_A ARGS)
#define PC_PCK_A(K, T, N, ...) hook_s.N = hook_args->N; PC_PCK_B
#define PC_PCK_B(K, T, N, ...) hook_s.N = hook_args->N; PC_PCK_A
#define PC_PCK_A_END
#define PC_PCK_B_END

/* ", hook_args->N" for every argument */
#define PC_FROM(ARGS) PC_EACH_END(PC_FRM_A ARGS)
#define PC_FRM_A(K, T, N, ...) , hook_args->N PC_FRM_B
#define PC_FRM_B(K, T, N, ...) , hook_args->N PC_FRM_A
#define PC_FRM_A_END
#define PC_FRM_B_END

/* "hook_args->N, ..." without a leading comma: a whole argument list */
#define PC_CALL_ARGS(ARGS) PC_EACH_END(PC_CAR_A ARGS)
#define PC_CAR_A(K, T, N, ...) hook_args->N PC_FRM_B
#define PC_CAR_A_END

/* "hook_out = (void *)hook_args->N;" for the output argument */
#define PC_OUT_GET(ARGS) PC_EACH_END(PC_OGT_A ARGS)
#define PC_OGT_A(K, ...) PC_OGT_##K(__VA_ARGS__) PC_OGT_B
#define PC_OGT_B(K, ...) PC_OGT_##K(__VA_ARGS__) PC_OGT_A
#define PC_OGT_A_END
#define PC_OGT_B_END
#define PC_OGT_VAL(T, N)
#define PC_OGT_IN(T, N, A, B, C)
#define PC_OGT_OUT(T, N, A, B, C) hook_out = (void *)hook_args->N;

/* "hook_args->N = (T *)hook_out;" for the output argument */
#define PC_OUT_SET(ARGS) PC_EACH_END(PC_OST_A ARGS)
#define PC_OST_A(K, ...) PC_OST_##K(__VA_ARGS__) PC_OST_B
#define PC_OST_B(K, ...) PC_OST_##K(__VA_ARGS__) PC_OST_A
#define PC_OST_A_END
#define PC_OST_B_END
#define PC_OST_VAL(T, N)
#define PC_OST_IN(T, N, A, B, C)
#define PC_OST_OUT(T, N, A, B, C) hook_args->N = (T *)(void *)hook_out;

/* "hook_in = pc_hook_add(hook_in, BYTES);" for each input array */
#define PC_IN_SIZE(ARGS) PC_EACH_END(PC_ISZ_A ARGS)
#define PC_ISZ_A(K, ...) PC_ISZ_##K(__VA_ARGS__) PC_ISZ_B
#define PC_ISZ_B(K, ...) PC_ISZ_##K(__VA_ARGS__) PC_ISZ_A
#define PC_ISZ_A_END
#define PC_ISZ_B_END
#define PC_ISZ_VAL(T, N)
#define PC_ISZ_OUT(T, N, A, B, C)
#define PC_ISZ_IN(T, N, A, B, C) \
    hook_in = pc_hook_add(hook_in, pc_hook_bytes(PC_DIM(A), PC_DIM(B), PC_DIM(C), sizeof(T)));

/* "hook_args->N = (T *)pc_host_put(&hook_put, N, BYTES);" for each input
 * array (the includer defines pc_host_put) */
#define PC_IN_PUT(ARGS) PC_EACH_END(PC_IPT_A ARGS)
#define PC_IPT_A(K, ...) PC_IPT_##K(__VA_ARGS__) PC_IPT_B
#define PC_IPT_B(K, ...) PC_IPT_##K(__VA_ARGS__) PC_IPT_A
#define PC_IPT_A_END
#define PC_IPT_B_END
#define PC_IPT_VAL(T, N)
#define PC_IPT_OUT(T, N, A, B, C)
#define PC_IPT_IN(T, N, A, B, C) hook_args->N = (T *)pc_host_put(&hook_put, N, \
    pc_hook_bytes(PC_DIM(A), PC_DIM(B), PC_DIM(C), sizeof(T)));

/* "hook_args->N = (T *)pc_host_fix(hook_base, hook_args->N);" for each
 * input array (the includer defines pc_host_fix) */
#define PC_IN_FIX(ARGS) PC_EACH_END(PC_IFX_A ARGS)
#define PC_IFX_A(K, ...) PC_IFX_##K(__VA_ARGS__) PC_IFX_B
#define PC_IFX_B(K, ...) PC_IFX_##K(__VA_ARGS__) PC_IFX_A
#define PC_IFX_A_END
#define PC_IFX_B_END
#define PC_IFX_VAL(T, N)
#define PC_IFX_OUT(T, N, A, B, C)
#define PC_IFX_IN(T, N, A, B, C) hook_args->N = (T *)pc_host_fix(hook_base, hook_args->N);

/* A + B rounded up to 64 bytes, SIZE_MAX when that overflows. */
static inline size_t pc_hook_add(size_t a, size_t b)
{
    if (a == SIZE_MAX || b > SIZE_MAX - 63 || a > SIZE_MAX - 63 - b) return SIZE_MAX;
    return a + (b + 63) / 64 * 64;
}

/* the output's bytes: 0, or + pc_hook_bytes(A, B, C, sizeof (T)) */
#define PC_OUT_BYTES(ARGS) ((size_t)0 PC_EACH_END(PC_OSZ_A ARGS))
#define PC_OSZ_A(K, ...) PC_OSZ_##K(__VA_ARGS__) PC_OSZ_B
#define PC_OSZ_B(K, ...) PC_OSZ_##K(__VA_ARGS__) PC_OSZ_A
#define PC_OSZ_A_END
#define PC_OSZ_B_END
#define PC_OSZ_VAL(T, N)
#define PC_OSZ_IN(T, N, A, B, C)
#define PC_OSZ_OUT(T, N, A, B, C) + pc_hook_bytes(PC_DIM(A), PC_DIM(B), PC_DIM(C), sizeof(T))

/* A count of the table (an int or a size_t) as a size_t, negatives as 0. */
#define PC_DIM(X) ((X) > 0 ? (size_t)(X) : (size_t)0)

/* A * B * C elements of SIZE bytes, or SIZE_MAX when that overflows. */
static inline size_t pc_hook_bytes(size_t a, size_t b, size_t c, size_t size)
{
    size_t v = size;
    const size_t f[3] = { a, b, c };
    for (int k = 0; k < 3; k++) {
        if (f[k] != 0 && v > SIZE_MAX / f[k]) return SIZE_MAX;
        v *= f[k];
    }
    return v;
}

#endif
