/* options.c: the sinusoidal family's encoding spec (sin_spec.h): --preset,
 * --freq-shift, --order, and the schedule they give the accuracy engine.
 * Formulas and the functions each preset follows: docs/sinusoidal.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sin_spec.h"
#include "families/family.h"
#include "families/spec_sched.h"
#include "harness/base/dtype.h"
#include "harness/base/parse.h"
#include "harness/io/npy.h"
#include "harness/engine/accuracy.h"

/* The libraries' formulas (docs/sinusoidal.md has each one's code). */
const pc_sin_preset pc_sin_presets[] = {
    { "vaswani", "Vaswani et al. 2017, section 3.5 (the PyTorch tutorial's PositionalEncoding)",
      0, 0, 0, 0, 0 },
    { "t2t", "tensor2tensor 1.15 layers/common_attention.py get_timing_signal_1d", 1, 1, 0, 0, 0 },
    { "fairseq", "fairseq 0.12 SinusoidalPositionalEmbedding.get_embedding (its forward reads "
      "rows from padding_idx + 1: --pos-start 2 for padding_idx 1)", 1, 1, 0, 2, 0 },
    { "whisper", "openai-whisper 20231117 whisper/model.py sinusoids", 1, 1, 0, 0, 0 },
    { "marian", "transformers 4.x MarianSinusoidalPositionalEmbedding._init_weight",
      0, 1, 0, 0, 0 },
    { "adm", "guided-diffusion nn.py timestep_embedding (and diffusers with "
      "flip_sin_to_cos=True, downscale_freq_shift=0, Stable Diffusion's UNet)", 0, 1, 1, 0, 1 },
    { "diffusers", "diffusers 0.2x models/embeddings.py get_timestep_embedding, its defaults "
      "(flip_sin_to_cos=False, downscale_freq_shift=1)", 1, 1, 0, 0, 1 },
};
const int pc_sin_n_presets = (int)(sizeof pc_sin_presets / sizeof pc_sin_presets[0]);

const pc_sin_preset *pc_sin_preset_find(const char *name)
{
    for (int k = 0; k < pc_sin_n_presets; k++)
        if (strcmp(pc_sin_presets[k].name, name) == 0) return &pc_sin_presets[k];
    return NULL;
}

void pc_sin_presets_of(int shift, int layout, int cos_first, char *buf, size_t len)
{
    size_t u = 0;
    int n = 0, last = -1;
    buf[0] = '\0';
    for (int k = 0; k < pc_sin_n_presets; k++) {
        const pc_sin_preset *p = &pc_sin_presets[k];
        if (p->shift != shift || p->layout != layout || p->cos_first != cos_first) continue;
        if (last >= 0 && u < len)
            u += (size_t)snprintf(buf + u, len - u, "%s%s", n ? ", " : "", pc_sin_presets[last].name);
        if (last >= 0) n++;
        last = k;
    }
    if (last >= 0 && u < len)
        snprintf(buf + u, len - u, "%s%s", n ? " and " : "", pc_sin_presets[last].name);
}

/* ---- the options -------------------------------------------------------- */

static pc_status check_preset(const char *v, pc_err *err)
{
    if (pc_sin_preset_find(v)) return PC_OK;
    char names[200];
    size_t u = 0;
    for (int k = 0; k < pc_sin_n_presets && u < sizeof names; k++)
        u += (size_t)snprintf(names + u, sizeof names - u, "%s%s", k ? ", " : "",
                              pc_sin_presets[k].name);
    return pc_seterr(err, PC_EINPUT, "--preset: expected one of %s, got '%s'", names, v);
}

static pc_status check_shift(const char *v, pc_err *err)
{
    if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) return PC_OK;
    return pc_seterr(err, PC_EINPUT, "--freq-shift: expected 0 (omega_i = base^(-2i/d)) or 1 "
                     "(base^(-i/(d/2-1)), tensor2tensor, fairseq, Whisper), got '%s'", v);
}

static pc_status check_order(const char *v, pc_err *err)
{
    if (strcmp(v, "sin-cos") == 0 || strcmp(v, "cos-sin") == 0) return PC_OK;
    return pc_seterr(err, PC_EINPUT, "--order: expected sin-cos or cos-sin (ADM, diffusers' "
                     "flip_sin_to_cos), got '%s'", v);
}

static pc_status check_scale(const char *v, pc_err *err)
{
    double k;
    pc_status st = pc_parse_double("--angle-scale", v, &k, err);
    if (st == PC_OK && !(k > 0.0 && isfinite(k)))
        return pc_seterr(err, PC_EINPUT, "--angle-scale: must be a finite number > 0, got %s", v);
    return st;
}

static pc_status check_min(const char *v, pc_err *err)
{
    double m;
    pc_status st = pc_parse_double("--min-timescale", v, &m, err);
    if (st == PC_OK && !(m > 0.0 && isfinite(m)))
        return pc_seterr(err, PC_EINPUT, "--min-timescale: must be a finite number > 0 "
                         "(tensor2tensor's min_timescale), got %s", v);
    return st;
}

/* --grid H,W (or G: G,G) into *H, *W; NULL: the check of the text only. */
static pc_status parse_grid(const char *v, int64_t *h, int64_t *w, pc_err *err)
{
    char a[32];
    const char *comma = strchr(v, ',');
    size_t n = comma ? (size_t)(comma - v) : strlen(v);
    if (n == 0 || n >= sizeof a)
        return pc_seterr(err, PC_EINPUT, "--grid: expected H,W (the grid's rows and columns, "
                         "e.g. 14,14 for a ViT-B/16 at 224 pixels), got '%s'", v);
    memcpy(a, v, n);
    a[n] = '\0';
    int64_t hh, ww; /* each side at most 2^20: H W rows of a table still fit its reader */
    pc_status st = pc_parse_i64("--grid", a, 1, 1 << 20, &hh, err);
    if (st == PC_OK) st = pc_parse_i64("--grid", comma ? comma + 1 : a, 1, 1 << 20, &ww, err);
    if (st == PC_OK && h) { *h = hh; *w = ww; }
    return st;
}

static pc_status check_grid(const char *v, pc_err *err)
{
    return parse_grid(v, NULL, NULL, err);
}

static pc_status check_cls(const char *v, pc_err *err)
{
    int64_t n;
    return pc_parse_i64("--cls-rows", v, 0, 1 << 20, &n, err);
}

static const pc_option options[] = {
    { "preset", "NAME", "sinusoidal: a library's formula: vaswani, t2t, fairseq, whisper, "
      "marian, adm, diffusers (its frequency shift, layout and order; docs/sinusoidal.md); "
      "--freq-shift, --order, --layout, --base override it", check_preset, 0 },
    { "freq-shift", "S", "sinusoidal: omega_i = base^(-i/(d/2 - S)): 0 the paper's (default), "
      "1 tensor2tensor's, fairseq's, Whisper's (diffusers' downscale_freq_shift)", check_shift,
      0 },
    { "order", "O", "sinusoidal: sin-cos (default) or cos-sin: which of a pair comes first in "
      "a table, [cos | sin] in the half layout (ADM; diffusers' flip_sin_to_cos)", check_order,
      0 },
    { "timesteps", "T.npy", "sinusoidal: the timestep of each row of a table (float32, float64 "
      "or int64, shape (n,)): the rows are timestep embeddings of these (fractional) timesteps "
      "(diffusers' get_timestep_embedding, ADM's timestep_embedding)", NULL, 1 },
    { "min-timescale", "M", "sinusoidal: tensor2tensor's min_timescale: omega_i = "
      "M (base/M)^(-i/(d/2 - S)), base its max_timescale (get_timing_signal_1d multiplies by "
      "M); default 1", check_min, 0 },
    { "angle-scale", "K", "sinusoidal: the angle is K t omega_i (diffusers' get_timestep_embedding "
      "scale); default 1", check_scale, 0 },
    { "grid", "H,W", "sinusoidal: a table of 2-D patch positions (MAE's, DiT's "
      "get_2d_sincos_pos_embed): row N + i W + j is [PE_{d/2}(j) | PE_{d/2}(i)], each half "
      "[sin | cos]; N: --cls-rows", check_grid, 0 },
    { "cls-rows", "N", "sinusoidal: with --grid, the table's N leading rows carry no position "
      "and must be zeros (MAE's cls_token=True: 1); default 0", check_cls, 0 },
};

/* ---- the spec ----------------------------------------------------------- */

const pc_sin_spec *pc_sin_spec_of(const pc_spec *spec)
{
    return spec && spec->family->spec == &pc_sin_spec_kind ? spec->own : NULL;
}

/* --timesteps PATH into S: one finite value a row. */
static pc_status read_timesteps(pc_sin_spec *s, const char *path, pc_err *err)
{
    pc_npy a;
    pc_status st = pc_npy_read_numbers(path, &a, err);
    if (st == PC_EIO) st = PC_EINPUT;
    if (st != PC_OK) return st;
    if (a.rank != 1 || a.count == 0)
        st = pc_seterr(err, PC_EINPUT, "--timesteps %s: expected shape (n,), one timestep a "
                       "row of the table", path);
    for (size_t k = 0; st == PC_OK && k < a.count; k++)
        if (!isfinite(a.data[k]))
            st = pc_seterr(err, PC_EINPUT, "--timesteps %s: value %zu is not finite", path, k);
    if (st == PC_OK) {
        s->timesteps_path = path;
        s->n_t = a.count;
        s->t = a.data;
        a.data = NULL;
    }
    pc_npy_free(&a);
    return st;
}

static void release(pc_spec *spec)
{
    pc_sin_spec *s = spec->own;
    if (s) free(s->t);
    pc_spec_free_own(spec);
}

static pc_status resolve(const pc_given *g, pc_spec *spec, pc_err *err)
{
    const char *preset = pc_given_value(g, "preset"), *shift = pc_given_value(g, "freq-shift");
    const char *order = pc_given_value(g, "order"), *ts = pc_given_value(g, "timesteps");
    const char *scale = pc_given_value(g, "angle-scale");
    const char *min = pc_given_value(g, "min-timescale");
    const char *grid = pc_given_value(g, "grid"), *cls = pc_given_value(g, "cls-rows");
    spec->own = NULL;
    if (cls && !grid)
        return pc_seterr(err, PC_EINPUT, "--cls-rows: the leading rows of a grid table; pass "
                         "--grid H,W too");
    if (grid && (ts || scale))
        return pc_seterr(err, PC_EINPUT, "--grid: the rows are grid positions, not timesteps: "
                         "drop %s", ts ? "--timesteps" : "--angle-scale");
    if (!preset && !shift && !order && !ts && !scale && !min && !grid) return PC_OK;
    pc_sin_spec *s = calloc(1, sizeof *s);
    if (!s) return pc_seterr(err, PC_ENOMEM, "out of memory");
    s->angle_scale = scale ? strtod(scale, NULL) : 1.0;
    s->scale_set = scale != NULL;
    pc_status st = ts ? read_timesteps(s, ts, err) : PC_OK;
    if (st != PC_OK) { free(s); return st; }
    if (ts) spec->rows_note = "the rows are timestep embeddings (--timesteps)";
    s->preset = preset ? pc_sin_preset_find(preset) : NULL;
    if (s->preset) {
        s->sched.shift = s->preset->shift;
        s->cos_first = s->preset->cos_first;
        if (spec->layout < 0) spec->layout = s->preset->layout;
        if (!spec->base_set)
            snprintf(spec->base_from, sizeof spec->base_from, "--preset %s", s->preset->name);
    }
    if (shift) { s->sched.shift = shift[0] == '1'; s->shift_set = 1; }
    if (order) { s->cos_first = strcmp(order, "cos-sin") == 0; s->order_set = 1; }
    s->sched.min_ts = min ? strtod(min, NULL) : 1.0;
    s->min_set = min != NULL;
    if (!(s->sched.min_ts < spec->base)) {
        free(s->t);
        free(s);
        return pc_seterr(err, PC_EINPUT, "--min-timescale %s: must be below the base "
                         "(tensor2tensor's max_timescale, --base) %.9g", min, spec->base);
    }
    spec->pair_swap = s->cos_first;
    if (grid) {
        parse_grid(grid, &s->grid_h, &s->grid_w, err);
        s->cls_rows = cls ? strtoll(cls, NULL, 10) : 0;
        spec->rows_note = "the rows are 2-D grid positions (--grid)";
        spec->pair_swap = 0;                /* each half's pairs: grid.c */
        if (spec->layout < 0) spec->layout = 1; /* each half [sin | cos], MAE's */
    }
    spec->own = s;
    return PC_OK;
}

static int scheduled(const pc_spec *spec)
{
    return spec->own != NULL;
}

/* The schedule of SPEC: base^(-i/(d/2 - S)) with the spec's base. */
static pc_status schedule(const pc_spec *spec, pc_acc_cfg *cfg, pc_spec_sched *hold, pc_err *err)
{
    (void)err;
    const pc_sin_spec *s = spec->own;
    if (!s) return PC_OK;
    hold->s = pc_sin_schedule(&s->sched, cfg->base);
    hold->own = NULL;
    hold->set = 1;
    char m[48] = "", over[48] = "";
    if (s->min_set) {
        snprintf(m, sizeof m, "%.17g (", s->sched.min_ts);
        snprintf(over, sizeof over, "/%.17g)", s->sched.min_ts);
    }
    snprintf(hold->note, sizeof hold->note, "omega_i = %s%.17g%s^(-i/(d/2%s))%s%s%s", m,
             cfg->base, over, s->sched.shift ? " - 1" : "",
             s->cos_first ? ", a table's pairs read cos first" : "", s->preset ? ": " : "",
             s->preset ? s->preset->follows : "");
    cfg->sched = &hold->s;
    cfg->sched_note = hold->note;
    return PC_OK;
}

static void args(const pc_spec *spec, char *buf, size_t len)
{
    const pc_sin_spec *s = spec->own;
    size_t u = strlen(buf);
    if (!s || u >= len) return;
    if (s->preset) u += (size_t)snprintf(buf + u, len - u, " --preset %s", s->preset->name);
    if (s->shift_set && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --freq-shift %d", s->sched.shift);
    if (s->order_set && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --order %s", s->cos_first ? "cos-sin" : "sin-cos");
    if (s->min_set && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --min-timescale %.17g", s->sched.min_ts);
    if (s->timesteps_path && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --timesteps %s", s->timesteps_path);
    if (s->scale_set && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --angle-scale %.17g", s->angle_scale);
    if (s->grid_h && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --grid %lld,%lld", (long long)s->grid_h,
                              (long long)s->grid_w);
    if (s->cls_rows && u < len)
        snprintf(buf + u, len - u, " --cls-rows %lld", (long long)s->cls_rows);
}

const pc_spec_kind pc_sin_spec_kind = {
    .options = options, .n_options = sizeof options / sizeof options[0],
    .resolve = resolve, .release = release,
    .schedule = schedule, .scheduled = scheduled, .args = args
};
