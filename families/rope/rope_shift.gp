# Plot 6: RoPE shift invariance: max over (q, k, delta) of
# |<R_{m+delta} q, R_m k> - <R_delta q, k>| / (|q| |k|) against the offset m.
# Data: rope_shift.dat (offset IMPL...).
set terminal pngcairo size 1000,600 enhanced font 'DejaVu Sans,10'
set output 'rope_shift.png'
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
stats 'rope_shift.dat' using 1 nooutput
N = STATS_columns
set title sprintf("{/:Bold RoPE shift invariance}: score error against the absolute offset m\n(d = %d, %s)", d, sched) font ',12'
set logscale xy
set format x "2^{%L}"
set logscale x 2
set format y "10^{%L}"
set grid xtics ytics lc rgb '#dddddd'
set xlabel "absolute offset m of the key (log scale); the query sits at m + δ"
set ylabel "max |score - exact score| / (|q| |k|) (log scale)"
set key outside right top noenhanced
# implementations that agree draw identical curves: each gets its own
# marker shape, outlines (circle, square, triangles, diamond) alternating with
# strokes (x, +, *), none filled (8 shapes; with the 12 colours, 24
# distinct pairs), so markers of coinciding curves overlay without hiding
# each other
hollow(k) = word("6 2 4 1 8 3 12 10", k % 8 + 1) + 0
plot for [c=2:N] 'rope_shift.dat' using 1:(column(c) > 0 ? column(c) : NaN) with linespoints lw 1.5 lc (c - 1) pt hollow(c - 2) ps 0.8 dt int((c - 2) / 12) + 1 title columnhead(c), \
     2**-24 with lines dt 2 lc rgb 'black' title 'binary32 unit roundoff 2^-24', \
     2**-8 with lines dt 3 lw 2 lc rgb 'black' title 'bfloat16 unit roundoff 2^-8'
