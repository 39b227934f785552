# source: harness/sandbox/canary.c
# functions: pc_canary_check
# The canary scan with the trailing canary starting one byte early: it
# reads the last byte of OUT (the plugin's output) as if it were a canary.
# The contract gives read access to the two canary regions only, so WP must
# fail the call's precondition (goal pc_canary_check_call_changed_bytes_2_requires_valid).
s|const unsigned char \*tail = data + lead + out_bytes;|const unsigned char *tail = data + lead + out_bytes - 1;|
