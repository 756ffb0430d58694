/* Call sites as module + offset (hc_site.h). */
#include "hc_site.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void hc_site_clean(char *out, size_t outlen, const char *in)
{
    size_t i = 0;
    for (; in && in[i] && i + 1 < outlen; i++)
        out[i] = strchr("\t\n;|,\" ", in[i]) ? '_' : in[i];
    out[i] = 0;
}

void hc_site_name_module(const char *path, uintptr_t fbase, uintptr_t pc, char *module,
                         size_t mlen, uintptr_t *off)
{
    hc_site_clean(module, mlen, path && path[0] ? path : "?");
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)fbase;
    *off = eh->e_type != ET_EXEC ? pc - fbase : pc;
    if (strcmp(module, "?") != 0 && module[0] != '/') {
        /* The main program reports an empty or relative name: use /proc/self/exe. */
        char exe[512];
        ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (len > 0) {
            exe[len] = 0;
            hc_site_clean(module, mlen, exe);
        }
    }
}

void hc_site_locate(uintptr_t pc, char *module, size_t mlen, uintptr_t *off, char *sym,
                    size_t slen)
{
    Dl_info info;
    snprintf(module, mlen, "?");
    snprintf(sym, slen, "?");
    *off = pc;
    if (!pc || !dladdr((void *)pc, &info) || !info.dli_fbase)
        return;
    hc_site_name_module(info.dli_fname, (uintptr_t)info.dli_fbase, pc, module, mlen, off);
    if (info.dli_sname)
        hc_site_clean(sym, slen, info.dli_sname);
}

void hc_site_key(uintptr_t pc, char *out, size_t len)
{
    char module[512], sym[8];
    uintptr_t off;
    hc_site_locate(pc, module, sizeof module, &off, sym, sizeof sym);
    snprintf(out, len, "%s+0x%lx", module, (unsigned long)off);
}
