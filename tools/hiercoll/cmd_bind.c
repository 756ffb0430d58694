/* hiercoll bind: not written yet. */
#include <stdio.h>

#include "hc_cli.h"

int hc_cmd_bind(int argc, char **argv)
{
    fprintf(stderr, "hiercoll bind: not available yet\n");
    return HC_EXIT_FAIL;
}
