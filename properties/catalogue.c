/* catalogue.c: the catalogue of properties and look-ups in it.
 *
 * A property is registered by the families that run it: each descriptor
 * lists its properties in run order (pc_family.properties,
 * families/NAME/family.c).  The catalogue is their union in registry order,
 * each property once; a property applies to a family when the family
 * lists it.  Adding a property: its file and its line in its families'
 * descriptors.  (A property's `families` string says the same for people:
 * tests/properties_test.c checks that the two agree.) */
#include <pthread.h>
#include <string.h>
#include "property.h"
#include "families/family.h"
#include "harness/base/suggest.h"

#define PC_CATALOGUE_MAX 256  /* more properties than any registry holds */

static const pc_property *catalogue[PC_CATALOGUE_MAX];
static size_t n_catalogue;
static pthread_once_t built = PTHREAD_ONCE_INIT;

static int listed(const pc_property *p)
{
    for (size_t k = 0; k < n_catalogue; k++)
        if (catalogue[k] == p) return 1;
    return 0;
}

static void build(void)
{
    for (size_t f = 0; f < pc_family_count(); f++) {
        const pc_family *fam = pc_family_at(f);
        for (size_t k = 0; k < fam->n_properties && n_catalogue < PC_CATALOGUE_MAX; k++)
            if (!listed(fam->properties[k])) catalogue[n_catalogue++] = fam->properties[k];
    }
}

size_t pc_property_count(void)
{
    pthread_once(&built, build);
    return n_catalogue;
}

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

const char *pc_property_hint(const char *name, char *buf, size_t len)
{
    pc_suggest s;
    pc_suggest_init(&s, name);
    for (size_t k = 0; k < pc_property_count(); k++) pc_suggest_add(&s, catalogue[k]->name);
    return pc_suggest_text(&s, "", buf, len);
}

int pc_property_applies(const pc_property *p, const char *family)
{
    const pc_family *fam = pc_family_find(family);
    for (size_t k = 0; fam && k < fam->n_properties; k++)
        if (fam->properties[k] == p) return 1;
    return 0;
}
