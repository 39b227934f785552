# source: harness/sources/table.c
# functions: row_of,rows_in
# The .npy table's row lookup with its upper bound off by one: position
# pos_hi + 1 (one past the last row) is accepted, i.e. the row index tested
# as row <= rows instead of row < rows.  WP must fail row_of's out_of_range
# behavior (goal row_of_out_of_range_ensures_rejected); rows_in, serve_rows
# and sin_serve rely on that contract, so it is what keeps their reads of
# the table in bounds.
s/pos > t->info.pos_hi)/pos > t->info.pos_hi + 1)/
