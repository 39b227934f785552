/* catalogue.c: the list of properties, one line each, and look-ups in it.
 * Adding a property: its file in properties/ and its name in PC_PROPERTIES. */
#include <string.h>
#include "property.h"

#define PC_PROPERTIES(X) \
    X(unique) X(linear_shift) X(dot_distance) X(pair_norm) \
    X(rope_relative) X(rope_norm) X(decay) \
    X(equivariance) X(learned_range) X(extrapolation) X(accuracy) \
    X(t5_reference) X(t5_exact) X(t5_monotone) X(t5_saturate) X(t5_symmetric) X(t5_bias_relative) X(alibi_slopes) X(alibi_linear) X(alibi_relative) X(alibi_decay) X(txl_relative) X(txl_segment) X(txl_reference)

#define DECLARE(n) extern const pc_property pc_prop_##n;
PC_PROPERTIES(DECLARE)
#define ENTRY(n) &pc_prop_##n,
static const pc_property *const catalogue[] = { PC_PROPERTIES(ENTRY) };

size_t pc_property_count(void) { return sizeof catalogue / sizeof catalogue[0]; }

const pc_property *pc_property_at(size_t k)
{
    return k < pc_property_count() ? catalogue[k] : NULL;
}

const pc_property *pc_property_find(const char *name)
{
    for (size_t k = 0; k < pc_property_count(); k++)
        if (!strcmp(catalogue[k]->name, name))
            return catalogue[k];
    return NULL;
}

int pc_property_applies(const pc_property *p, const char *family)
{
    size_t n = strlen(family);
    for (const char *s = p->families; (s = strstr(s, family)) != NULL; s += n)
        if ((s == p->families || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\0'))
            return 1;
    return 0;
}
