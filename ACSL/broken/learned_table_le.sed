# source: families/learned/learned_table.c
# The learned-table lookup with the bound check off by one: position
# PC_LEARNED_MAX_LEN (512, one past the last row) is accepted, i.e. the valid
# range tested as pos <= max_len instead of pos < max_len.  WP must fail the
# loop invariant 'checked' (and so the out_of_range behavior).
s/pos\[r\] >= PC_LEARNED_MAX_LEN)/pos[r] > PC_LEARNED_MAX_LEN)/
