# Plot 3: distribution of the error in ulps (log2 buckets), one curve per
# implementation.  Data: ulp_histogram.dat (log2_ulp_hi label IMPL...):
# x = -1 for "correctly rounded" (drawn at -3, apart from the others), k for (2^(k-1), 2^k] ulp, 41 for > 2^40.
set terminal pngcairo size 1000,600 enhanced font 'DejaVu Sans,10'
set output 'ulp_histogram.png'
set datafile columnheaders
# 12 distinguishable colours (matplotlib's tab10 + 2), reused after 12 with
# another dash type, so up to 24 implementations stay apart
set linetype 1 lc rgb '#1f77b4'
set linetype 2 lc rgb '#ff7f0e'
set linetype 3 lc rgb '#2ca02c'
set linetype 4 lc rgb '#d62728'
set linetype 5 lc rgb '#9467bd'
set linetype 6 lc rgb '#8c564b'
set linetype 7 lc rgb '#e377c2'
set linetype 8 lc rgb '#7f7f7f'
set linetype 9 lc rgb '#bcbd22'
set linetype 10 lc rgb '#17becf'
set linetype 11 lc rgb '#000080'
set linetype 12 lc rgb '#808000'
set linetype cycle 12
stats 'ulp_histogram.dat' using 1 nooutput
N = STATS_columns
set title "{/:Bold ULP error histogram}: fraction of the scanned elements per error bucket" font ',12'
set logscale y
set format y "10^{%L}"
set yrange [1e-6:1.5]
set xrange [-3.5:42]
set xtics ("CR" -3)
do for [k=0:36:4] { set xtics add (sprintf("2^{%d}", k) k) }
set xtics add (">2^{40}" 41)
set mxtics 4
set grid xtics ytics lc rgb '#dddddd'
set xlabel "error in ulps of the correctly rounded binary32 value (bucket upper edge, log_2 scale; CR = correctly rounded)"
set ylabel "fraction of elements (log scale)"
set key outside right top noenhanced
# implementations that agree draw identical curves: each gets its own
# marker shape, outlines (circle, square, triangles, diamond) alternating with
# strokes (x, +, *), none filled (8 shapes; with the 12 colours, 24
# distinct pairs), so markers of coinciding curves overlay without hiding
# each other
hollow(k) = word("6 2 4 1 8 3 12 10", k % 8 + 1) + 0
plot for [c=3:N] 'ulp_histogram.dat' using (column(1) < 0 ? -3 : column(1)):(column(c) > 0 ? column(c) : NaN) with linespoints lw 1.5 lc (c - 2) pt hollow(c - 3) ps 0.8 dt int((c - 3) / 12) + 1 title columnhead(c)
