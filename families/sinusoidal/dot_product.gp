# Plot 5: PE(p).PE(p+k) against k for three anchors p: the certified
# sinusoidal PE, the sin-only counterexample and mismatched frequencies.
# Data: dot_product.dat (k, then reference/sin_only/mismatched x 3 anchors).
set terminal pngcairo size 1350,480 enhanced font 'DejaVu Sans,10'
set output 'dot_product.png'
set datafile columnheaders
set multiplot layout 1,3 title sprintf("{/:Bold Sinusoidal PE(p)·PE(p+k)} against k = q - p  (d = %d, base = %g)", d, base) font ',12'
set grid xtics ytics lc rgb '#dddddd'
set xlabel "k = q - p (positions)"
set ylabel "PE(p) · PE(p+k)"
set xrange [-256:256]
set xtics 128
set key bottom center
titles = "reference sin-only mismatched"
heads = "certified PE: a function of k only|sin-only: depends on p + q too|mismatched ω (cos at base^{-(2i+1)/d})"
do for [v=0:2] {
  set title word(titles, v+1) . ": " . (v == 0 ? "the three curves coincide" : "the curves separate")
  plot 'dot_product.dat' using 1:(column(2+3*v)) with lines lw 5 lc rgb '#9ecae1' title sprintf("p = %d", p1), \
       '' using 1:(column(3+3*v)) with lines lw 2 lc rgb '#e6550d' dt 2 title sprintf("p = %d", p2), \
       '' using 1:(column(4+3*v)) with lines lw 1 lc rgb '#31a354' dt 1 title sprintf("p = %d", p3)
}
unset multiplot
