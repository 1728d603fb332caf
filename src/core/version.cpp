#include "poolgrad/poolgrad.h"

extern "C" const char *poolgradVersion(void) { return POOLGRAD_VERSION; }
