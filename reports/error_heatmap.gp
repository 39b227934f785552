# Plot 2: log10 of the largest error per (position bin, pair) for the worst
# implementation (largest error/bound) and the best one.
# Data: heatmap_worst.dat, heatmap_good.dat (pair pos_lo pos_hi max_abs_err log10_err).
set terminal pngcairo size 1100,560 enhanced font 'DejaVu Sans,10'
set output 'error_heatmap.png'
set datafile columnheaders
panels = (good eq "") ? 1 : 2
stats 'heatmap_worst.dat' using 5 nooutput
top = STATS_max
pairs = STATS_records
if (panels == 2) { stats 'heatmap_good.dat' using 5 nooutput; top = (STATS_max > top) ? STATS_max : top }
stats 'heatmap_worst.dat' using 1 nooutput
h = STATS_max + 1
top = (top > floor + 1) ? ceil(top) : floor + 1
set multiplot layout 1,panels title "{/:Bold Error heatmap}: log_{10} max |got - exact| per position bin and pair" font ',12'
set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')
set cbrange [floor:top]
set cblabel "log_{10} |error|"
set logscale y
set format y "10^{%L}"
set xrange [-0.5:h-0.5]
set yrange [1:scan_max+1]
set xlabel "pair index i (ω_i = base^{-2i/d}: high frequency left)"
if (!exists("scan_axis")) scan_axis = "position"
set ylabel scan_axis." (log scale)"
# the boxes overlap by 2% so antialiasing leaves no seams between cells
set tics out
set title worst noenhanced
plot 'heatmap_worst.dat' using 1:(sqrt($2*($3+1))):($1-0.52):($1+0.52):($2*0.99):(($3+1)*1.01):5 with boxxyerror fs solid 1.0 noborder lc palette notitle
if (panels == 2) {
  set title good noenhanced
  plot 'heatmap_good.dat' using 1:(sqrt($2*($3+1))):($1-0.52):($1+0.52):($2*0.99):(($3+1)*1.01):5 with boxxyerror fs solid 1.0 noborder lc palette notitle
}
unset multiplot
