"""pecheck for Python: gate positional encodings in one line.

    import pecheck
    pecheck.assert_rope_cache(cos, sin, hf_config="config.json")   # AssertionError with the witness
    pecheck.assert_sinusoidal_table(pe)
    pecheck.assert_learned_table(model.wpe.weight)
    pecheck.assert_alibi_slopes(slopes)                              # BLOOM's, MPT's (H,) or biases
    pecheck.assert_t5_buckets(buckets, num_buckets=32, max_distance=128)
    pecheck.gate_rotary(model.rotary_emb, config="config.json", positions=1_000_000)
    pecheck.assert_rotation(apply_rotary_pos_emb, form="q,k,cos,sin", hf_config="config.json")
    result = pecheck.check_rope_cache(cos, sin, base=500000.0)      # a Result, no exception

The arrays are numpy arrays or torch tensors (float32, float64, float16,
bfloat16; bfloat16 bit patterns as uint16 with dtype='bf16'); anything not
floating point is a TypeError.  The keywords are `pecheck check`'s options
('-' written '_').  The work is done by the pecheck binary (find_binary):
the arrays reach it in memory (pecheck._transport), it gates them against
the certified reference, and its JSON becomes a Result (pecheck.result).
A failing run keeps its inputs and prints the command line that replays it.

With pytest, the plugin (pecheck.pytest_plugin, loaded by the pytest11
entry point of an installed package) adds the `pecheck_gate` fixture and
the `pecheck` marker.
"""

from ._binary import PecheckError, find_binary
from .checks import (assert_alibi_slopes, assert_learned_table, assert_rope_cache,
                     assert_sinusoidal_table, assert_t5_buckets, check_alibi_slopes,
                     check_learned_table, check_rope_cache, check_sinusoidal_table,
                     check_t5_buckets, check_table)
from .result import Result, Verdict, Witness
from .rotary import check_rotary, gate_rotary
from .rotation import assert_rotation, check_rotation

__version__ = "0.1.0"

__all__ = ["PecheckError", "find_binary", "Result", "Verdict", "Witness",
           "check_rope_cache", "check_sinusoidal_table", "check_learned_table",
           "check_alibi_slopes", "check_t5_buckets", "check_table",
           "assert_rope_cache", "assert_sinusoidal_table", "assert_learned_table",
           "assert_alibi_slopes", "assert_t5_buckets",
           "check_rotary", "gate_rotary", "check_rotation", "assert_rotation", "__version__"]
