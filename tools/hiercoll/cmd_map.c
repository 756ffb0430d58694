/* hiercoll map: not written yet. */
#include <stdio.h>

#include "hc_cli.h"

int hc_cmd_map(int argc, char **argv)
{
    fprintf(stderr, "hiercoll map: not available yet\n");
    return HC_EXIT_FAIL;
}
