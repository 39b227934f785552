/* axes_match.h: which position axis each pair of a RoPE source follows
 * (axes_match.c). */
#ifndef PECHECK_ROPE_AXES_MATCH_H
#define PECHECK_ROPE_AXES_MATCH_H

#include <stdint.h>
#include "harness/sandbox/impl.h"
#include "harness/engine/accuracy.h"
#include "scaling.h"

/* For each of the D/2 pairs of IMPL's rows LO..HI (rows of AX's position
 * ids, LAYOUT, BASE the hook's argument), the axis whose positions times
 * OMEGA_i explain its angles into FOLLOW (-1: none); -1 when a call fails. */
int pc_rope_axes_follow(const pc_impl *impl, const pc_rope_axes *ax, const double *omega, int d,
                        double base, int layout, int64_t lo, int64_t hi, int *follow);
/* FOLLOW (H pairs, A axes) for people: "sections 24,16,24 (in turn)" or
 * its runs of pairs. */
void pc_rope_axes_describe_follow(const int *follow, int h, int A, char *buf, size_t len);
/* FOLLOW (H pairs, A axes) as --rope-sections' list ("16,24,24") into BUF:
 * 1 in turn (HF's order), 2 in the interleaved order, 0 neither (or a pair
 * that follows no axis). */
int pc_rope_axes_sections_of(const int *follow, int h, int A, char *buf, size_t len);
/* The likely cause of IMPL's failed gate under CFG, whose schedule has
 * position axes: the pairs that follow another axis than the check's. */
void pc_rope_axes_cause(const pc_impl *impl, const pc_acc_cfg *cfg, char *buf, size_t len);

/* Axial positions (axes_freqs.c): when IMPL's pairs turn along their own
 * axes at one power r != 1 of the check's frequencies OMEGA (D/2 of
 * them), the cause in BUF (the text model's base, the whole head's
 * exponents, another base); "" otherwise. */
void pc_rope_axes_freqs_cause(const pc_impl *impl, const pc_acc_cfg *cfg, const double *omega,
                              char *buf, size_t len);

#endif
