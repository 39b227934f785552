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
# implementations that agree draw identical curves: curve k (no-PE curves
# first, then with-PE ones) gets its own hollow marker shape, markers shrink
# with k (from 2.6 to 0.8) so a later curve sits inside an earlier one's
# marker, and with-PE lines are dashed: every curve stays visible
M = (N - 1) / 2
shape(k) = word("6 4 8 12 10 14", k % 6 + 1) + 0
size(k) = 2.6 - 1.8 * k / (2 * M > 1 ? 2 * M - 1 : 1)
plot for [c=2:N:2] 'attention_equivariance.dat' using 1:(column(c) > 0 ? column(c) : NaN) with linespoints lw 1.5 pt shape(c / 2 - 1) ps size(c / 2 - 1) title (columnhead(c)[7:] . ", no PE"), \
     for [c=3:N:2] '' using 1:(column(c) > 0 ? column(c) : NaN) with linespoints lw 1.5 dt 2 pt shape(M + c / 2 - 1) ps size(M + c / 2 - 1) title (columnhead(c)[9:] . ", PE added")
