# Plot 8: attention permutation equivariance: max |T(PX + E) - P T(X + E)|
# against the sequence length, E = 0 (no PE) or the sinusoidal PE.
# Data: attention_equivariance.dat (n, then no_pe:IMPL with_pe:IMPL pairs).
set terminal pngcairo size 1000,600 enhanced font 'DejaVu Sans,10'
set output 'attention_equivariance.png'
set datafile columnheaders
stats 'attention_equivariance.dat' using 1 nooutput
N = STATS_columns
set title sprintf("{/:Bold Attention permutation equivariance}\nmax |T(PX+E) - P·T(X+E)|  (d = %d, max of %d permutations)", d, trials) font ',12'
set logscale xy
set logscale x 2
set format x "%g"
set format y "10^{%L}"
set grid xtics ytics lc rgb '#dddddd'
set xlabel "sequence length n (log scale)"
set ylabel "max |T(PX+E) - P·T(X+E)| over the output (log scale)"
set key outside right top noenhanced
# implementations that agree draw identical curves: later ones get smaller,
# filled markers over earlier, larger hollow ones, so every curve stays visible
plot for [c=2:N:2] 'attention_equivariance.dat' using 1:(column(c) > 0 ? column(c) : NaN) with linespoints lw 2 pt 6 ps (2.4 - 0.35 * (c / 2)) title columnhead(c), \
     for [c=3:N:2] '' using 1:(column(c) > 0 ? column(c) : NaN) with linespoints lw 2 dt 2 pt 5 ps (1.8 - 0.3 * (c / 2)) title columnhead(c)
