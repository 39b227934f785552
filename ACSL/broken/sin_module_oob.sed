# source: families/sinusoidal/sin_kernel.h
# The binary32 module's table (pc_sin_module_f32: torch-exp, torch-pow and
# the known-bad built-ins that derive from torch-exp) with the pair loop
# running one pair too far (i <= d / 2): the last sin/cos pair is written
# past the row.  WP must fail the memory-access and pc_col precondition
# goals that -wp-rte generates.
/^static inline int pc_sin_module_f32(/,/^}/s|for (int i = 0; i < d / 2; i++) {|for (int i = 0; i <= d / 2; i++) {|
