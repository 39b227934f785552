# Plot 4: RoFormer's long-term decay bound (1/(d/2)) sum_j |S_j|,
# S_j = sum_{k<j} exp(i r theta_k), against the relative distance r.
# Data: rope_decay.dat (r, exact bound for 3 d x 2 bases),
#       rope_decay_impl.dat (r reference bound IMPL...) at the report's d, against the
#       schedule the implementations' verdicts were checked against (sched):
#       "bound" is what the decay property holds a deviation to.
# Variables: d, base, n_impl, sched, no_curve (why no implementation is
# drawn when n_impl is 0).
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
# below the panel: inside it, some implementation's curve crosses any
# corner (the bf16 cache's spikes reach the top, the mixed-layout kernel's
# deviations the bottom)
set key below center horizontal noenhanced maxcols 2
set title sprintf("implementations at d = %d, %s:\ndeviation from the exact bound", d, sched)
# every curve shows: implementations that agree draw the same curve, so
# each is drawn narrower than the one before (1.2 pt less, down to 1.3) and
# carries its own point type every few points; a deviation of exactly 0
# (an implementation equal to the binary64 bound there) is drawn at the
# floor 1e-9 (a deviation under it as well) instead of leaving a gap
width(k) = 1.3 + 1.2 * (n_impl - 1 - k)
floor = 1e-9
dev(c) = abs(column(c) - $2) > floor ? abs(column(c) - $2) : floor
if (n_impl > 0) {
  plot 'rope_decay_impl.dat' using 1:3 with lines lw 2.5 lc rgb 'black' dt 2 title 'bound of the decay property', \
       for [c=4:n_impl+3] 'rope_decay_impl.dat' using 1:(dev(c)) with linespoints lw width(c - 4) pt (c - 3) pi 12 ps 0.9 lc (c - 3) title columnhead(c)
} else {
  # no implementation curve (none selected, or positions of several axes:
  # no distance r): the exact bound alone, labelled as what it is, and why
  # (the variable no_curve)
  set label 1 no_curve at graph 0.5, 0.85 center noenhanced
  unset logscale y
  set format y "%g"
  set ylabel "relative upper bound of |q^T R_r k| (dimensionless)"
  set key top right
  set title sprintf("exact bound at d = %d, %s\n(reference only: no implementation curve)", d, sched)
  plot 'rope_decay_impl.dat' using 1:2 with lines lw 1.3 title 'exact bound (reference only)'
}
unset multiplot
