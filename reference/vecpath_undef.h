/* vecpath_undef.h: forget the macros of one instantiation of
 * vecpath_kernel.h, so that the next instruction set can define its own
 * (reference/vecpath.c includes this after each kernel). */
#undef VP_W
#undef VP_FN
#undef VP_TARGET
#undef VD
#undef VI
#undef VM
#undef LOADD
#undef SETD
#undef SETI
#undef ADD
#undef SUB
#undef MUL
#undef FMA
#undef FMS
#undef MAXD
#undef ABSD
#undef ASI
#undef ASD
#undef IAND
#undef IXOR
#undef IOR
#undef IADD
#undef ISUB
#undef ISHL
#undef GED
#undef GTD
#undef IGT
#undef MAND
#undef MANDN
#undef MBITS
#undef BLEND_ODD
#undef STORED
#undef VP_STORE
