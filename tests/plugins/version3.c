/* version3: reports ABI version 3, which this pecheck does not implement
 * (it loads versions 1 and 2). */
#include "common.h"
int pecheck_abi_version(void) { return 3; }
