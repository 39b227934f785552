#ifndef PECHECK_VERSION_H
#define PECHECK_VERSION_H
#define PC_TOOL "pecheck"
#define PC_VERSION "0.1.0"
#endif
