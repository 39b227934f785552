#!/usr/bin/python3
"""gen_test_vectors.py: independent test vectors for the certified sin/cos
reference (reference/reference.h, pc_ref_sincos).

For each case (pos, i, d, base) the angle is pos * omega_i with the exact
frequency omega_i = base^(-2i/d); the script writes sin and cos of that angle
correctly rounded (round to nearest, ties to even) to binary32 and binary64.

Independence from the reference: nothing here uses MPFR.  Values come from
mpmath (pure Python) and are certified two ways:
  1. interval arithmetic (mpmath.iv) at DPS decimal digits gives an enclosure
     [lo, hi] of sin and of cos; lo and hi are rounded to the target format by
     exact rational arithmetic (fractions.Fraction, round_rn below) and must
     round to the same value, and the enclosure must stay farther than
     2^MIDPOINT_MARGIN_LOG2 relative from every rounding midpoint;
  2. a second, non-interval evaluation at CHECK_DPS digits through another
     formula for omega (mp.power instead of exp(log)) is rounded by mpmath's
     own round-half-even (mpf_pos at prec 24 / 53) and must agree.
Any disagreement aborts the script: nothing doubtful is ever written.

Usage: /usr/bin/python3 scripts/gen_test_vectors.py [-o FILE] [--seed N]
Default output: tests/data/sincos_vectors.txt.  The header records the seed,
the mpmath version, the precision and the date (SOURCE_DATE_EPOCH is honoured
so that a rerun can reproduce the file byte for byte).

Requires Debian's python3-mpmath (apt-get install -y python3-mpmath).
"""

import argparse
import datetime
import math
import os
import random
import sys
from fractions import Fraction

import mpmath
from mpmath import iv, mp

DPS = 300               # working precision of the certified evaluation (>= 300 digits)
CHECK_DPS = 400         # precision of the independent cross-check
SEARCH_DPS = 80         # precision of the candidate searches (only ranks cases)
MIDPOINT_MARGIN_LOG2 = -200  # required relative distance from a rounding midpoint
DEFAULT_SEED = 20240611
POS_MAX = 2 ** 53       # PC_POS_MAX in reference/reference.h

# (precision p, minimum normal exponent emin) of the IEEE 754 formats.
BINARY32 = (24, -126)
BINARY64 = (53, -1022)

# Tables exercised.  The main set is the usual base 10000; the extra set
# covers a large base (500000, as in Llama 3), base 2 (omega_i are powers of
# 2^(1/d/2)) and a non-integer base.
CONFIGS_MAIN = [(64, 10000.0), (128, 10000.0), (512, 10000.0), (768, 10000.0),
                (8192, 10000.0)]
CONFIGS_EXTRA = [(128, 500000.0), (8192, 500000.0), (64, 2.0), (512, 2.0),
                 (64, 10000.5), (768, 10000.5)]
CONFIGS = CONFIGS_MAIN + CONFIGS_EXTRA

EDGE_POSITIONS = [0, 1, 2 ** 24 - 1, 2 ** 24, 2 ** 24 + 1, 2 ** 31,
                  2 ** 53 - 1, 2 ** 53]

N_HARD_I0_PER_KIND = 64     # i = 0: 64 with small sin, 64 with small cos
N_HARD_MAIN = 40            # per main config
N_HARD_EXTRA = 20           # per extra config
N_MIDPOINT_SAMPLES = 20000  # random cases screened for near-midpoint values
N_MIDPOINT_KEEP = 24        # per format
N_RANDOM = 256


# ---------------------------------------------------------------------------
# Exact rounding

def mpf_tuple_to_fraction(t):
    """Exact value of an mpmath mpf tuple (sign, man, exp, bc)."""
    sign, man, exp, _bc = t
    if man == 0:
        if exp != 0:
            raise ValueError("special mpf value (inf/nan) %r" % (t,))
        return Fraction(0)
    v = Fraction(man) * (Fraction(2) ** exp)
    return -v if sign else v


def floor_log2(a):
    """Largest e with 2^e <= a, for a Fraction a > 0."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def round_rn(x, fmt):
    """Round the exact rational X to format FMT = (p, emin), round to nearest
    ties to even, subnormals included (no overflow: |x| <= 1 here).

    Returns (r, gap): r the rounded value (a Fraction), gap the distance from
    |x| to the nearest rounding midpoint (None when x == 0)."""
    p, emin = fmt
    if x == 0:
        return Fraction(0), None
    a = abs(x)
    e = floor_log2(a)
    q = Fraction(2) ** (max(e, emin) - (p - 1))   # quantum (ulp) at a
    n = a / q
    fl = n.numerator // n.denominator
    frac = n - fl
    half = Fraction(1, 2)
    if frac > half or (frac == half and fl % 2 == 1):
        m = fl + 1
    else:
        m = fl
    r = m * q
    # Midpoints around a: (fl + 1/2) q above; below, (fl - 1/2) q inside the
    # binade, or 2^e - q/4 when fl is the first significand of a normal binade.
    mid_hi = (fl + half) * q
    if e > emin and fl == 2 ** (p - 1):
        mid_lo = Fraction(2) ** e - q / 4
    else:
        mid_lo = (fl - half) * q
    gap = min(abs(a - mid_hi), abs(a - mid_lo))
    return (-r if x < 0 else r), gap


def to_float_exact(r):
    """The Python float equal to the Fraction R (which must be a binary64)."""
    f = float(r)    # int/int true division: correctly rounded, exact here
    if Fraction(f) != r:
        raise AssertionError("value %r is not a binary64" % (r,))
    return f


def certified_round(ival, fmt):
    """Round the enclosure IVAL (an iv.mpf) to FMT; abort unless certain."""
    lo_t, hi_t = ival._mpi_
    lo = mpf_tuple_to_fraction(lo_t)
    hi = mpf_tuple_to_fraction(hi_t)
    if lo == hi:                       # exact point (pos = 0: sin 0, cos 1)
        r, _gap = round_rn(lo, fmt)
        if r != lo:
            raise AssertionError("exact value %r not representable" % (lo,))
        return r
    if lo <= 0 <= hi:
        raise AssertionError("enclosure [%r, %r] contains 0" % (lo, hi))
    r_lo, gap_lo = round_rn(lo, fmt)
    r_hi, gap_hi = round_rn(hi, fmt)
    if r_lo != r_hi:
        raise AssertionError("rounding not determined by the enclosure")
    margin = min(abs(lo), abs(hi)) * Fraction(2) ** MIDPOINT_MARGIN_LOG2
    if min(gap_lo, gap_hi) <= margin:
        raise AssertionError("value within 2^%d relative of a midpoint"
                             % MIDPOINT_MARGIN_LOG2)
    return r_lo


def mpmath_round(v, fmt):
    """Second rounding method: mpmath's own round-half-even at precision p
    (normal range only, which is all these values need)."""
    p, emin = fmt
    if v == 0:
        return Fraction(0)
    with mp.workprec(p):
        r = +v                         # mpf_pos(v, p, round_nearest)
    if abs(r) < mpmath.ldexp(1, emin):
        raise AssertionError("subnormal result: use round_rn only")
    return mpf_tuple_to_fraction(r._mpf_)


# ---------------------------------------------------------------------------
# Certified values of one case

def iv_angle(pos, i, d, base):
    """Enclosure of pos * base^(-2i/d)."""
    if i == 0:
        om = iv.mpf(1)
    else:
        om = iv.exp(-(iv.mpf(2 * i) / d) * iv.log(iv.mpf(base)))
    return iv.mpf(pos) * om


def case_values(pos, i, d, base):
    """(s32, c32, s64, c64) as Python floats, certified (see module doc)."""
    iv.dps = DPS
    ang = iv_angle(pos, i, d, base)
    s_iv = iv.sin(ang)
    c_iv = iv.cos(ang)
    out = [certified_round(s_iv, BINARY32), certified_round(c_iv, BINARY32),
           certified_round(s_iv, BINARY64), certified_round(c_iv, BINARY64)]
    with mp.workdps(CHECK_DPS):
        om = mp.power(mp.mpf(base), mp.mpf(-2 * i) / d)
        ang = mp.mpf(pos) * om
        s = mp.sin(ang)
        c = mp.cos(ang)
        check = [mpmath_round(s, BINARY32), mpmath_round(c, BINARY32),
                 mpmath_round(s, BINARY64), mpmath_round(c, BINARY64)]
    if check != out:
        raise AssertionError("cross-check mismatch at pos=%d i=%d d=%d base=%r"
                             % (pos, i, d, base))
    return tuple(to_float_exact(r) for r in out)


# ---------------------------------------------------------------------------
# Case selection

def check_case(pos, i, d, base):
    assert 0 <= pos <= POS_MAX and 0 <= i < d // 2, (pos, i, d, base)


def dist_to_halfpi_lattice(pos, x):
    """For x = 2*omega/pi: (|pos*x - k|, k) with k the nearest integer; the
    angle is then k*pi/2 + (pos*x - k)*pi/2."""
    t = pos * x
    k = int(mp.nint(t))
    return abs(t - k), k


def convergents(x, qmax):
    """Continued-fraction convergents (p, q) of x > 0 with q <= qmax."""
    out = []
    h1, h2 = 1, 0
    k1, k2 = 0, 1
    y = x
    while True:
        a = int(mp.floor(y))
        h, k = a * h1 + h2, a * k1 + k2
        if k > qmax:
            break
        out.append((h, k))
        h2, h1, k2, k1 = h1, h, k1, k
        fr = y - a
        if fr == 0:
            break
        y = 1 / fr
    return out


def combos(seq, amax, bmax, nmax):
    """Positive a*s_n + b*s_{n-1} (|a| <= amax, |b| <= bmax) for consecutive
    terms of SEQ: the integers that approach the lattice best."""
    cand = set()
    for n in range(1, len(seq)):
        for a in range(0, amax + 1):
            for b in range(-bmax, bmax + 1):
                v = a * seq[n] + b * seq[n - 1]
                if 1 <= v <= nmax:
                    cand.add(v)
    cand.update(s for s in seq if 1 <= s <= nmax)
    return cand


def hard_i0():
    """Integers pos <= 2^53 closest to multiples of pi/2 (i = 0: angle = pos).
    Candidates: convergent numerators of pi/2 and pi, their small combinations
    (semiconvergents, multiples); ranked by distance to the pi/2 lattice; the
    best N_HARD_I0_PER_KIND with small sin (even multiple) and with small cos
    (odd multiple).  All convergent numerators of pi and pi/2 are kept."""
    with mp.workdps(SEARCH_DPS):
        two_over_pi = 2 / mp.pi
        # pos ~ k*pi/2  <=>  k/pos ~ 2/pi: pos runs over the denominators of
        # the convergents of 2/pi = numerators of the convergents of pi/2.
        conv_half = [q for _p, q in convergents(two_over_pi, POS_MAX)]
        conv_pi = [q for _p, q in convergents(1 / mp.pi, POS_MAX)]
        forced = set(conv_half) | set(conv_pi)
        forced |= {355, 710, 103993, 104348, 208341, 312689, 833719, 1146408}
        cand = combos(conv_half, 12, 12, POS_MAX) | combos(conv_pi, 12, 12, POS_MAX)
        cand |= forced
        ranked = sorted((dist_to_halfpi_lattice(p, two_over_pi)[0], p,
                         dist_to_halfpi_lattice(p, two_over_pi)[1] % 2)
                        for p in cand)
    keep = set(p for p in forced if p <= POS_MAX)
    for parity in (0, 1):
        best = [p for _dd, p, par in ranked if par == parity]
        keep.update(best[:N_HARD_I0_PER_KIND])
    return [(p, 0) for p in sorted(keep)]


def hard_omega(d, base, nkeep):
    """(pos, i) with i >= 1 whose angle pos*omega_i is closest to a multiple of
    pi/2, pos <= 2^53: convergent denominators of 2*omega_i/pi and their small
    combinations, the best two per i, then the best NKEEP over all i."""
    per_i = []
    with mp.workdps(SEARCH_DPS):
        for i in range(1, d // 2):
            om = mp.power(mp.mpf(base), mp.mpf(-2 * i) / d)
            x = 2 * om / mp.pi
            qs = [q for _p, q in convergents(x, POS_MAX)]
            cand = combos(qs[-4:], 3, 3, POS_MAX)
            scored = sorted((dist_to_halfpi_lattice(p, x)[0], p, i)
                            for p in cand)
            per_i.extend(scored[:2])
    per_i.sort()
    return [(p, i) for _dd, p, i in per_i[:nkeep]]


def near_midpoint(rng):
    """Random cases whose sin or cos lies closest to a binary32 (resp.
    binary64) rounding midpoint, screened at SEARCH_DPS digits."""
    scored32, scored64 = [], []
    with mp.workdps(SEARCH_DPS):
        for _ in range(N_MIDPOINT_SAMPLES):
            d, base = rng.choice(CONFIGS)
            i = rng.randrange(d // 2)
            pos = log_uniform_pos(rng)
            ang = pos * mp.power(mp.mpf(base), mp.mpf(-2 * i) / d)
            for v in (mp.sin(ang), mp.cos(ang)):
                for fmt, scored in ((BINARY32, scored32), (BINARY64, scored64)):
                    p, emin = fmt
                    e = int(mp.floor(mp.log(abs(v), 2)))
                    t = abs(v) * mp.mpf(2) ** (p - 1 - max(e, emin))
                    g = abs(t - mp.floor(t) - mp.mpf(0.5))   # in ulps
                    scored.append((float(g), pos, i, d, base))
    out = []
    for scored in (scored32, scored64):
        scored.sort()
        out.extend((pos, i, d, base) for _g, pos, i, d, base
                   in scored[:N_MIDPOINT_KEEP])
    return out


# Positions pos <= 2^31 (i = 0, so the angle pos is exact) where sin(pos) or
# cos(pos) lies within DR32_ULPS binary64 ulps of a binary32 rounding
# midpoint: the cases a reference that rounds a binary64 result to binary32
# (double rounding) can get wrong.  Found by `--search-dr32 2147483648`
# (numpy screen of the low 29 bits of np.sin/np.cos, window +-16 ulps, then
# mpmath at SEARCH_DPS digits keeps those truly within DR32_ULPS); the list
# is stored here so that the default run needs mpmath only.
DR32_ULPS = 4
DR32_POSITIONS = [
    2127657, 5428171, 46204913, 59297659, 76292798, 128848729, 151511057,
    167905059, 232845366, 251783930, 313592870, 319907281, 355554995,
    366133258, 366856801, 370105904, 413840860, 474766471, 511794296,
    557974658, 624422741, 630020359, 642399238, 876679497, 919815829,
    954295623, 967608870, 978740300, 981831581, 992417828, 1004601474,
    1011669185, 1033928025, 1082628835, 1092175607, 1092563608,
    1125336878, 1136435915, 1138698722, 1195046232, 1223658032,
    1309834377, 1321792316, 1421180784, 1444641019, 1446177366,
    1495293978, 1495899232, 1498746641, 1544900655, 1555718690,
    1579401154, 1594286576, 1616024572, 1663478731, 1699129905,
    1718649840, 1775446565, 1789012305, 1823176865, 1867057803,
    1877362641, 1890841534, 1913880315, 1941997987, 1954667270,
    1958057544, 1970314490, 1971923520, 2013545283, 2023870140,
    2030075072, 2137270021]


def search_dr32(nmax):
    """Screen pos in [1, nmax] for DR32_POSITIONS (needs numpy)."""
    import numpy as np
    chunk = 1 << 24
    found = []
    for start in range(1, nmax + 1, chunk):
        x = np.arange(start, min(start + chunk, nmax + 1), dtype=np.float64)
        for fn in (np.sin, np.cos):
            bits = fn(x).view(np.uint64)
            low = (bits & np.uint64((1 << 29) - 1)).astype(np.int64) - (1 << 28)
            hit = np.nonzero(np.abs(low) <= 16)[0]
            found.extend(int(x[h]) for h in hit)
    keep = []
    with mp.workdps(SEARCH_DPS):
        for pos in sorted(set(found)):
            for v in (mp.sin(pos), mp.cos(pos)):
                e = int(mp.floor(mp.log(abs(v), 2)))
                t = abs(v) * mp.mpf(2) ** (52 - e)     # in binary64 ulps
                g = t - mp.floor(t / 2 ** 29) * 2 ** 29 - 2 ** 28
                if abs(g) <= DR32_ULPS:
                    keep.append(pos)
    return sorted(set(keep))


def log_uniform_pos(rng):
    """pos = floor(2^e), e uniform in [0, 53]; the bits below the top 40 are
    drawn uniformly (2^e as a double does not carry them)."""
    e = rng.uniform(0.0, 53.0)
    pos = int(2.0 ** e)
    extra = max(0, pos.bit_length() - 40)
    if extra:
        pos = (pos >> extra << extra) | rng.getrandbits(extra)
    return min(max(pos, 1), POS_MAX)


# ---------------------------------------------------------------------------
# Output

def fmt_base(base):
    """A base written exactly: an integer in decimal, otherwise hex."""
    if base == int(base):
        return "%d" % int(base)
    return base.hex()


def fmt_hex(x):
    return x.hex() if x != 0 else ("-0x0p+0" if math.copysign(1.0, x) < 0
                                   else "0x0p+0")


def min_log2(s, c):
    """log2 of the smaller nonzero magnitude of S and C (0 for pos = 0)."""
    m = min(abs(v) for v in (s, c, 1.0) if v != 0)
    return math.log2(m)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", default="tests/data/sincos_vectors.txt")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--search-dr32", type=int, metavar="NMAX",
                    help="print the DR32_POSITIONS up to NMAX (needs numpy) "
                    "and exit")
    args = ap.parse_args()
    if args.search_dr32:
        print(search_dr32(args.search_dr32))
        return 0

    mp.dps = DPS
    iv.dps = DPS
    rng = random.Random(args.seed)

    cats = []   # (name, description, [(pos, i, d, base)])

    edge = [(pos, i, d, base) for d, base in CONFIGS
            for i in sorted({0, 1, d // 2 - 1}) for pos in EDGE_POSITIONS]
    cats.append(("edge", "positions 0, 1, 2^24-1, 2^24, 2^24+1, 2^31, "
                 "2^53-1, 2^53 x i in {0, 1, d/2-1} x every table", edge))

    i0 = [(p, 0, d, base) for p, _i in hard_i0()
          for d, base in [(128, 10000.0)]]
    cats.append(("hard-i0", "i=0 (omega=1, angle=pos): integers closest to "
                 "multiples of pi/2 (convergents of pi and pi/2 and small "
                 "combinations), %d with small sin and %d with small cos, plus "
                 "every convergent numerator of pi and pi/2"
                 % (N_HARD_I0_PER_KIND, N_HARD_I0_PER_KIND), i0))

    hard = []
    for d, base in CONFIGS:
        nkeep = N_HARD_MAIN if (d, base) in CONFIGS_MAIN else N_HARD_EXTRA
        hard.extend((p, i, d, base) for p, i in hard_omega(d, base, nkeep))
    cats.append(("hard-omega", "i>=1: pos*omega_i closest to a multiple of "
                 "pi/2 (continued fractions of 2*omega_i/pi), best %d per "
                 "base-10000 table, %d per other table"
                 % (N_HARD_MAIN, N_HARD_EXTRA), hard))

    dr32 = [(p, 0, 512, 10000.0) for p in DR32_POSITIONS]
    cats.append(("double-rounding32", "i=0, pos <= 2^31: sin(pos) or cos(pos) "
                 "within %d binary64 ulps of a binary32 rounding midpoint "
                 "(traps for rounding a binary64 result to binary32)"
                 % DR32_ULPS, dr32))

    mid = near_midpoint(rng)
    cats.append(("near-midpoint", "of %d random cases, the %d whose sin or cos "
                 "is closest to a binary32 rounding midpoint and the %d closest "
                 "to a binary64 one" % (N_MIDPOINT_SAMPLES, N_MIDPOINT_KEEP,
                                        N_MIDPOINT_KEEP), mid))

    rnd = []
    for _ in range(N_RANDOM):
        d, base = rng.choice(CONFIGS)
        rnd.append((log_uniform_pos(rng), rng.randrange(d // 2), d, base))
    cats.append(("random", "table uniform over the %d tables, i uniform in "
                 "[0, d/2), pos log-uniform in [1, 2^53]" % len(CONFIGS), rnd))

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc)
            if epoch else datetime.datetime.now(datetime.timezone.utc))

    lines = []
    total = 0
    smallest = (0.0, None)
    body = []
    for name, desc, cases in cats:
        seen = set()
        uniq = []
        for c in cases:
            if c not in seen:
                seen.add(c)
                uniq.append(c)
        body.append("#")
        body.append("# category: %s" % name)
        body.append("# %s (%d cases)" % (desc, len(uniq)))
        cat_min = 0.0
        for pos, i, d, base in uniq:
            check_case(pos, i, d, base)
            s32, c32, s64, c64 = case_values(pos, i, d, base)
            lg = min_log2(s64, c64)
            cat_min = min(cat_min, lg)
            if lg < smallest[0]:
                smallest = (lg, (pos, i, d, base))
            body.append("%d %d %d %s %s %s %s %s  # sin=%.9g/%s cos=%.9g/%s"
                        % (pos, i, d, fmt_base(base), fmt_hex(s32), fmt_hex(c32),
                           fmt_hex(s64), fmt_hex(c64), s32, repr(s64), c32,
                           repr(c64)))
        total += len(uniq)
        print("%-14s %4d  smallest |sin|,|cos| 2^%.2f" % (name, len(uniq), cat_min),
              file=sys.stderr)

    lines.append("# sincos_vectors.txt: sin and cos of pos*omega_i, omega_i = "
                 "base^(-2i/d), correctly rounded")
    lines.append("# (round to nearest, ties to even) to binary32 and binary64.")
    lines.append("# Generated by scripts/gen_test_vectors.py; do not edit by hand.")
    lines.append("# Date (UTC): %s" % when.strftime("%Y-%m-%d %H:%M:%S"))
    lines.append("# Python %s, mpmath %s (no MPFR), backend %s"
                 % (sys.version.split()[0], mpmath.__version__,
                    mpmath.libmp.BACKEND))
    lines.append("# Precision: interval arithmetic (mpmath.iv) at mp.dps = %d "
                 "(%d bits); cross-check at dps = %d" % (DPS, iv.prec, CHECK_DPS))
    lines.append("# Rounding: exact rational arithmetic on both interval "
                 "endpoints (must agree), every value")
    lines.append("# farther than 2^%d relative from a rounding midpoint; "
                 "cross-checked with mpmath round-half-even."
                 % MIDPOINT_MARGIN_LOG2)
    lines.append("# Random seed (Python random.Random): %d" % args.seed)
    lines.append("# Smallest |sin| or |cos|: 2^%.2f at pos=%d i=%d d=%d base=%s"
                 % (smallest[0], smallest[1][0], smallest[1][1], smallest[1][2],
                    fmt_base(smallest[1][3])))
    lines.append("# %d vectors in %d categories; a '# category: NAME' line "
                 "starts each." % (total, len(cats)))
    lines.append("# Format: pos i d base sin32 cos32 sin64 cos64  (C99 hex "
                 "floats; sin32/cos32 are binary32")
    lines.append("# values written as the exactly equal double; base exact); "
                 "after '#': decimals (binary32/binary64).")
    out = "\n".join(lines + body) + "\n"
    with open(args.output, "w", encoding="ascii") as fh:
        fh.write(out)
    print("wrote %d vectors to %s; smallest |sin|,|cos| = 2^%.2f"
          % (total, args.output, smallest[0]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
