/* registry.c: the list of built-in implementations, in `pecheck list` order.
 * Adding a built-in: one file in families/NAME/ defining a pc_impl, one line here. */
#include <string.h>
#include "../harness/impl.h"

#define PC_BUILTINS(X) \
    X(torch_exp) X(torch_pow) X(double_angle) \
    X(bf16_positions) X(sin_only) X(cos_shifted) X(rotate_recurrence) X(plus_1e4) \
    X(rope_polar) X(rope_half) X(rope_bf16_cache) \
    X(learned_table) X(learned_clamp) \
    X(attention_f32) \
    X(attention_sinpe) X(attention_nocausal) \
    X(t5_hf) X(t5_round) X(t5_max_exact) X(t5_no_clamp) X(alibi_paper) X(alibi_pow2) X(txl_f32) X(txl_absolute)

#define DECLARE(n) extern const pc_impl pc_impl_##n;
PC_BUILTINS(DECLARE)
#define ENTRY(n) &pc_impl_##n,
static const pc_impl *const builtins[] = { PC_BUILTINS(ENTRY) };

size_t pc_builtin_count(void) { return sizeof builtins / sizeof builtins[0]; }

const pc_impl *pc_builtin_at(size_t k)
{
    return k < pc_builtin_count() ? builtins[k] : NULL;
}

const pc_impl *pc_builtin_find(const char *name)
{
    for (size_t k = 0; k < pc_builtin_count(); k++)
        if (strcmp(builtins[k]->name, name) == 0)
            return builtins[k];
    return NULL;
}
