/* Helpers shared by the hiercoll subcommands. */
#include "cli_util.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hc_cli.h"

void hc_json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

int hc_run(char *const argv[])
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "hiercoll: fork: %s\n", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "hiercoll: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    /* The child owns the terminal's Ctrl-C; we only wait for it. */
    void (*old_int)(int) = signal(SIGINT, SIG_IGN);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    signal(SIGINT, old_int);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

void hc_print_argv(char *const argv[])
{
    for (int i = 0; argv[i]; i++)
        printf("%s%s", i ? " " : "", argv[i]);
    printf("\n");
}

const char *hc_mpiexec(void)
{
    const char *m = getenv("MPIEXEC");
    return m && *m ? m : "mpiexec.mpich";
}

static const char *existing(const char *rel, const char *what)
{
    static char path[PATH_MAX];
    char real[PATH_MAX];
    snprintf(path, sizeof path, "%s", hc_cli_path(rel));
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "hiercoll: %s not found at %s (build it with make)\n", what, path);
        return NULL;
    }
    if (realpath(path, real))
        snprintf(path, sizeof path, "%s", real);
    return path;
}

const char *hc_preload_lib(const char *suffix)
{
    static char lib[PATH_MAX];
    char rel[128], what[64];
    snprintf(rel, sizeof rel, "../lib/libhiercoll%s.so", suffix);
    snprintf(what, sizeof what, "libhiercoll%s.so", suffix);
    const char *p = existing(rel, what);
    if (!p)
        return NULL;
    snprintf(lib, sizeof lib, "%s", p);
    return lib;
}

const char *hc_tool(const char *name, const char *suffix)
{
    static char tool[PATH_MAX];
    char rel[128];
    snprintf(rel, sizeof rel, "hiercoll-%s%s", name, suffix);
    const char *p = existing(rel, rel);
    if (!p)
        return NULL;
    snprintf(tool, sizeof tool, "%s", p);
    return tool;
}

void hc_env_add_preload(const char *lib)
{
    const char *old = getenv("LD_PRELOAD");
    if (old && strstr(old, lib))
        return;
    size_t n = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *v = malloc(n);
    if (!v)
        return;
    if (old && *old)
        snprintf(v, n, "%s:%s", lib, old);
    else
        snprintf(v, n, "%s", lib);
    setenv("LD_PRELOAD", v, 1);
    free(v);
}

int hc_opt_int(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!*text || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "hiercoll %s: bad %s '%s' (expected an integer in %ld..%ld)\n", cmd,
                opt, text, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}
