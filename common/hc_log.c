#include "hc_log.h"

#include <stdarg.h>
#include <stdio.h>

int hc_log_rank = -1;
int hc_log_verbosity = 0;

void hc_log(const char *level, const char *fmt, ...)
{
    /* One fprintf per line so lines of different ranks do not interleave mid-line. */
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (hc_log_rank >= 0)
        fprintf(stderr, "hiercoll[%d]: %s%s%s\n", hc_log_rank, level ? level : "",
                level ? ": " : "", line);
    else
        fprintf(stderr, "hiercoll: %s%s%s\n", level ? level : "", level ? ": " : "", line);
}
