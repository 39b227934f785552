"""python -m pecheck ARGS: run the pecheck binary (as the `pecheck` command)."""
import sys

from ._binary import main

sys.exit(main())
