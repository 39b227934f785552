/* version2: reports ABI version 2, which this pecheck does not implement. */
#include "common.h"
int pecheck_abi_version(void) { return 2; }
