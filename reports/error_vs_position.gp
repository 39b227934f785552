# Plot 1: the largest error/bound ratio per log-spaced position bin, one
# curve per implementation (upper panel: the verdict, above 1 fails), and the
# largest absolute error with the precision model's bound (lower panel).
# Data: error_vs_position.dat (pos_lo pos_hi bound IMPL...),
#       error_ratio.dat (pos_lo pos_hi IMPL...).
set terminal pngcairo size 1000,860 enhanced font 'DejaVu Sans,10'
set output 'error_vs_position.png'
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
stats 'error_vs_position.dat' using 1 nooutput
N = STATS_columns
# implementations that agree draw identical curves: each gets its own
# marker shape, outlines (circle, square, triangles, diamond) alternating with
# strokes (x, +, *), none filled (8 shapes; with the 12 colours, 24
# distinct pairs), so markers of coinciding curves overlay without hiding
# each other
hollow(k) = word("6 2 4 1 8 3 12 10", k % 8 + 1) + 0
set multiplot layout 2,1 title "{/:Bold Error vs position}  (binary32; upper: error / own bound, lower: absolute error)" font ',12'
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set grid xtics ytics mytics lc rgb '#dddddd'
set key outside right top noenhanced spacing 1.1
# the same plot area in both panels, whatever the legends' widths
set lmargin at screen 0.09
set rmargin at screen 0.78
set xrange [1:scan_max]
if (!exists("scan_axis")) scan_axis = "position pos"
set xlabel scan_axis." (log scale)"
set ylabel "max |error| / own bound (log scale)"
set title "error divided by each element's own bound: above 1 = fails the gate"
plot 1 with lines lw 3 lc rgb 'black' title 'error = bound', \
     for [c=3:N-1] 'error_ratio.dat' using 1:c with linespoints lw 1.5 lc (c - 2) pt hollow(c - 3) ps 0.8 dt int((c - 3) / 12) + 1 title columnhead(c)
set ylabel "max |got - exact| in the bin (log scale)"
set title "max |error| over every dimension of the sampled positions of each bin"
plot 'error_vs_position.dat' using 1:3 with lines lw 3 lc rgb 'black' title 'bound C·u·(1+pos)', \
     for [c=4:N] '' using 1:c with linespoints lw 1.5 lc (c - 3) pt hollow(c - 4) ps 0.8 dt int((c - 4) / 12) + 1 title columnhead(c)
unset multiplot
