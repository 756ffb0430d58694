/* hiercoll profile: not written yet. */
#include <stdio.h>

#include "hc_cli.h"

int hc_cmd_profile(int argc, char **argv)
{
    fprintf(stderr, "hiercoll profile: not available yet\n");
    return HC_EXIT_FAIL;
}
