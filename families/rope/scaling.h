/* scaling.h: RoPE frequency schedules as production models ship them
 * (HuggingFace transformers' rope_scaling, llama.cpp's rope_freqs), as
 * certified schedules of the reference (reference/schedule.h).
 *
 * One file a schedule: schedule_linear.c, schedule_dynamic.c,
 * schedule_yarn.c, schedule_longrope.c, schedule_llama3.c,
 * schedule_freqs.c (per-pair frequency factors); the default schedule is
 * the geometric one (reference/schedule_geometric.c) over the rotary dim.
 * Every parameter is a binary64 number; each omega_i is an exact real
 * function of them, evaluated in interval arithmetic (MPFI) until the
 * interval is narrow enough for the schedule contract; a branch (llama3's
 * wavelength bands, yarn's floor/ceil and clamps) is decided once, by
 * intervals at rising precision (scaling.c).  Formulas and the precision
 * model of each: docs/schedules.md. */
#ifndef PECHECK_ROPE_SCALING_H
#define PECHECK_ROPE_SCALING_H

#include <mpfi.h>
#include "reference/reference.h"
#include "reference/schedule.h"
#include "harness/base/status.h"
#include "reference/round.h"

#define PC_ROPE_AXES_MAX 4    /* position axes (M-RoPE sections, axial RoPE) */

/* Positions with several axes (positions.c, schedule_axes.c): row r is
 * rotated by the A positions IDS[r*A .. r*A+A); each pair follows one
 * axis.  M-RoPE: one frequency schedule, its pairs split into sections;
 * axial: each axis its own geometric schedule over its own dims. */
typedef struct pc_rope_axes {
    const int64_t *ids;       /* N x A, row-major (the spec's) */
    /* real coordinates (a ViT's patch coordinates, --position-ids of
     * float32 or float64 not all whole numbers in [0, 2^53]): N x A exact
     * binary64 values, IDS then -1 throughout (no integer position);
     * NULL: the positions are IDS */
    const double *coords;
    int64_t n;
    int n_axes;
    int axial;
    int parity;               /* axial: axis k of A takes frequencies k, k + A, ... of one
                               * schedule over all the axes' dims (Pixtral's freqs[::2],
                               * freqs[1::2]), not a schedule of its own */
    int axes_dim[PC_ROPE_AXES_MAX]; /* axial: the dims of each axis */
    int *axis, *local;        /* per pair: its axis, and its index within it (axial) */
    int64_t *order;           /* the N rows sorted by their positions (lexicographic) */
} pc_rope_axes;

/* The position of ROW on AXIS (A's real coordinate, or its integer). */
static inline double pc_rope_axes_x(const pc_rope_axes *a, int64_t row, int axis)
{
    size_t k = (size_t)(row * a->n_axes + axis);
    return a->coords ? a->coords[k] : (double)a->ids[k];
}

enum pc_rope_type {
    PC_ROPE_DEFAULT = 0, PC_ROPE_LINEAR, PC_ROPE_DYNAMIC, PC_ROPE_YARN,
    PC_ROPE_LONGROPE, PC_ROPE_LLAMA3, PC_ROPE_FREQS
};

/* llama3 bands of a pair (decided by pc_rope_prepare) */
enum { PC_BAND_LOW = 0, PC_BAND_SMOOTH = 1, PC_BAND_HIGH = 2 };
/* yarn ramp of a pair: 0 (extrapolated), in between, 1 (interpolated) */
enum { PC_RAMP_ZERO = 0, PC_RAMP_MID = 1, PC_RAMP_ONE = 2 };

typedef struct pc_rope_params {
    int type;                 /* enum pc_rope_type */
    int dim;                  /* rotary dim: pairs 0 .. dim/2 - 1 */
    double base;              /* rope_theta */
    double factor;            /* linear, dynamic, yarn, longrope, llama3 */
    double max_pos;           /* max_position_embeddings (dynamic, yarn, longrope) */
    double orig_max;          /* original_max_position_embeddings (yarn, longrope, llama3) */
    double seq_len;           /* dynamic, longrope: the length the cache was built for */
    int seq_len_set;
    /* dynamic with rope_scaling.alpha (HunYuan; vLLM's
     * DynamicNTKAlphaRotaryEmbedding): base' = base alpha^(dim/(dim-2)) at
     * every length, in place of the factor's t (0: none) */
    double ntk_alpha;
    /* yarn */
    double beta_fast, beta_slow, mscale, mscale_all_dim;
    int truncate;
    /* yarn, longrope: a given attention_factor */
    double attention_factor;
    int att_given;
    /* longrope: the factors in force (short or long, by seq_len), dim/2 of them */
    double *ext;
    int use_long;
    /* llama3 */
    double low_freq_factor, high_freq_factor;
    /* rope_freqs: per-pair divisors of the frequency, dim/2 of them */
    double *ff;
    /* decided by pc_rope_prepare */
    int *band;                /* llama3: enum of the band, per pair */
    int *ramp;                /* yarn: PC_RAMP_*, per pair */
    long yarn_low, yarn_high; /* yarn with truncate: the integers */
    int att_one;              /* the attention factor is exactly 1 */
    double att_d;             /* A in binary64 (display, the bound) */
    double *model_c;          /* the precision model's C, per pair */
    /* the spec the parameters were made from (pc_rope_instantiate; NULL:
     * none): the likely cause names the config's other layer types */
    const struct pc_rope_spec *from;
    pc_rope_axes *axes;       /* positions with several axes (NULL: one a row); owned */
    /* --rope-angle-scale: the angle is S x omega_i, S = scale_k pi^scale_pi
     * (scale_k a binary64; 0: no scale), folded into the certified omega_i
     * of the axes' kind (schedule_axes.c) */
    double scale_k;
    int scale_pi;
    /* --rope-freq-dtype: omega_i (before the angle scale) rounded to nearest
     * in this type (enum pc_dtype: PC_DT_F16, PC_DT_BF16; 0, PC_DT_F32:
     * not rounded), certified (schedule_axes.c): a model holding inv_freq
     * in half precision, ChatGLM-6B's RotaryEmbedding (inv_freq.half()) */
    int freq_dtype;
    /* --rope-angle-dtype f16: each angle a float16 value, fl16(fl16(x)
     * fl16(omega_i)) (a model run in float16: t, inv_freq and their
     * product in half, ChatGLM-6B under .half()), the kind of
     * schedule_axes.c's half angles certifying cos and sin of it exactly;
     * OMEGA_S: the float16 frequencies (binary64, exact), one a pair */
    int angle_dtype;
    double *omega_s;
    /* xPos (schedule_xpos.c): pair i's cos and sin at row pos times
     * zeta_i^(sign (pos + q0) / B); B = XPOS_BASE (0: no xPos), q0 =
     * XPOS_Q0 (torchscale's centring -(n // 2)... when not XPOS_Q0_SET:
     * floor(-n/2), n the rows' last position + 1), sign -1 with
     * XPOS_DOWN (the keys'); XPOS_QMAX: the largest |pos + q0| of the run */
    double xpos_base;
    int64_t xpos_q0;
    int xpos_q0_set, xpos_down;
    int64_t xpos_qmax;
} pc_rope_params;

/* Axial or M-RoPE positions whose angles are float16 values
 * (schedule_axes.c, --rope-angle-dtype): omega_i 1, the angle the
 * coordinate; and P's float16 frequencies into P->omega_s
 * (pc_rope_instantiate). */
extern const pc_schedule_kind pc_kind_rope_half_angles;
pc_status pc_rope_half_angles_prepare(pc_rope_params *p, pc_err *err);

/* xPos over the type's frequencies, without and with an attention factor
 * (schedule_xpos.c). */
extern const pc_schedule_kind pc_kind_rope_xpos, pc_kind_rope_xpos_att;
/* ln zeta_i = ln((2i + 0.4 d) / (1.4 d)) in binary64 (diagnosis). */
double pc_rope_xpos_log_zeta(int d, int i);
/* xPos's G_i(POS) of P in binary64 (relative error about 2^-50). */
double pc_rope_xpos_scale_d(const pc_rope_params *p, int64_t pos, int i);
/* The radial units of u that torchscale's float32 evaluation of G adds
 * (docs/schedules.md, "xPos"); 0 without xPos. */
double pc_rope_xpos_r(const pc_rope_params *p);
/* Validate P's xPos parameters (PC_EINPUT naming the option). */
pc_status pc_rope_xpos_check(const pc_rope_params *p, pc_err *err);

/* The kinds (one file each). */
extern const pc_schedule_kind pc_kind_rope_default, pc_kind_rope_linear,
    pc_kind_rope_dynamic, pc_kind_rope_yarn, pc_kind_rope_longrope,
    pc_kind_rope_llama3, pc_kind_rope_freqs;

/* The schedule of P (P must outlive it); with P->axes, the kind that maps
 * positions (schedule_axes.c) over P's own. */
pc_schedule pc_rope_schedule(const pc_rope_params *p);
/* The kind of P's type, without axes (schedule_axes.c delegates to it). */
const pc_schedule_kind *pc_rope_type_kind(const pc_rope_params *p);
/* The HF name of a type: "default", "linear", ... */
const char *pc_rope_type_name(int type);
/* Type of an HF rope_type string; -1: unknown. */
int pc_rope_type_of(const char *name);

/* Validate P, decide its branches and fill the derived fields (band, ramp,
 * yarn_low/high, att, model_c).  PC_EINPUT naming the parameter. */
pc_status pc_rope_prepare(pc_rope_params *p, pc_err *err);
void pc_rope_params_free(pc_rope_params *p);

/* ---- shared by the schedule files (scaling.c) ---------------------------- */

/* g_i = base^(-2i/dim) as an interval at OUT's precision. */
void pc_iv_geometric(mpfi_ptr out, double base, int dim, int i);
/* OUT (precision P) = a point of the interval that FN computes, once the
 * interval (evaluated at precisions q = P + 32, then rising) has relative
 * diameter <= 2^-(P+2): |OUT - x| <= 2^-(P+2) x + 2^-P |OUT| < 4 * 2^-P x
 * for the exact x inside every interval (the schedule contract). */
typedef void (*pc_iv_fn)(mpfi_ptr out, const pc_rope_params *p, int i);
void pc_iv_to_mpfr(mpfr_ptr out, pc_iv_fn fn, const pc_rope_params *p, int i);
/* The certified attention factor of P into OUT (the kind's attention). */
int pc_rope_attention(mpfr_ptr out, const pc_schedule *s, int d);
/* The kinds' shared check and model_c (P->model_c). */
pc_status pc_rope_check(const pc_schedule *s, int d, pc_err *err);
double pc_rope_model_c(const pc_schedule *s, int d, int i);
/* The kinds' shared model_r: 2 for YaRN, whose cos and sin llama.cpp's
 * rope_yarn multiplies by its binary32 mscale (docs/schedules.md), else 0. */
double pc_rope_model_r(const pc_schedule *s, int d);

/* The precision model's C of the geometric part, with BASE_EFF the base
 * the float32 code raises (docs/precision-model.md): 2 ln(base) + 4. */
double pc_rope_c0(double base_eff);
/* The constant of the float32 pow form of pair I of the exponent 2I/DIM
 * over BASE (HF's and vLLM's inv_freq = 1 / base ** (arange(0, dim, 2) /
 * dim); docs/precision-model.md, "The phase constant"): X_i + 5 with X_i =
 * (2i/dim) ln(base) where fl(2i/dim) is not exact (0 where it is: a
 * power-of-two dim), plus 2i/dim where BASE is not a binary32 value. */
double pc_rope_c_pow_at(double base, int dim, int i);
/* The same over P's rotary dim. */
double pc_rope_c_pow(const pc_rope_params *p, int i);
/* The constant of ggml's cumulative-product angle of pair I, before the
 * schedule's own steps (llama.cpp's CPU rope): 3i + X_i + 1, X_i =
 * (2i/dim) ln(base); 0 for pair 0 and for axial RoPE. */
double pc_rope_c_ggml(const pc_rope_params *p, int i);


/* ---- what the user gives (hf_config.c) ------------------------------------ */

/* A schedule as the user describes it (config.json, --rope-scaling,
 * --rotary-dim, --seq-len, --base, --layer-type), before the dimension of
 * the table or implementation is known. */
/* The schedule options as given (strings point into the command line). */
typedef struct pc_rope_opts {
    const char *config, *inline_json, *freqs_path;
    double base;
    int base_set;
    int rotary_dim;           /* 0: not given */
    double seq_len;
    int seq_len_set;
    const char *layer_type;   /* --layer-type (NULL: not given) */
    const char *ids_path;     /* --position-ids */
    const char *sections;     /* --rope-sections "a,b,c" */
    int sections_interleaved; /* --mrope-interleaved */
    const char *axes_dim;     /* --rope-axes-dim "a,b" */
    int axes_parity;          /* --rope-axes-parity */
    const char *angle_scale;  /* --rope-angle-scale "S", "pi", "2pi" */
    int tower_vision;         /* --tower vision: the config's vision_config */
    const char *xpos;         /* --rope-xpos B (NULL: not given) */
    const char *xpos_offset;  /* --rope-xpos-offset Q0 */
    int xpos_down;            /* --rope-xpos-downscale */
    int axes_halves;          /* --rope-axes-halves */
    const char *freq_dtype;   /* --rope-freq-dtype f16|bf16 (NULL: not given) */
    const char *angle_dtype;  /* --rope-angle-dtype f16 (NULL: not given) */
} pc_rope_opts;

#define PC_ROPE_LAYERS_MAX 4  /* encodings a config may describe, one a layer type */

typedef struct pc_rope_spec {
    pc_rope_params p;         /* type and parameters (dim 0, arrays unused) */
    int have_base;            /* base from --base or the config */
    char base_from[200];      /* where the config's base came from, for people */
    int head_dim;             /* from the config (0: unknown) */
    int rotary_dim;           /* --rotary-dim, or the config's partial rotary (0: unknown) */
    double *short_factor, *long_factor; /* longrope, n_factor each */
    /* longrope of PhiMoE: the attention factor of the short and of the long
     * factors (0: the schedule's own) */
    double short_mscale, long_mscale;
    double *ff;               /* --rope-freqs, n_factor */
    int n_factor;
    /* M-RoPE (Qwen2-VL): the pairs of each position axis, in pairs (HF
     * mrope_section; 0 sections: one axis); interleaved: the newer
     * Qwen-VL order (pair j of axis j mod 3 while j < 3 section) */
    int sections[PC_ROPE_AXES_MAX];
    int n_sections, sections_interleaved;
    /* --position-ids: N_IDS rows of N_ID_AXES positions (positions.c),
     * the largest MAX_ID; --rope-axes-dim: axial RoPE's dims per axis */
    int64_t *ids, n_ids, max_id;
    int n_id_axes;
    /* real coordinates (positions.c): N_IDS x N_ID_AXES binary64 values,
     * IDS -1 throughout and MAX_ID the largest |coordinate| rounded up;
     * NULL: the ids are integers */
    double *coords;
    int axes_dim[PC_ROPE_AXES_MAX];
    int n_axes_dim;
    int axes_parity;          /* --rope-axes-parity: the axes share one schedule by parity */
    /* --rope-axes-halves (or ChatGLM-6B's position_encoding_2d): an (n, d)
     * cache's columns are each axis' dims in a half layout of its own
     * (pc_spec.col_blocks) */
    int axes_halves;
    /* where axes that no option gave come from, for people (a config's
     * position_encoding_2d; NULL: options or the vision tower) */
    const char *axes_from;
    int layout;               /* the pair layout the model's code uses (-1: not known) */
    char layout_why[120];     /* why, for people */
    char model_type[64];      /* the config's model_type ("": none) */
    /* the encodings by layer type: LAYER names this one ("" when the
     * config has one for every layer); LAYERS (N_LAYERS > 1) holds each
     * encoding whole, LAYERS_NOTE says which exist and which is checked */
    char layer[48];
    struct pc_rope_spec *layers;
    int n_layers;
    char layers_note[600];
    /* --tower vision: what the vision tower is and which keys gave it
     * (in the verdict's place of LAYERS_NOTE), and the columns its
     * position ids hold (NULL: the text model) */
    char tower_note[600];
    const char *tower_ids;
    /* --tower vision: the text model's base and head dim (0: unknown),
     * which a cache of the vision tower built with them is said to have */
    double tower_text_base;
    int tower_text_head;
    char source[200];         /* where it came from, for the output */
    pc_rope_opts given;       /* the options it was parsed from (replay lines) */
} pc_rope_spec;

/* Parse the config file CONFIG (NULL: none) and the inline rope_scaling
 * object INLINE (NULL: none; it replaces the config's), with the options.
 * PC_EINPUT naming the file and field on any defect: an unknown rope
 * type, a missing field, a --base that contradicts rope_theta. */
pc_status pc_rope_spec_parse(pc_rope_spec *s, const pc_rope_opts *o, pc_err *err);
void pc_rope_spec_free(pc_rope_spec *s);

/* The parameters for dimension D (the table's or --d): D must be the
 * rotary dim when one is known.  SEQ_DEFAULT: the sequence length when
 * --seq-len was not given (a table: its last position + 1).  OUT is
 * prepared (pc_rope_prepare); free with pc_rope_params_free. */
pc_status pc_rope_instantiate(const pc_rope_spec *s, int d, double seq_default,
                              pc_rope_params *out, pc_err *err);
/* One line describing OUT's schedule (type, parameters, A). */
void pc_rope_describe(const pc_rope_params *p, char *buf, size_t len);

/* ---- positions with several axes (positions.c) ---------------------------- */

/* The options of S's axes (O: --position-ids, --rope-sections,
 * --mrope-interleaved, --rope-axes-dim) into S; PC_EINPUT naming
 * the option or file. */
pc_status pc_rope_axes_read(pc_rope_spec *s, const pc_rope_opts *o, pc_err *err);
/* S's axes for dimension D into *OUT (NULL when S has no position ids):
 * each pair's axis from the sections (HF's order or the interleaved one)
 * or the axial dims; PC_EINPUT when they do not fit D or the ids. */
pc_status pc_rope_axes_new(const pc_rope_spec *s, int d, pc_rope_axes **out, pc_err *err);
void pc_rope_axes_free(pc_rope_axes *a);
/* Two rows' positions PA, PB (N_AXES each) compared lexicographically. */
int pc_rope_axes_cmp(const pc_rope_axes *x, const int64_t *pa, const int64_t *pb);
/* --rope-angle-scale's text V into *K, *PI (S = K pi^PI): a finite number
 * > 0, or [K]pi ("pi", "2pi", "0.5pi"); PC_EINPUT naming the option. */
pc_status pc_rope_scale_parse(const char *v, double *k, int *pi, pc_err *err);
/* One line: "positions of 3 axes from POS.npy (4096 rows), sections 16,24,24". */
void pc_rope_axes_describe(const pc_rope_spec *s, char *buf, size_t len);

#endif
