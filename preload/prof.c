/* Communication profiler: placeholder until HIERCOLL_PROFILE is implemented. */
#include "hc_preload.h"

void hc_prof_init(void) {}
void hc_prof_finalize(void) {}
