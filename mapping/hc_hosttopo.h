/* A host's cores as the mapping needs them: read with hwloc on the host itself (so a host given
 * another topology through HWLOC_XMLFILE or HWLOC_SYNTHETIC is seen as that), carried to rank 0
 * at finalize as a typed record (packed into bytes), and written to and read back from a
 * profile's machine.txt ("host H cores ..."), so that an offline mapping sees exactly what
 * finalize saw. */
#ifndef HC_HOSTTOPO_H
#define HC_HOSTTOPO_H

#include <stddef.h>

#define HC_HOST_TOPO_MAX_PU 65536
#define HC_HOST_NAMELEN 64

typedef struct hc_host_topo {
    char host[HC_HOST_NAMELEN]; /* the real host ("" when not known) */
    char synthetic[1024];       /* hwloc's synthetic description, "?" when it has none */
    int ncores, npackages, maxpu;
    int *core_os; /* [ncores] OS index of the first PU of each core, hwloc's logical order */
    int *pu_core; /* [maxpu + 1] core position of each PU, -1 if none */
} hc_host_topo;

/* This host's, as hwloc sees it here (HWLOC_XMLFILE, HWLOC_SYNTHETIC honoured), named host.
 * 0 or -1. */
int hc_host_topo_load(hc_host_topo *t, const char *host);
void hc_host_topo_free(hc_host_topo *t);
int hc_host_topo_copy(hc_host_topo *dst, const hc_host_topo *src);

/* The record as bytes (fixed header, then each PU's core position), for a gather: the size
 * hc_host_topo_pack needs, the packing, and the unpacking of one record at p (n bytes left),
 * which returns the bytes it took, or -1 if they are not a whole, consistent record. */
size_t hc_host_topo_packed_size(const hc_host_topo *t);
void hc_host_topo_pack(const hc_host_topo *t, void *buf);
long hc_host_topo_unpack(hc_host_topo *t, const void *p, size_t n);

/* The cores as machine.txt spells them: "PACKAGES CORES" where CORES lists the cores ';'-
 * separated, each its PUs ','-separated with the core's OS index first ("1 0;1"). The parser
 * returns 0, or -1 on anything else. */
void hc_host_topo_format(const hc_host_topo *t, char *buf, size_t len);
int hc_host_topo_parse(hc_host_topo *t, const char *s);

/* The index of host in topos[n] (by name), or -1. */
int hc_host_topo_find(const hc_host_topo *topos, int n, const char *host);

#endif
