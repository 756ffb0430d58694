/* Call sites as a program's binary names them: module and offset, the same in every process
 * and every run of that binary (unlike addresses, which address-space randomisation moves).
 * The profiler writes them, the learner keys and saves its choices by them. */
#ifndef HC_SITE_H
#define HC_SITE_H

#include <stddef.h>
#include <stdint.h>

/* pc (an address inside a call instruction) as its module's path, the offset addr2line
 * expects (from the load base for shared objects and PIE executables, absolute for
 * fixed-address ones) and the nearest symbol ("?" each when unknown). Characters that
 * separate fields in the profile's text ("\t\n;|,\"" and blanks) become '_'. */
void hc_site_locate(uintptr_t pc, char *module, size_t mlen, uintptr_t *off, char *sym,
                    size_t slen);

/* "module+0xoffset" (the module's path): what a tuning file's site= field holds; rules match
 * by the module's base name, so a binary moved between runs keeps its rules. */
void hc_site_key(uintptr_t pc, char *out, size_t len);

#endif
