/* cmd_list.c: `pecheck list`. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "harness/sandbox/impl.h"

int pc_cmd_list(int argc, char **argv)
{
    pc_opts o;
    pc_err err;
    pc_opts_defaults(&o);
    pc_status st = pc_opts_parse(argc, argv, PC_OPTS_LIST, 0, &o, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    printf("%-18s %-11s %s\n", "NAME", "FAMILY", "DESCRIPTION");
    for (size_t k = 0; k < pc_builtin_count(); k++) {
        const pc_impl *impl = pc_builtin_at(k);
        if (o.family && strcmp(o.family, impl->family_hint) != 0) continue;
        printf("%-18s %-11s %s\n", impl->name, impl->family_hint, impl->description);
    }
    return PC_EXIT_PASS;
}
