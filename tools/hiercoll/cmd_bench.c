/* hiercoll bench: not written yet. */
#include <stdio.h>

#include "hc_cli.h"

int hc_cmd_bench(int argc, char **argv)
{
    fprintf(stderr, "hiercoll bench: not available yet\n");
    return HC_EXIT_FAIL;
}
