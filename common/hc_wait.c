/* The one hook of the waiting loops (hc_wait.h). */
#include "hc_wait.h"

void (*hc_wait_progress)(void);
