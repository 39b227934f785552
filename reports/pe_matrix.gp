# Plot 7: the sinusoidal PE matrix (positions 0..50 x columns 0..511 of the half layout,
# d = 512) and the wavelength of each dimension.
# Data: pe_matrix.dat (pos column value), wavelength.dat (dim pair omega wavelength).
set terminal pngcairo size 1300,520 enhanced font 'DejaVu Sans,10'
set output 'pe_matrix.png'
set datafile columnheaders
set multiplot title sprintf("{/:Bold The sinusoidal PE matrix} (certified, d = %d, base = %g) and its wavelengths", d, base) font ',12'
set size 0.62,0.92
set origin 0,0
set palette defined (-1 '#2166ac', 0 '#f7f7f7', 1 '#b2182b')
set cbrange [-1:1]
set cblabel "PE value"
set xrange [-0.5:d-0.5]
set yrange [-0.5:npos+0.5]
set xtics 64
set xlabel "column: sin of pairs 0..d/2-1, then cos of pairs 0..d/2-1"
set ylabel "position"
set title "PE(pos, ·) in the half layout: [sin(pos ω_i) | cos(pos ω_i)]"
set arrow 1 from d/2-0.5, graph 0 to d/2-0.5, graph 1 nohead lc rgb 'black' lw 1.5 front
set tics out
plot 'pe_matrix.dat' using 2:1:3 with image notitle
set size 0.38,0.92
set origin 0.62,0
unset colorbox
set autoscale
unset arrow 1
set xrange [0:d]
set logscale y
set format y "10^{%L}"
set grid xtics ytics lc rgb '#dddddd'
set xlabel "dimension j"
set ylabel "wavelength 2π·base^{2i/d} (positions, log scale)"
set title "wavelength of dimension j (pair i = j/2)"
plot 'wavelength.dat' using 1:4 with lines lw 2 lc rgb '#08519c' notitle
unset multiplot
