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

/* The same for many addresses at once (the profiler's finalize), with the same answers:
 * each module's dynamic symbols are read once and searched (common/site_names.c), where
 * dladdr scans them all for every address. Given the addresses it will be asked (pcs, in
 * any order; NULL: any), the namer keeps only the symbols that hold one of them. Modules
 * loaded after hc_site_namer_new, and addresses not given, are answered by hc_site_locate. */
typedef struct hc_site_namer hc_site_namer;
hc_site_namer *hc_site_namer_new(const uintptr_t *pcs, size_t npcs);
void hc_site_namer_locate(hc_site_namer *n, uintptr_t pc, char *module, size_t mlen,
                          uintptr_t *off, char *sym, size_t slen);
void hc_site_namer_free(hc_site_namer *n);

/* The pieces both share: a name with the profile's separators made '_' ("?" for NULL is the
 * caller's); a module's path and pc's offset in it, given where its ELF header is mapped. */
void hc_site_clean(char *out, size_t outlen, const char *in);
void hc_site_name_module(const char *path, uintptr_t fbase, uintptr_t pc, char *module,
                         size_t mlen, uintptr_t *off);

/* "module+0xoffset" (the module's path): what a tuning file's site= field holds; rules match
 * by the module's base name, so a binary moved between runs keeps its rules. */
void hc_site_key(uintptr_t pc, char *out, size_t len);

#endif
