/* hiercoll-maptables --vs-scotch: the comparison with Scotch's gmap. */
#ifndef HC_VS_SCOTCH_H
#define HC_VS_SCOTCH_H

/* argv: the arguments after --vs-scotch. Returns the exit status. */
int hc_vs_scotch_main(int argc, char **argv);

#endif
