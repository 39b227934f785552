/* positions.c: RoPE positions with several axes (scaling.h).
 *
 * --position-ids POS.npy (shape (n,) or (n, A)): row r of the table, or
 * of the run's positions, is rotated by POS[r]: integers (int16/32/64, or
 * float values all whole in [0, 2^53], read as those integers), or real
 * coordinates (float32 or float64 as stored, of either sign: a ViT's
 * interpolated grid, DINOv3's patch centres in [-1, 1]), each its exact
 * binary64 value.  With A > 1
 * axes each pair follows one of them:
 *   M-RoPE (Qwen2-VL, transformers' apply_multimodal_rotary_pos_emb): the
 *     one schedule's pairs in sections, mrope_section [s_0, s_1, s_2]
 *     (from the config, or --rope-sections), pairs [0, s_0) axis 0, the
 *     next s_1 axis 1, ...; the interleaved order of the newer Qwen-VL
 *     (apply_interleaved_mrope, mrope_interleaved): pair j follows axis 1
 *     when j mod 3 = 1 and j < 3 s_1, axis 2 when j mod 3 = 2 and
 *     j < 3 s_2, else axis 0;
 *   axial RoPE (FLUX's EmbedND axes_dim, 2-D ViT): --rope-axes-dim
 *     a_0,a_1,...: the pairs of axis k are the next a_k / 2, pair j of the
 *     axis with frequency base^(-2j/a_k).
 * A pair's angle is its axis' position times its frequency, certified as
 * for one position (schedule_axes.c maps the row to the pair's position). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scaling.h"
#include "harness/base/parse.h"
#include "harness/io/npy.h"
#include "harness/base/dtype.h"

/* "a,b,c" of OPT into V (at most PC_ROPE_AXES_MAX numbers in [LO, HI]). */
static pc_status parse_list(const char *opt, const char *text, int lo, int hi, int *v, int *n,
                            pc_err *err)
{
    const char *p = text;
    *n = 0;
    while (*p) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p || x < lo || x > hi || *n >= PC_ROPE_AXES_MAX || (*end && *end != ','))
            return pc_seterr(err, PC_EINPUT, "%s: expected up to %d numbers in [%d, %d] separated "
                             "by commas, got '%s'", opt, PC_ROPE_AXES_MAX, lo, hi, text);
        v[(*n)++] = (int)x;
        p = *end ? end + 1 : end;
    }
    if (*n == 0) return pc_seterr(err, PC_EINPUT, "%s: empty list", opt);
    return PC_OK;
}

/* A whole number in [0, 2^53]: an integer position (a coordinate of that
 * value is the integer itself). */
static int integral(double v)
{
    return v >= 0.0 && v <= (double)PC_POS_MAX && v == floor(v);
}

/* A's values checked: finite, and for integers (dtype 'i') in [0, 2^53];
 * *ALL_INT: every value integral.  A NaN or an infinity names its row. */
static pc_status check_values(const pc_npy *a, const char *path, int *all_int, pc_err *err)
{
    size_t cols = a->rank == 2 ? a->shape[1] : 1;
    *all_int = 1;
    for (size_t k = 0; k < a->count; k++) {
        double v = a->data[k];
        if (!isfinite(v) || fabs(v) > (double)PC_POS_MAX)
            return pc_seterr(err, PC_EINPUT, "%s: position ids row %zu, axis %zu is %g: every "
                             "position must be finite (|x| <= 2^53); a row without a position "
                             "(a cls or register token) is given 0 on every axis, the zero angle "
                             "(cos 1, sin 0)", path, k / cols, k % cols, v);
        if (a->dtype[1] == 'i' && v < 0.0)
            return pc_seterr(err, PC_EINPUT, "%s: position %zu is %.0f, outside [0, 2^53] "
                             "(integer ids; signed coordinates are given as float32 or float64)",
                             path, k, v);
        if (!integral(v)) *all_int = 0;
    }
    return PC_OK;
}

/* A's values as S's positions: integers into S->ids, or (some value not a
 * whole number in [0, 2^53]) real coordinates into S->coords, exact, with
 * S->ids -1 throughout and S->max_id the largest |x| rounded up. */
static pc_status keep_values(pc_rope_spec *s, const pc_npy *a, int all_int, pc_err *err)
{
    s->ids = malloc(a->count * sizeof *s->ids);
    s->coords = all_int ? NULL : malloc(a->count * sizeof *s->coords);
    if (!s->ids || (!all_int && !s->coords))
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    for (size_t k = 0; k < a->count; k++) {
        double v = a->data[k];
        s->ids[k] = all_int ? (int64_t)v : -1;
        if (!all_int) s->coords[k] = v;
        int64_t far = (int64_t)ceil(fabs(v)); /* |v| <= 2^53 (check_values) */
        if (far > s->max_id) s->max_id = far;
    }
    s->n_ids = (int64_t)a->shape[0];
    s->n_id_axes = a->rank == 2 ? (int)a->shape[1] : 1;
    return PC_OK;
}

static pc_status check_shape(const pc_npy *a, const char *path, pc_err *err)
{
    if (a->dtype[1] != 'i' && a->dtype[1] != 'f')
        return pc_seterr(err, PC_EINPUT, "%s: position ids are integers (int64, int32, int16) or "
                         "coordinates (float32, float64), not %s", path, a->dtype);
    if (a->rank == 2 && a->shape[0] <= PC_ROPE_AXES_MAX && a->shape[1] > PC_ROPE_AXES_MAX)
        /* HF's get_rope_index gives (3, batch, n): one row an axis */
        return pc_seterr(err, PC_EINPUT, "%s: position ids of shape (%zu, %zu) hold one axis a "
                         "row (HF's layout); pecheck reads a row a position: save ids.T, shape "
                         "(%zu, %zu)", path, a->shape[0], a->shape[1], a->shape[1], a->shape[0]);
    if (a->rank > 2 || (a->rank == 2 && a->shape[1] > PC_ROPE_AXES_MAX))
        return pc_seterr(err, PC_EINPUT, "%s: position ids must be of shape (n,) or (n, A) "
                         "with A <= %d", path, PC_ROPE_AXES_MAX);
    return PC_OK;
}

/* --position-ids: integers (int16/32/64, or floats all whole in [0, 2^53],
 * read as those integers: the same positions, the same run), or real
 * coordinates (float32, float64 as stored: each value exactly). */
static pc_status read_ids(pc_rope_spec *s, const char *path, pc_err *err)
{
    pc_npy a = { 0 };
    pc_status st = pc_npy_read_numbers(path, &a, err);
    if (st == PC_EIO) st = PC_EINPUT;
    char *paren = strstr(err->msg, " (expected <f2, <f4 or <f8)");
    if (st == PC_EINPUT && strstr(err->msg, "unsupported dtype") && paren) {
        *paren = '\0'; /* the reader's list is a table's: the ids' is longer */
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%.300s (position ids: int16, int32 or int64, or float32 or float64 "
                 "coordinates; save ids.astype(numpy.int64))", err->msg);
        return pc_seterr(err, PC_EINPUT, "%s", m);
    }
    if (st != PC_OK) return st;
    int all_int = 1;
    st = check_shape(&a, path, err);
    if (st == PC_OK) st = check_values(&a, path, &all_int, err);
    if (st == PC_OK) st = keep_values(s, &a, all_int, err);
    pc_npy_free(&a);
    return st;
}

pc_status pc_rope_scale_parse(const char *v, double *k, int *pi, pc_err *err)
{
    size_t n = strlen(v);
    *pi = n >= 2 && !strcmp(v + n - 2, "pi");
    *k = 1.0;
    char num[64];
    if (n - (*pi ? 2 : 0) >= sizeof num)
        return pc_seterr(err, PC_EINPUT, "--rope-angle-scale: too long: '%s'", v);
    snprintf(num, sizeof num, "%.*s", (int)(n - (*pi ? 2u : 0u)), v);
    pc_status st = *pi && !num[0] ? PC_OK : pc_parse_double("--rope-angle-scale", num, k, err);
    if (st != PC_OK || !(*k > 0.0 && *k <= 0x1p64)) /* the message names the whole argument */
        st = pc_seterr(err, PC_EINPUT, "--rope-angle-scale: expected a number in (0, 2^64] or "
                       "a multiple of pi (pi, 2pi), got '%s'", v);
    return st;
}

/* --rope-axes-halves and --rope-freq-dtype (or a config's word for them)
 * into S: both are of the position ids' kind (schedule_axes.c), the
 * halves of axial RoPE's axes. */
/* float16's largest finite value (65504 = (2 - 2^-10) 2^15): a larger
 * position held in float16 is infinite */
#define F16_MAX_WHOLE 65504

static pc_status halves_read(pc_rope_spec *s, const pc_rope_opts *o, pc_err *err)
{
    if (o->axes_halves) s->axes_halves = 1;
    if (o->freq_dtype) s->p.freq_dtype = strcmp(o->freq_dtype, "bf16") ? PC_DT_F16 : PC_DT_BF16;
    if (o->axes_halves && !s->n_axes_dim)
        return pc_seterr(err, PC_EINPUT, "--rope-axes-halves lays out the dims of each axis of "
                         "--rope-axes-dim: give --rope-axes-dim too (ChatGLM-6B: 64,64)");
    if (o->freq_dtype && !o->ids_path)
        return pc_seterr(err, PC_EINPUT, "--rope-freq-dtype rounds the frequencies of the rows "
                         "of --position-ids: give --position-ids POS.npy (one axis: the rows' "
                         "positions, (n,))");
    if (o->angle_dtype) s->p.angle_dtype = PC_DT_F16;
    if (o->angle_dtype && !o->ids_path)
        return pc_seterr(err, PC_EINPUT, "--rope-angle-dtype takes the angles of the rows of "
                         "--position-ids: give --position-ids POS.npy (one axis: (n,))");
    if (o->angle_dtype && s->max_id > F16_MAX_WHOLE)
        return pc_seterr(err, PC_EINPUT, "--rope-angle-dtype f16: %s holds position %lld, above "
                         "float16's largest finite value 65504 (t in float16 overflows)",
                         o->ids_path, (long long)s->max_id);
    if (s->p.freq_dtype && s->p.type != PC_ROPE_DEFAULT)
        return pc_seterr(err, PC_EINPUT, "--rope-freq-dtype rounds a plain schedule's "
                         "frequencies: not with a rope_scaling");
    return PC_OK;
}

pc_status pc_rope_axes_read(pc_rope_spec *s, const pc_rope_opts *o, pc_err *err)
{
    pc_status st = PC_OK;
    if (o->sections) {
        st = parse_list("--rope-sections", o->sections, 0, PC_D_MAX / 2, s->sections,
                        &s->n_sections, err);
        s->sections_interleaved = 0;
    }
    if (o->sections_interleaved) s->sections_interleaved = 1;
    if (st == PC_OK && o->axes_dim)
        st = parse_list("--rope-axes-dim", o->axes_dim, 2, PC_D_MAX, s->axes_dim, &s->n_axes_dim,
                        err);
    if (st == PC_OK && o->ids_path) st = read_ids(s, o->ids_path, err);
    if (st == PC_OK && o->angle_scale)
        st = pc_rope_scale_parse(o->angle_scale, &s->p.scale_k, &s->p.scale_pi, err);
    if (st != PC_OK) return st;
    /* the scale is folded into the frequencies of the position ids' kind
     * (schedule_axes.c) */
    if (o->angle_scale && !o->ids_path)
        return pc_seterr(err, PC_EINPUT, "--rope-angle-scale scales the angles of the rows of "
                         "--position-ids: give --position-ids POS.npy");
    if (s->n_axes_dim && !o->ids_path && s->axes_from)
        return pc_seterr(err, PC_EINPUT, "%s rotates each half of the head by its own position: "
                         "give --position-ids POS.npy, (n, 2) int64: %s", s->axes_from,
                         s->tower_ids);
    if (s->n_axes_dim && !o->ids_path)
        return pc_seterr(err, PC_EINPUT, "--rope-axes-dim rotates each axis by its own position: "
                         "give --position-ids POS.npy");
    if (o->sections_interleaved && !s->n_sections)
        return pc_seterr(err, PC_EINPUT, "--mrope-interleaved orders the sections: give "
                         "--rope-sections (or a config with mrope_section)");
    /* axial RoPE restarts the frequencies in each axis: over ids of one
     * axis that is not the plain schedule the ids' rows would be held to */
    if (s->n_axes_dim && s->n_id_axes == 1 && !o->axes_dim) /* a config's vision tower */
        return pc_seterr(err, PC_EINPUT, "%s%s splits the pairs into %d axes but %s has 1 "
                         "position axis: give ids of shape (rows, %d): %s", s->axes_from
                         ? s->axes_from : "the vision tower of ", s->axes_from ? "" : o->config,
                         s->n_axes_dim, o->ids_path, s->n_axes_dim, s->tower_ids);
    if (s->n_axes_dim && s->n_id_axes == 1)
        return pc_seterr(err, PC_EINPUT, "--rope-axes-dim %s splits the pairs into %d axes but %s "
                         "has 1 position axis: give ids of shape (rows, %d), a column per axis, "
                         "or drop --rope-axes-dim", o->axes_dim, s->n_axes_dim, o->ids_path,
                         s->n_axes_dim);
    if (o->axes_parity) s->axes_parity = 1; /* else the config's vision tower's, or none */
    if (o->axes_parity && !s->n_axes_dim)
        return pc_seterr(err, PC_EINPUT, "--rope-axes-parity shares one schedule among the axes "
                         "of --rope-axes-dim: give --rope-axes-dim too (Pixtral: 32,32 for head "
                         "dim 64)");
    for (int k = 1; o->axes_parity && k < s->n_axes_dim; k++)
        if (s->axes_dim[k] != s->axes_dim[0])
            return pc_seterr(err, PC_EINPUT, "--rope-axes-parity takes axes of equal dims (the "
                             "frequencies alternate among them); --rope-axes-dim %s differ",
                             o->axes_dim);
    if (s->n_axes_dim && (s->n_sections || s->p.type != PC_ROPE_DEFAULT))
        return pc_seterr(err, PC_EINPUT, "--rope-axes-dim gives each axis its own geometric "
                         "schedule: not with sections or a rope_scaling");
    return halves_read(s, o, err);
}

/* ---- the pairs' axes for a width ------------------------------------------------ */

static pc_status by_sections(const pc_rope_spec *s, int h, pc_rope_axes *a, pc_err *err)
{
    int sum = 0;
    for (int k = 0; k < s->n_sections; k++) sum += s->sections[k];
    if (sum != h)
        return pc_seterr(err, PC_EINPUT, "the sections (mrope_section or --rope-sections) hold %d "
                         "pairs but d = %d has %d", sum, 2 * h, h);
    for (int j = 0, k = 0, left = s->sections[0]; j < h; j++) {
        if (s->sections_interleaved) {
            int m = j % 3;
            a->axis[j] = m > 0 && m < s->n_sections && j < 3 * s->sections[m] ? m : 0;
            continue;
        }
        while (left == 0) left = s->sections[++k];
        a->axis[j] = k;
        left--;
    }
    return PC_OK;
}

static pc_status by_axes_dim(const pc_rope_spec *s, int d, pc_rope_axes *a, pc_err *err)
{
    int sum = 0;
    for (int k = 0; k < s->n_axes_dim; k++) {
        if (s->axes_dim[k] % 2)
            return pc_seterr(err, PC_EINPUT, "--rope-axes-dim: %d dims of axis %d are odd",
                             s->axes_dim[k], k);
        sum += s->axes_dim[k];
    }
    if (sum != d)
        return pc_seterr(err, PC_EINPUT, "--rope-axes-dim holds %d dims but d = %d", sum, d);
    a->axial = 1;
    a->parity = s->axes_parity;
    for (int k = 0, j = 0; k < s->n_axes_dim; k++) {
        a->axes_dim[k] = s->axes_dim[k];
        for (int l = 0; l < s->axes_dim[k] / 2; l++, j++) { a->axis[j] = k; a->local[j] = l; }
    }
    return PC_OK;
}

/* How many axes the pairs are split into; PC_EINPUT when it is not the ids'. */
static pc_status check_count(const pc_rope_spec *s, pc_err *err)
{
    int want = s->n_axes_dim ? s->n_axes_dim : s->n_sections;
    if (s->n_id_axes > 1 && want == 0)
        return pc_seterr(err, PC_EINPUT, "%s has %d position axes: say how the pairs follow them "
                         "(--rope-sections, --rope-axes-dim, or a config with mrope_section)",
                         s->given.ids_path, s->n_id_axes);
    if (s->n_id_axes > 1 && want != s->n_id_axes)
        return pc_seterr(err, PC_EINPUT, "%s has %d position axes but the pairs are split into %d "
                         "(%s)", s->given.ids_path, s->n_id_axes, want, s->axes_from
                         ? s->axes_from : s->tower_ids ? "the vision tower's two axes" : s->n_axes_dim ? "--rope-axes-dim"
                         : "mrope_section or --rope-sections");
    return PC_OK;
}

/* Row A's positions against row B's, lexicographic: <0, 0, >0. */
int pc_rope_axes_cmp(const pc_rope_axes *x, const int64_t *pa, const int64_t *pb)
{
    for (int j = 0; j < x->n_axes; j++)
        if (pa[j] != pb[j]) return pa[j] < pb[j] ? -1 : 1;
    return 0;
}

/* X->order: the rows sorted by their positions (a merge sort: rows with
 * equal positions keep their order). */
static int sort_rows(pc_rope_axes *x)
{
    int64_t n = x->n, *tmp = malloc((size_t)n * sizeof *tmp);
    x->order = malloc((size_t)n * sizeof *x->order);
    if (!tmp || !x->order) { free(tmp); return -1; }
    for (int64_t k = 0; k < n; k++) x->order[k] = k;
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                const int64_t *pi = x->ids + x->order[i] * x->n_axes, *pj = x->ids + x->order[j] * x->n_axes;
                tmp[k++] = pc_rope_axes_cmp(x, pj, pi) < 0 ? x->order[j++] : x->order[i++];
            }
            while (i < mid) tmp[k++] = x->order[i++];
            while (j < hi) tmp[k++] = x->order[j++];
        }
        memcpy(x->order, tmp, (size_t)n * sizeof *tmp);
    }
    free(tmp);
    return 0;
}

pc_status pc_rope_axes_new(const pc_rope_spec *s, int d, pc_rope_axes **out, pc_err *err)
{
    *out = NULL;
    if (!s->ids) return PC_OK;
    pc_status st = check_count(s, err);
    if (st != PC_OK) return st;
    int h = d / 2;
    pc_rope_axes *a = calloc(1, sizeof *a);
    if (a) { a->axis = calloc((size_t)h, sizeof *a->axis); a->local = calloc((size_t)h, sizeof *a->local); }
    if (!a || !a->axis || !a->local) {
        pc_rope_axes_free(a);
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    a->ids = s->ids;
    a->coords = s->coords;
    a->n = s->n_ids;
    a->n_axes = s->n_id_axes;
    if (sort_rows(a) != 0) {
        pc_rope_axes_free(a);
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    if (s->n_id_axes > 1)
        st = s->n_axes_dim ? by_axes_dim(s, d, a, err) : by_sections(s, h, a, err);
    if (st != PC_OK) { pc_rope_axes_free(a); return st; }
    *out = a;
    return PC_OK;
}

void pc_rope_axes_free(pc_rope_axes *a)
{
    if (!a) return;
    free(a->axis);
    free(a->local);
    free(a->order);
    free(a);
}

void pc_rope_axes_describe(const pc_rope_spec *s, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!s->ids) return;
    int n = snprintf(buf, len, "%s of %d ax%s from %.150s (%lld rows)",
                     s->coords ? "real coordinates" : "positions", s->n_id_axes,
                     s->n_id_axes == 1 ? "is" : "es", s->given.ids_path, (long long)s->n_ids);
    const int *v = s->n_axes_dim ? s->axes_dim : s->sections;
    int m = s->n_axes_dim ? s->n_axes_dim : s->n_sections;
    if (n < 0 || (size_t)n >= len) return;
    if (s->n_id_axes < 2) { /* every section reads the one axis: the plain schedule */
        if (s->n_sections)
            snprintf(buf + n, len - (size_t)n, ", sections over one axis (each pair at the row's "
                     "position: the plain schedule)");
        return;
    }
    n += snprintf(buf + n, len - (size_t)n, ", %s ", s->n_axes_dim ? (s->axes_parity
                  ? "axial by parity (one schedule, alternating axes), dims" : "axial, dims")
                  : s->sections_interleaved ? "sections (interleaved)" : "sections");
    for (int k = 0; k < m && n > 0 && (size_t)n < len; k++)
        n += snprintf(buf + n, len - (size_t)n, "%s%d", k ? "," : "", v[k]);
}
