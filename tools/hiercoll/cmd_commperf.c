/* hiercoll commperf: not written yet. */
#include <stdio.h>

#include "hc_cli.h"

int hc_cmd_commperf(int argc, char **argv)
{
    fprintf(stderr, "hiercoll commperf: not available yet\n");
    return HC_EXIT_FAIL;
}
