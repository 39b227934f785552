# Plot 4: RoFormer's long-term decay bound (1/(d/2)) sum_j |S_j|,
# S_j = sum_{k<j} exp(i r theta_k), against the relative distance r.
# Data: rope_decay.dat (r, exact bound for 3 d x 2 bases),
#       rope_decay_impl.dat (r reference IMPL...) at the report's d and base.
set terminal pngcairo size 1200,540 enhanced font 'DejaVu Sans,10'
set output 'rope_decay.png'
set datafile columnheaders
set multiplot layout 1,2 title "{/:Bold RoPE long-term decay}: RoFormer bound (1/(d/2)) Σ_j |S_j|, S_j = Σ_{k<j} e^{i r θ_k}" font ',12'
set logscale x
set format x "10^{%L}"
set grid xtics ytics lc rgb '#dddddd'
set xlabel "relative distance r (log scale)"
set ylabel "relative upper bound of |q^T R_r k| (dimensionless)"
set key top right
set title "exact (binary64), θ_k = base^{-2k/d}"
labels = "d=64,base=10^4 d=128,base=10^4 d=256,base=10^4 d=64,base=5·10^5 d=128,base=5·10^5 d=256,base=5·10^5"
plot for [c=2:7] 'rope_decay.dat' using 1:c with lines lw 1.3 lc (c-1) dt 1 + (c >= 5) title word(labels, c-1)
set logscale y
set format y "10^{%L}"
set ylabel "|bound(implementation) - bound(exact)| (log scale)"
# bottom right: the deviations there are all far above the axis; at the top
# the bf16 cache's spikes reach the legend
set key bottom right noenhanced
set title sprintf("implementations at d = %d, base = %g: deviation from the exact bound", d, base)
# implementations that agree draw identical curves: each is drawn narrower
# than the one before (1.2 pt less, down to 1.3), so an earlier one shows as
# a band around a later one
width(k) = 1.3 + 1.2 * (n_impl - 1 - k)
if (n_impl > 0) {
  plot for [c=3:n_impl+2] 'rope_decay_impl.dat' using 1:(abs(column(c) - $2) > 0 ? abs(column(c) - $2) : NaN) with lines lw width(c - 3) title columnhead(c)
} else {
  set label 1 "no RoPE implementation selected" at graph 0.5, 0.5 center
  unset logscale y
  plot 'rope_decay_impl.dat' using 1:2 with lines lw 1.3 title 'exact bound (reference only)'
}
unset multiplot
