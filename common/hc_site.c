/* Call sites as module + offset (hc_site.h). */
#include "hc_site.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void clean(char *out, size_t outlen, const char *in)
{
    size_t i = 0;
    for (; in && in[i] && i + 1 < outlen; i++)
        out[i] = strchr("\t\n;|,\" ", in[i]) ? '_' : in[i];
    out[i] = 0;
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
    clean(module, mlen, info.dli_fname && info.dli_fname[0] ? info.dli_fname : "?");
    const ElfW(Ehdr) *eh = info.dli_fbase;
    if (eh->e_type != ET_EXEC)
        *off = pc - (uintptr_t)info.dli_fbase;
    if (info.dli_sname)
        clean(sym, slen, info.dli_sname);
    if (strcmp(module, "?") != 0 && module[0] != '/') {
        /* The main program reports an empty or relative name: use /proc/self/exe. */
        char exe[512];
        ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (len > 0) {
            exe[len] = 0;
            clean(module, mlen, exe);
        }
    }
}

void hc_site_key(uintptr_t pc, char *out, size_t len)
{
    char module[512], sym[8];
    uintptr_t off;
    hc_site_locate(pc, module, sizeof module, &off, sym, sizeof sym);
    snprintf(out, len, "%s+0x%lx", module, (unsigned long)off);
}
