/* cmd_reference.c: `pecheck reference`: the certified table as .npy.
 *
 * sinusoidal: shape (n, d), the layout's column order.
 * rope:       shape (n, d/2, 2): [r, i, 0] = cos(pos_r * omega_i),
 *             [r, i, 1] = sin(pos_r * omega_i) (one pair per frequency;
 *             --layout does not apply).
 * Values are correctly rounded to the --dtype (f32 default, or f64). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "npy.h"
#include "progress.h"
#include "../reference/reference.h"

/* Largest table written in one file: 2^28 values (1 GiB as f32). */
#define PC_REF_MAX_VALUES ((uint64_t)1 << 28)

int pc_cmd_reference(int argc, char **argv)
{
    pc_opts o;
    pc_err err = { "" };
    pc_opts_defaults(&o);
    int have_pos = 0, have_d = 0;
    for (int k = 0; k < argc; k++) {
        if (!strncmp(argv[k], "--positions", 11) || !strncmp(argv[k], "--max-pos", 9)) have_pos = 1;
        if (!strcmp(argv[k], "--d") || !strncmp(argv[k], "--d=", 4)) have_d = 1;
    }
    pc_status st = pc_opts_parse(argc, argv,
        "family d base layout positions max-pos out dtype quiet", 0, &o, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    if (!o.family)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--family is required (sinusoidal or rope)"), &err);
    int rope = !strcmp(o.family, "rope");
    if (!rope && strcmp(o.family, "sinusoidal"))
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT,
                           "--family: expected sinusoidal or rope, got '%s'", o.family), &err);
    if (!have_d)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--d is required"), &err);
    if (!have_pos)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--positions A:B is required"), &err);
    if (!o.out)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--out FILE.npy is required"), &err);
    if (o.dtype != PC_DT_F32 && o.dtype != PC_DT_F64)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--dtype: reference writes f32 or f64"), &err);

    uint64_t n = (uint64_t)(o.pos_hi - o.pos_lo) + 1, d = (uint64_t)o.d;
    if (n > PC_REF_MAX_VALUES / d)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "table of %llu x %llu values is larger than "
                           "the 2^28 values one file may hold; split the positions",
                           (unsigned long long)n, (unsigned long long)d), &err);
    int f64 = o.dtype == PC_DT_F64;
    void *buf = malloc((size_t)(n * d) * (f64 ? sizeof(double) : sizeof(float)));
    pc_freqs *fr = pc_freqs_new(o.d, o.base);
    if (!buf || !fr) {
        free(buf); pc_freqs_free(fr);
        return pc_cli_fail(pc_seterr(&err, PC_ENOMEM, "out of memory for the table"), &err);
    }
    int layout = o.layout < 0 ? 0 : o.layout;
    pc_progress pr;
    pc_progress_start(&pr, "reference", o.quiet);
    for (uint64_t r = 0; r < n && st == PC_OK; r++) {
        int64_t pos = o.pos_lo + (int64_t)r;
        float *o32 = f64 ? NULL : (float *)buf + r * d;
        double *o64 = f64 ? (double *)buf + r * d : NULL;
        if (!rope) {
            st = pc_ref_sinusoidal_row(fr, pos, layout, o32, o64);
        } else {
            for (int i = 0; i < o.d / 2 && st == PC_OK; i++) {
                pc_ref2 s, c;
                st = pc_ref_sincos(fr, pos, i, &s, &c);
                if (o32) { o32[2 * i] = c.f32; o32[2 * i + 1] = s.f32; }
                if (o64) { o64[2 * i] = c.f64; o64[2 * i + 1] = s.f64; }
            }
        }
        pc_progress_update(&pr, r + 1, n);
    }
    pc_progress_end(&pr);
    pc_freqs_free(fr);
    if (st != PC_OK) {
        free(buf);
        return pc_cli_fail(pc_seterr(&err, PC_EINTERNAL, "reference: precision ceiling reached"), &err);
    }
    size_t shape[3] = { (size_t)n, (size_t)d, 1 };
    int rank = 2;
    if (rope) { shape[1] = (size_t)d / 2; shape[2] = 2; rank = 3; }
    st = f64 ? pc_npy_write_f64(o.out, buf, rank, shape, &err)
             : pc_npy_write_f32(o.out, buf, rank, shape, &err);
    free(buf);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    if (!o.quiet)
        fprintf(stderr, "pecheck: wrote %s (%llu positions x %d, %s)\n", o.out,
                (unsigned long long)n, o.d, f64 ? "f64" : "f32");
    return PC_EXIT_PASS;
}
