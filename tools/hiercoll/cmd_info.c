/* hiercoll info: not written yet. */
#include <stdio.h>

#include "hc_cli.h"

int hc_cmd_info(int argc, char **argv)
{
    fprintf(stderr, "hiercoll info: not available yet\n");
    return HC_EXIT_FAIL;
}
