/* hiercoll report: not written yet. */
#include <stdio.h>

#include "hc_cli.h"

int hc_cmd_report(int argc, char **argv)
{
    fprintf(stderr, "hiercoll report: not available yet\n");
    return HC_EXIT_FAIL;
}
