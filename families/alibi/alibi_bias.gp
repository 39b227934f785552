# ALiBi: left, the bias -m_h |j - i| of every head against the distance,
# exact slopes (the paper's rule) for H = 12, a head count that is not a
# power of two (1/2 .. 1/256 for the first 8 heads, then 2^-0.5, 2^-1.5,
# 2^-2.5, 2^-3.5 interleaved, drawn dashed); right, the slope of each head
# for H = 12, exact against each selected implementation's binary32 slope.
# Data: alibi_bias.dat (distance, then 8 columns for H = 8 and 12 for
#       H = 12), alibi_slopes.dat (head, exact, one column per
#       implementation), written by pc_relative_plot_data.
set terminal pngcairo size 1200,540 enhanced font 'DejaVu Sans,10'
set output 'alibi_bias.png'
set datafile columnheaders
stats 'alibi_slopes.dat' using 1 nooutput
NS = STATS_columns
# the same bottom margin in both panels: room for the slope panel's legend
set bmargin 7
set multiplot layout 1,2 title "{/:Bold ALiBi}: bias -m_h |j - i| per head (H = 12)" font ',12'
set grid xtics ytics lc rgb '#dddddd'
set xlabel "distance |j - i|"
set ylabel "bias added to the attention logit"
set key bottom left noenhanced font ',9' maxrows 6
set title "exact bias; heads 8..11 (dashed) take the interleaved slopes"
plot for [c=10:17] 'alibi_bias.dat' using 1:c with lines lw 1.5 title sprintf("h = %d", c - 10), \
     for [c=18:21] 'alibi_bias.dat' using 1:c with lines lw 1.5 dt 2 title sprintf("h = %d", c - 10)
set title "slope m_h per head: an implementation off the exact points is wrong"
set xlabel "head h"
set ylabel "slope m_h (log_2 scale)"
set logscale y 2
set format y "2^{%L}"
set xrange [-0.5:11.5]
set yrange [2**-9:1]
set xtics 1
# the legend below the panel, where no curve runs; implementations that
# agree would hide each other at the exact point, so implementation c is
# drawn beside it, dodged by off(c) (within +-0.3 of the head), each with
# its own marker shape; the exact slope is a bar across the head's width
set key below center horizontal noenhanced font ',10' maxcols 3
n_impl = NS - 2
off(c) = n_impl > 1 ? 0.6 * ((c - 3.0) / (n_impl - 1) - 0.5) : 0
shape(c) = word("4 6 8 12 10 14 1 2", (c - 3) % 8 + 1) + 0
plot 'alibi_slopes.dat' using 1:2:($1 - 0.4):($1 + 0.4) with xerrorbars lw 2 lc rgb 'black' pt 0 title 'exact (paper rule)', \
     for [c=3:NS] '' using ($1 + off(c)):c with points pt shape(c) ps 1.3 lw 1.5 title columnhead(c)
unset multiplot
