#!/usr/bin/env python3
"""vecpath_constants.py: constants and error budget of the vector path
(reference/vecpath_kernel.h, docs/reference.md "Vector path").

Prints, with exact rational arithmetic (fractions) and mpmath at 300 digits:
  - the Taylor coefficients RN_binary64(+-1/k!) as C99 hex literals,
  - PIO2 = RN_binary64(pi/2) and |pi/2 - PIO2|,
  - the Taylor remainders on |a| <= A_MAX = 0.8 (Lagrange bound of an
    alternating series: the first omitted term),
  - the Horner ratios used in the rounding-error analysis.
Usage: scripts/vecpath_constants.py   (no arguments; deterministic)."""
from fractions import Fraction
from math import factorial, log2
import mpmath

mpmath.mp.dps = 300
A_MAX = Fraction(4, 5)          # |a| <= 0.8 (docs: pi/4 + 2^-12 < 0.7858)
U = Fraction(1, 2**53)

def rn(q):                      # float(Fraction) is correctly rounded (RN)
    return float(q)

def hx(x):
    return x.hex()

print("/* sin: a + a^3 P(a^2), P = S3 + z (S5 + ... + z S17) */")
for k in range(3, 18, 2):
    c = Fraction((-1) ** ((k - 1) // 2), factorial(k))
    print("#define VS%-2d %-24s /* RN(%s1/%d!) */" % (k, hx(rn(c)), "-" if c < 0 else "+", k))
print("/* cos: 1 + z Q, Q = C2 + z (C4 + ... + z C16) */")
for k in range(2, 17, 2):
    c = Fraction((-1) ** (k // 2), factorial(k))
    print("#define VC%-2d %-24s /* RN(%s1/%d!) */" % (k, hx(rn(c)), "-" if c < 0 else "+", k))

pio2 = mpmath.pi / 2
ph = float(pio2)                # mpmath -> float rounds to nearest
print("PIO2 = %s, |pi/2 - PIO2| = 2^%.3f" % (hx(ph), float(mpmath.log(abs(pio2 - mpmath.mpf(ph)), 2))))

a = A_MAX
rs = a ** 18 / factorial(19)    # |sin a - T17(a)| / |a| <= a^18/19!
rc = a ** 18 / factorial(18)    # |cos a - T16(a)| <= a^18/18!
print("A_MAX = 0.8: sin remainder <= 2^%.2f |a|, cos remainder <= 2^%.2f"
      % (log2(rs), log2(rc)))
sin08 = float(mpmath.sin(mpmath.mpf(4) / 5)); cos08 = float(mpmath.cos(mpmath.mpf(4) / 5))
print("sin(0.8) = %.6f (|a|/|sin a| <= %.5f), cos(0.8) = %.6f" % (sin08, 0.8 / sin08, cos08))
# Horner: ratio |z R(z)| / |P(z)| at z = 0.64 (largest), P = S3 + z R
z = a * a
R = sum(Fraction(1, factorial(k)) * z ** ((k - 5) // 2) for k in range(5, 18, 2))
P = Fraction(1, 6) - z * R
print("sin Horner: |z R| <= %.5f, |P| >= %.5f, ratio %.4f; |a^3 P| <= %.4f |a|"
      % (float(z * R), float(P), float(z * R / P), float(z * Fraction(1, 6))))
Rc = sum(Fraction(1, factorial(k)) * z ** ((k - 4) // 2) for k in range(4, 17, 2))
Q = Fraction(1, 2) - z * Rc
print("cos Horner: |z R| <= %.5f, |Q| >= %.5f, ratio %.4f; |z Q| <= %.4f"
      % (float(z * Rc), float(Q), float(z * Rc / Q), float(z / 2)))
