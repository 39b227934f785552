/* vecpath_kernel.h: the kernel of the vector path, included by vecpath.c
 * once per instruction set with VP_W (lanes), VP_FN(name), VP_TARGET and
 * the operation macros (LOADD, SETD, ADD, SUB, MUL, FMA(a,b,c) = RN(a b + c),
 * FMS(a,b,c) = RN(a b - c), MAXD, ABSD, ASI/ASD (bit casts), IAND, IADD,
 * ISUB, ISHL, GED, IGT, MAND, MANDN, MBITS, BLEND_ODD, STORED, VP_STORE).
 * Every macro is one correctly rounded IEEE-754 binary64 operation (or an
 * exact bit operation), so every instantiation computes the same bits.
 *
 * Error analysis (u = 2^-53; RN(x) = x (1 + e), |e| <= u; the constants
 * and ratios come from scripts/vecpath_constants.py; docs/reference.md,
 * "Vector path", collects it).  Inputs: P = pos exactly (pos <= 2^40 <
 * 2^53), W = w1 + w2 with |w - W| <= 2^-105.9 w, w = omega 2/pi
 * (pc_vec_set), 0 <= w1 < 1, |w2| <= u w1.  X = pos w, the angle in
 * quarter turns: theta = X pi/2.
 *
 * 1. p1 + e1 = pos w1 exactly (p1 = RN, e1 by FMS: the error of a product
 *    is exact for pos w1 >= 2^-901); |e1| <= u p1.  p1 < 2^40.
 * 2. q = nearest integer of p1: (p1 + 1.5 2^52) - 1.5 2^52 (exact for
 *    |p1| < 2^51, default rounding mode); d = p1 - q exact (|d| <= 1/2 and
 *    d a multiple of ulp(p1), or 0).  q mod 4 = low 2 bits of kq.
 * 3. t = RN(pos w2 + e1): |pos w2 + e1| <= 2u p1 (1 + u), error
 *    <= 2u^2 p1 (1 + u) <= 2^-104.98 p1.
 * 4. f = RN(d + t): F = X - q = d + e1 + pos w2 + pos (w - W), so
 *    |f - F| <= u |f| + 2^-104.98 p1 + 2^-105.9 X <= u |f| + 2^-104.36 p1
 *    (X <= p1 (1 + 2^-51)).  |f| <= (1/2 + 2u p1 (1+u))(1+u) <= 0.50025.
 * 5. a = RN(f PIO2), PIO2 = RN(pi/2), |pi/2 - PIO2| <= 2^-53.858; the
 *    exact reduced angle is r = F pi/2 (theta = q pi/2 + r), and
 *    |a - r| <= u|a| + 2^-53.858 |f| + (pi/2)(u |f| + 2^-104.36 p1)
 *            <= 2.35 u |a| + 2^-103.71 p1         (|f| <= 0.63662 |a| (1+2u)),
 *    |a| <= 0.50025 * 1.5708 (1 + 2u) < 0.7858 < 0.8 = A_MAX.
 * 6. sin a ~ Sa = a + (a z) P(z), z = RN(a^2), P = Taylor coefficients
 *    RN(1/k!) to degree 17 (Horner, FMA): remainder <= 2^-62.55 |a|;
 *    P's relative error <= 2.2u (each Horner step: final rounding u, its
 *    coefficient u |c| <= 1.034 u |P|, the inner part's errors scaled by
 *    |z R| / |P| <= 0.0336); RN(a z) and z: 2u; |a^3 P| <= 0.1067 |a|; the
 *    final FMA rounds once: |Sa - sin a| <= 0.1067 (4.3u) |a| + u |Sa| +
 *    2^-62.55 |a| <= 1.52 u |sin a| (|a| <= 1.11521 |sin a|).
 *    cos a ~ Ca = 1 + z Q(z), degree 16: remainder <= 2^-58.30; Q's
 *    relative error <= 2.2u (ratio 0.0576, C2 = -1/2 exact); |z Q| <=
 *    0.32: |Ca - cos a| <= 0.32 (3.2u) + u |Ca| + 2^-58.30 <= 2.52 u cos a
 *    (cos a >= cos 0.8 = 0.6967).
 * 7. sin and cos are 1-Lipschitz: step 5 moves sin by <= 2.35u * 1.11521
 *    |sin a| + 2^-103.71 p1 = 2.62 u |sin a| + 2^-103.71 p1 and cos by
 *    <= sin(0.8) (2.35 u 0.8) + ... <= 1.94 u cos a + 2^-103.71 p1.  In all,
 *    with |y(a)| <= |y~| (1 + 2u):
 *        |y~ - y| <= 4.47 u |y~| + 2^-103.71 p1 <= 2^-50.8 |y~| + 2^-103.7 p1.
 *    The quadrant q maps (sin r, cos r) to (+-sin, +-cos) or (+-cos, -+sin):
 *    exact.
 * 8. Rounding test.  When |y~| >= 2^-48 p1 the absolute term is
 *    <= 2^-55.7 |y~|, so |y~ - y| < (4.47 + 0.16) u |y~| < 4.7 ulp(y~)
 *    (ulp = 2^(E-52) > u |y~|).  With |y~| >= 2^-100 (binary32 normal,
 *    same sign as y), binary32 midpoints of y~'s binade are the binary64
 *    numbers whose low 29 significand bits L equal 2^28; the distance from
 *    y~ to the nearest one is >= |L - 2^28| ulp(y~), and the neighbouring
 *    binades' midpoints are >= 2^-26 |y~| away.  So |L - 2^28| >= 9 puts y
 *    and y~ between the same two midpoints: RN32(y) = RN32(y~).
 *    Probability of failing: 17 / 2^29 = 2^-24.9 per value. */

/* One block of VP_W frequencies at W1P, W2P: the quadrant-applied values in
 * *SO, *CO, p1 in *P1O; returns the lanes the rounding test decided (both
 * sin and cos). */
VP_TARGET static inline __attribute__((always_inline))
VM VP_FN(block)(const double *w1p, const double *w2p, VD P, VD *so, VD *co, VD *p1o)
{
    VD w1 = LOADD(w1p), w2 = LOADD(w2p);
    /* 1-5: reduction */
    VD p1 = MUL(P, w1);
    VD e1 = FMS(P, w1, p1);                     /* exact */
    VD t = FMA(P, w2, e1);
    VD kq = ADD(p1, SETD(VP_ROUND));
    VD q = SUB(kq, SETD(VP_ROUND));             /* exact */
    VD f = ADD(SUB(p1, q), t);                  /* p1 - q exact */
    VD a = MUL(f, SETD(VP_PIO2));
    VD z = MUL(a, a);
    /* 6: polynomials */
    VD ps = FMA(z, SETD(VS17), SETD(VS15));
    ps = FMA(z, ps, SETD(VS13));
    ps = FMA(z, ps, SETD(VS11));
    ps = FMA(z, ps, SETD(VS9));
    ps = FMA(z, ps, SETD(VS7));
    ps = FMA(z, ps, SETD(VS5));
    ps = FMA(z, ps, SETD(VS3));
    VD sn = FMA(MUL(a, z), ps, a);
    VD pc = FMA(z, SETD(VC16), SETD(VC14));
    pc = FMA(z, pc, SETD(VC12));
    pc = FMA(z, pc, SETD(VC10));
    pc = FMA(z, pc, SETD(VC8));
    pc = FMA(z, pc, SETD(VC6));
    pc = FMA(z, pc, SETD(VC4));
    pc = FMA(z, pc, SETD(VC2));
    VD cs = FMA(z, pc, SETD(1.0));
    /* 8: rounding test, |y~| >= max(2^-48 p1, 2^-100) and |L - 2^28| >= 9,
     * i.e. not 0 <= L - (2^28 - 8) <= 16 */
    VD thr = MAXD(MUL(p1, SETD(0x1p-48)), SETD(0x1p-100)); /* exact scaling */
    VM ok = MAND(GED(ABSD(sn), thr), GED(ABSD(cs), thr));
    VI low = SETI(0x1FFFFFFF), mid = SETI((1 << 28) - 8);
    VI ds = ISUB(IAND(ASI(sn), low), mid), dc = ISUB(IAND(ASI(cs), low), mid);
    VI m1 = SETI(-1), p17 = SETI(17);
    ok = MANDN(ok, MAND(IGT(ds, m1), IGT(p17, ds)));
    ok = MANDN(ok, MAND(IGT(dc, m1), IGT(p17, dc)));
    /* 7: quadrant.  q odd: swap; sin negated for q = 2, 3; cos for q = 1, 2 */
    VI qb = ASI(kq);
    VI two = SETI(2);
    VI sgs = ISHL(IAND(qb, two), 62), sgc = ISHL(IAND(IADD(qb, SETI(1)), two), 62);
    *so = ASD(IXOR(ASI(BLEND_ODD(qb, sn, cs)), sgs));
    *co = ASD(IXOR(ASI(BLEND_ODD(qb, cs, sn)), sgc));
    *p1o = p1;
    return ok;
}

/* Frequencies from *PI while a whole block fits: binary32 values to OUT in
 * MODE's order, undecided indices appended to UNDEC; returns their count
 * and leaves *PI at the first frequency not done. */
VP_TARGET static int VP_FN(row)(const pc_vec *v, double pos, int mode, float *out, int *undec,
                                int *pi)
{
    int h = v->h, n = 0, i = *pi;
    VD P = SETD(pos);
    for (; i + VP_W <= h; i += VP_W) {
        VD s, c, p1;
        VM ok = VP_FN(block)(v->w1 + i, v->w2 + i, P, &s, &c, &p1);
        VP_STORE(mode, out, h, i, s, c);
        unsigned bad = ~(unsigned)MBITS(ok) & ((1u << VP_W) - 1);
        while (bad) {
            undec[n++] = i + __builtin_ctz(bad);
            bad &= bad - 1;
        }
    }
    *pi = i;
    return n;
}

/* pc_vec_raw from *PI while a whole block fits. */
VP_TARGET static void VP_FN(raw)(const pc_vec *v, double pos, double *s, double *c, double *p1,
                                 unsigned char *ok, int *pi)
{
    int h = v->h, i = *pi;
    VD P = SETD(pos);
    for (; i + VP_W <= h; i += VP_W) {
        VD sv, cv, pv;
        unsigned m = (unsigned)MBITS(VP_FN(block)(v->w1 + i, v->w2 + i, P, &sv, &cv, &pv));
        STORED(s + i, sv);
        STORED(c + i, cv);
        STORED(p1 + i, pv);
        for (int k = 0; k < VP_W; k++) ok[i + k] = (unsigned char)((m >> k) & 1u);
    }
    *pi = i;
}

/* RoPE rows: y_a = x_a cos - x_b sin, y_b = x_a sin + x_b cos for exact
 * binary64 x_a, x_b (binary32 inputs) and the exact cos, sin of step 7.
 *   ya~ = RN(x_a C~ - RN(x_b S~)) (FMS),  yb~ = RN(x_a S~ + RN(x_b C~)) (FMA):
 *   |ya~ - ya| <= u |ya~| + u |x_b S~| + |x_a| |C~ - c| + |x_b| |S~ - s|
 *             <= u |ya~| + M (2^-50.8 + u)(1 + 2^-50) + M 2^-103.7 p1
 *             <= 2^-53 |ya~| + M (2^-50.5 + 2^-103.7 p1),  M = |x_a| + |x_b|
 * (|C~|, |S~| <= 1 + 2^-50), the same for yb~.  The test computes
 *   E = RN(M k1 + 2^-52 |y~|),  k1 = RN(2^-50 + 2^-103 p1),  M = RN(|x_a| + |x_b|):
 * each of the three roundings loses at most a factor (1 - u), far less than
 * the margins 2^0.5 and 2 on the constants, so E bounds the error.  Decided
 * when |y~| >= 2^-100, E <= 2^-27 |y~| (the other binades' midpoints are
 * >= 2^-26 |y~| away) and |y~| is more than E from m0, the binary32 midpoint
 * of y~'s binade nearest to it (y~'s top 24 significand bits, then a 1:
 * the others are farther, step 8); | |y~| - m0 | is exact (Sterbenz).
 * p1 > 0 is required too (w = 0 marks a frequency outside the path). */
VP_TARGET static inline __attribute__((always_inline))
VM VP_FN(rope_ok)(VD y, VD M, VD k1)
{
    VD ay = ABSD(y);
    VD E = FMA(M, k1, MUL(ay, SETD(0x1p-52)));
    VD m0 = ASD(IOR(IAND(ASI(ay), SETI(~(int64_t)0x1FFFFFFF)), SETI(0x10000000)));
    VD dist = ABSD(SUB(ay, m0));
    return MAND(MAND(GED(ay, SETD(0x1p-100)), GED(MUL(ay, SETD(0x1p-27)), E)), GTD(dist, E));
}

/* RoPE pairs from *PI while a whole block fits: ya~ to TMP[i], yb~ to
 * TMP[h + i]; undecided indices to UNDEC; returns their count. */
VP_TARGET static int VP_FN(rope)(const pc_vec *v, double pos, const double *xa, const double *xb,
                                 float *tmp, int *undec, int *pi)
{
    int h = v->h, n = 0, i = *pi;
    VD P = SETD(pos);
    for (; i + VP_W <= h; i += VP_W) {
        VD s, c, p1;
        (void)VP_FN(block)(v->w1 + i, v->w2 + i, P, &s, &c, &p1);
        VD a = LOADD(xa + i), b = LOADD(xb + i);
        VD ya = FMS(a, c, MUL(b, s)), yb = FMA(a, s, MUL(b, c));
        VD M = ADD(ABSD(a), ABSD(b));
        VD k1 = FMA(p1, SETD(0x1p-103), SETD(0x1p-50));
        VM ok = MAND(MAND(VP_FN(rope_ok)(ya, M, k1), VP_FN(rope_ok)(yb, M, k1)),
                     GTD(p1, SETD(0.0)));
        VP_STORE(PC_VEC_HALF, tmp, h, i, ya, yb);
        unsigned bad = ~(unsigned)MBITS(ok) & ((1u << VP_W) - 1);
        while (bad) {
            undec[n++] = i + __builtin_ctz(bad);
            bad &= bad - 1;
        }
    }
    *pi = i;
    return n;
}
