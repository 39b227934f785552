# ALiBi: the bias -m_h |j - i| of every head against the distance, exact
# slopes (the paper's rule), for H = 8 (a power of two: 1/2 .. 1/256) and
# H = 12 (1/2 .. 1/256 then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5, drawn dashed).
# Data: alibi_bias.dat (distance, then 8 columns for H = 8 and 12 for
#       H = 12), written by pc_relative_plot_data.
set terminal pngcairo size 1200,540 enhanced font 'DejaVu Sans,10'
set output 'alibi_bias.png'
set datafile columnheaders
set multiplot layout 1,2 title "{/:Bold ALiBi bias per head}: -m_h |j - i|" font ',12'
set grid xtics ytics lc rgb '#dddddd'
set xlabel "distance |j - i|"
set ylabel "bias added to the attention logit"
set key bottom left noenhanced font ',8'
set title "H = 8: m_h = 2^{-(h+1)}"
plot for [c=2:9] 'alibi_bias.dat' using 1:c with lines lw 1.5 title columnhead(c)
set title "H = 12: 8 slopes of the H = 8 rule, then 4 interleaved (dashed)"
plot for [c=10:17] 'alibi_bias.dat' using 1:c with lines lw 1.5 title columnhead(c), \
     for [c=18:21] 'alibi_bias.dat' using 1:c with lines lw 1.5 dt 2 title columnhead(c)
unset multiplot
