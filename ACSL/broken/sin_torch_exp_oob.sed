# source: families/sinusoidal/sin_torch_exp.c
# torch-exp with the pair loop running one pair too far (i <= d / 2): the
# last sin/cos pair is written past the row.  WP must fail the memory-access
# and pc_col precondition goals that -wp-rte generates.
s|for (int i = 0; i < d / 2; i++) {|for (int i = 0; i <= d / 2; i++) {|
