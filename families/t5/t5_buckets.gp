# T5 relative-position buckets: the staircase of bucket against j - i at
# HF's defaults (num_buckets 32, max_distance 128), exact (MPFR floor of the
# log term), bidirectional and causal; implementations' buckets on top.
# Data: t5_buckets.dat (j-i, exact_bidirectional, exact_causal, then two
#       columns per implementation), written by pc_relative_plot_data.
# Variables: n_impl (implementations in the file; 0 when undefined).
if (!exists("n_impl")) n_impl = 0
set terminal pngcairo size 1200,600 enhanced font 'DejaVu Sans,10'
set output 't5_buckets.png'
set datafile columnheaders
set multiplot layout 1,2 title "{/:Bold T5 relative-position buckets} (num\\_buckets 32, max\\_distance 128)" font ',12'
set grid xtics ytics lc rgb '#dddddd'
set xlabel "relative position j - i (key minus query)"
set ylabel "bucket"
# the legend below the panels (inside, it would sit on the staircases),
# half a line clear of the x label
set key below center horizontal noenhanced maxrows 3 height 1.5
set xrange [-200:200]
set arrow 1 from -128, graph 0 to -128, graph 1 nohead dt 2 lc rgb '#888888'
set arrow 2 from 128, graph 0 to 128, graph 1 nohead dt 2 lc rgb '#888888'
# implementations that agree draw identical staircases: the exact one is a
# wide pale band, implementation c is drawn narrower than the one before
# (3.5 down to 1) with its own dash pattern, so each stays visible on the
# others
width(c) = 3.5 - 2.5 * c / (n_impl > 1 ? n_impl - 1 : 1)
dash(c) = c % 5 + 1
set title "bidirectional: exact for |j-i| < 8, logarithmic to 128, then saturated"
plot 't5_buckets.dat' using 1:2 with steps lw 6 lc rgb '#9ecae1' title 'exact', \
     for [c=0:n_impl-1] 't5_buckets.dat' using 1:(column(4+2*c)) with steps lw width(c) dt dash(c) title columnhead(4+2*c)[:strlen(columnhead(4+2*c))-14]
set title "causal: keys after the query share bucket 0"
plot 't5_buckets.dat' using 1:3 with steps lw 6 lc rgb '#fcae91' title 'exact', \
     for [c=0:n_impl-1] 't5_buckets.dat' using 1:(column(5+2*c)) with steps lw width(c) dt dash(c) title columnhead(5+2*c)[:strlen(columnhead(5+2*c))-7]
unset multiplot
