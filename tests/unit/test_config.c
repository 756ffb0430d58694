/* The HIERCOLL_* parser (common/hc_config.c): every type, range edges, malformed input,
 * the table itself, and hc_config_load with a real environment. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hc_config.h"
#include "hc_test.h"

extern char **environ;

/* A variable description of a given type, for parser tests independent of the table. */
static hc_var_desc var(enum hc_var_type type, const char *accepted)
{
    return (hc_var_desc){"HIERCOLL_UNIT", type, "", accepted, "unit test", 0};
}

/* 0 if text parses as v; on failure, err must name the variable and quote the value. */
static int parse(const hc_var_desc *v, const char *text, long long *out)
{
    char err[512] = "";
    hc_value val;
    int rc = hc_config_parse_value(v, text, &val, err, sizeof err);
    if (rc == 0) {
        if (out)
            *out = val.i;
        HC_CHECK_MSG(val.s == text, "value text not kept for '%s'", text);
        return 0;
    }
    HC_CHECK_MSG(strstr(err, v->name) != NULL, "error for '%s' does not name %s: %s", text,
                 v->name, err);
    char quoted[300];
    snprintf(quoted, sizeof quoted, "'%s'", text);
    HC_CHECK_MSG(strstr(err, quoted) != NULL, "error does not quote %s: %s", quoted, err);
    HC_CHECK_MSG(strchr(err, '\n') == NULL, "error is more than one line: %s", err);
    return -1;
}

HC_TEST(sizes)
{
    long long v = -1;
    HC_CHECK(hc_parse_size("0", &v) == 0 && v == 0);
    HC_CHECK(hc_parse_size("4096", &v) == 0 && v == 4096);
    HC_CHECK(hc_parse_size("64K", &v) == 0 && v == 65536);
    HC_CHECK(hc_parse_size("64k", &v) == 0 && v == 65536);
    HC_CHECK(hc_parse_size("4M", &v) == 0 && v == 4 << 20);
    HC_CHECK(hc_parse_size("4MiB", &v) == 0 && v == 4 << 20);
    HC_CHECK(hc_parse_size("4MB", &v) == 0 && v == 4 << 20);
    HC_CHECK(hc_parse_size("1G", &v) == 0 && v == 1LL << 30);
    HC_CHECK(hc_parse_size("2T", &v) == 0 && v == 2LL << 40);
    HC_CHECK(hc_parse_size("1.5K", &v) == 0 && v == 1536);
    static const char *bad[] = {"", "K", "-1", "-1K", "1.3", "4X", "4KK", "4Kb ", "4 K", "abc",
                                "1e30", "inf", "nan", "99999999999T", "4M junk", NULL};
    for (int i = 0; bad[i]; i++)
        HC_CHECK_MSG(hc_parse_size(bad[i], &v) == -1, "size '%s' accepted as %lld", bad[i], v);
    HC_CHECK(hc_parse_size(NULL, &v) == -1);
}

HC_TEST(dims)
{
    int d[16];
    HC_CHECK_EQ_INT(hc_parse_dims("auto", d, 16), 0);
    HC_CHECK_EQ_INT(hc_parse_dims("8", d, 16), 1);
    HC_CHECK_EQ_INT(d[0], 8);
    HC_CHECK_EQ_INT(hc_parse_dims("2x3X4", d, 16), 3);
    HC_CHECK(d[0] == 2 && d[1] == 3 && d[2] == 4);
    static const char *bad[] = {"", "x", "2x", "x2", "0", "2x0", "-2", "2x-3", "2*3", "2x 3",
                                " 2", "AUTO", "2xx3", "99999999999", NULL};
    for (int i = 0; bad[i]; i++)
        HC_CHECK_MSG(hc_parse_dims(bad[i], d, 16) == -1, "dims '%s' accepted", bad[i]);
    /* More dimensions than the caller has room for. */
    HC_CHECK_EQ_INT(hc_parse_dims("2x2x2", d, 2), -1);
    HC_CHECK_EQ_INT(hc_parse_dims(NULL, d, 16), -1);
}

HC_TEST(floats)
{
    double f[8];
    HC_CHECK_EQ_INT(hc_parse_floats("2e9", f, 8), 1);
    HC_CHECK_NEAR(f[0], 2e9, 0);
    HC_CHECK_EQ_INT(hc_parse_floats("2e9,6e9,8.5e9", f, 8), 3);
    HC_CHECK_NEAR(f[2], 8.5e9, 0);
    static const char *bad[] = {"", ",", "1,", ",1", "1,,2", "0", "-1", "1;2", "abc", "nan",
                                "1e999", "inf", "1,inf", "1 ,2", NULL};
    for (int i = 0; bad[i]; i++)
        HC_CHECK_MSG(hc_parse_floats(bad[i], f, 8) == -1, "floats '%s' accepted", bad[i]);
    HC_CHECK_EQ_INT(hc_parse_floats("1,2,3", f, 2), -1);
}

HC_TEST(ints_and_ranges)
{
    hc_var_desc v = var(HC_INT, "0..16");
    long long x = -1;
    HC_CHECK(parse(&v, "0", &x) == 0 && x == 0);
    HC_CHECK(parse(&v, "16", &x) == 0 && x == 16);
    static const char *bad[] = {"17", "-1", "1.0", "1e1", "0x3", "3 ", " 3", "+", "-",
                                "99999999999999999999", "-99999999999999999999", "abc", NULL};
    for (int i = 0; bad[i]; i++)
        HC_CHECK_MSG(parse(&v, bad[i], &x) == -1, "int '%s' accepted as %lld", bad[i], x);

    hc_var_desc s = var(HC_SIZE, "0..16M");
    HC_CHECK(parse(&s, "16M", &x) == 0 && x == 16 << 20);
    HC_CHECK(parse(&s, "16777217", &x) == -1);
    HC_CHECK(parse(&s, "1T", &x) == -1);

    /* Range edges of a negative minimum. */
    hc_var_desc n = var(HC_INT, "-5..5");
    HC_CHECK(parse(&n, "-5", &x) == 0 && x == -5);
    HC_CHECK(parse(&n, "-6", &x) == -1);
}

HC_TEST(enums_and_bools)
{
    hc_var_desc e = var(HC_ENUM, "auto|vendor|shm|shm-cma");
    long long x = -1;
    HC_CHECK(parse(&e, "auto", &x) == 0 && x == 0);
    HC_CHECK(parse(&e, "shm-cma", &x) == 0 && x == 3);
    HC_CHECK(parse(&e, "shm", &x) == 0 && x == 2);
    static const char *bad[] = {"", "sh", "shm-", "AUTO", "auto|vendor", "|", " auto", NULL};
    for (int i = 0; bad[i]; i++)
        HC_CHECK_MSG(parse(&e, bad[i], &x) == -1, "enum '%s' accepted as %lld", bad[i], x);
    HC_CHECK_EQ_INT(hc_config_enum_index(&e, "vendor"), 1);
    HC_CHECK_EQ_INT(hc_config_enum_index(&e, "vendo"), -1);

    hc_var_desc b = var(HC_BOOL, "on|off");
    static const char *on[] = {"on", "ON", "1", "yes", "true", "True"};
    static const char *off[] = {"off", "0", "no", "false", "FALSE"};
    for (int i = 0; i < 6; i++)
        HC_CHECK(parse(&b, on[i], &x) == 0 && x == 1);
    for (int i = 0; i < 5; i++)
        HC_CHECK(parse(&b, off[i], &x) == 0 && x == 0);
    HC_CHECK(parse(&b, "2", &x) == -1);
    HC_CHECK(parse(&b, "onn", &x) == -1);
    HC_CHECK(parse(&b, "", &x) == -1);
}

/* Every row of the table: a well-formed name, a default that parses, help text, and an
 * accepted range whose edges parse (a typo there would silently disable range checks). */
HC_TEST(table_rows)
{
    HC_CHECK(hc_var_count > 10);
    for (int i = 0; i < hc_var_count; i++) {
        const hc_var_desc *v = &hc_var_table[i];
        HC_CHECK_MSG(strncmp(v->name, "HIERCOLL_", 9) == 0 && strlen(v->name) > 9, "name %s",
                     v->name);
        for (const char *p = v->name; *p; p++)
            HC_CHECK_MSG((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_',
                         "name %s", v->name);
        HC_CHECK_MSG(v->help && strlen(v->help) > 10, "%s has no help", v->name);
        HC_CHECK_MSG(v->accepted && *v->accepted, "%s has no accepted values", v->name);
        HC_CHECK_MSG(hc_config_find(v->name) == v, "%s listed twice", v->name);
        char err[512] = "";
        hc_value val;
        HC_CHECK_MSG(hc_config_parse_value(v, v->def, &val, err, sizeof err) == 0,
                     "default of %s does not parse: %s", v->name, err);
        if (v->type == HC_INT || v->type == HC_SIZE) {
            const char *dots = strstr(v->accepted, "..");
            HC_CHECK_MSG(dots != NULL, "%s: range '%s' has no '..'", v->name, v->accepted);
            if (!dots)
                continue;
            char lo[64];
            snprintf(lo, sizeof lo, "%.*s", (int)(dots - v->accepted), v->accepted);
            /* Both edges accepted; just past them rejected. */
            HC_CHECK_MSG(hc_config_parse_value(v, lo, &val, err, sizeof err) == 0, "%s=%s: %s",
                         v->name, lo, err);
            HC_CHECK_MSG(hc_config_parse_value(v, dots + 2, &val, err, sizeof err) == 0,
                         "%s=%s: %s", v->name, dots + 2, err);
            long long hi = val.i;
            char past[64];
            snprintf(past, sizeof past, "%lld", hi + 1);
            HC_CHECK_MSG(hc_config_parse_value(v, past, &val, err, sizeof err) == -1,
                         "%s accepts %s beyond %s", v->name, past, v->accepted);
        }
        if (v->type == HC_ENUM) {
            HC_CHECK_MSG(hc_config_enum_index(v, v->def) >= 0, "%s default", v->name);
            HC_CHECK_MSG(strstr(v->accepted, "||") == NULL && v->accepted[0] != '|',
                         "%s: empty choice in %s", v->name, v->accepted);
        }
    }
}

/* hc_config_load reads the real environment: set, check, unset. */
static void clear_hiercoll_env(void)
{
    for (int i = 0; i < hc_var_count; i++)
        unsetenv(hc_var_table[i].name);
}

HC_TEST(load_defaults_and_values)
{
    clear_hiercoll_env();
    hc_config cfg;
    char err[512], warn[1024];
    memset(&cfg, 0xab, sizeof cfg);
    HC_CHECK_EQ_INT(hc_config_load(&cfg, environ, err, sizeof err, warn, sizeof warn), 0);
    HC_CHECK_EQ_STR(warn, "");
    HC_CHECK_EQ_INT(cfg.bcast.i, HC_BCAST_AUTO);
    HC_CHECK_EQ_INT(cfg.bcast.from_env, 0);
    HC_CHECK_EQ_INT(cfg.shm_limit.i, 1LL << 30);

    setenv("HIERCOLL_BCAST", "vendor", 1);
    setenv("HIERCOLL_SHM_LIMIT", "64M", 1);
    setenv("HIERCOLL_VERBOSE", "2", 1);
    HC_CHECK_EQ_INT(hc_config_load(&cfg, environ, err, sizeof err, warn, sizeof warn), 0);
    HC_CHECK_EQ_INT(cfg.bcast.i, HC_BCAST_VENDOR);
    HC_CHECK_EQ_INT(cfg.bcast.from_env, 1);
    HC_CHECK_EQ_INT(cfg.shm_limit.i, 64LL << 20);
    HC_CHECK_EQ_INT(cfg.verbose.i, 2);
    HC_CHECK_EQ_STR(cfg.verbose.s, "2");
    clear_hiercoll_env();
}

HC_TEST(load_rejects_bad_and_empty)
{
    hc_config cfg;
    char err[512], warn[1024];
    for (int i = 0; i < hc_var_count; i++) {
        const hc_var_desc *v = &hc_var_table[i];
        clear_hiercoll_env();
        setenv(v->name, "", 1);
        err[0] = 0;
        HC_CHECK_MSG(hc_config_load(&cfg, environ, err, sizeof err, warn, sizeof warn) == -1,
                     "%s='' accepted", v->name);
        HC_CHECK_MSG(strstr(err, v->name) && !strchr(err, '\n'), "%s: %s", v->name, err);
        if (v->type == HC_STRING)
            continue;
        setenv(v->name, "#bogus#", 1);
        err[0] = 0;
        HC_CHECK_MSG(hc_config_load(&cfg, environ, err, sizeof err, warn, sizeof warn) == -1,
                     "%s='#bogus#' accepted", v->name);
        HC_CHECK_MSG(strstr(err, v->name) && strstr(err, "'#bogus#'") && !strchr(err, '\n'),
                     "%s: %s", v->name, err);
    }
    clear_hiercoll_env();
}

HC_TEST(unknown_names_suggest)
{
    clear_hiercoll_env();
    hc_config cfg;
    char err[512], warn[1024];
    setenv("HIERCOLL_BCST", "shm", 1);
    setenv("HIERCOLL_ALLREDUCEE", "ring", 1);
    HC_CHECK_EQ_INT(hc_config_load(&cfg, environ, err, sizeof err, warn, sizeof warn), 0);
    HC_CHECK_MSG(strstr(warn, "HIERCOLL_BCST") && strstr(warn, "did you mean HIERCOLL_BCAST?"),
                 "%s", warn);
    HC_CHECK_MSG(strstr(warn, "did you mean HIERCOLL_ALLREDUCE?"), "%s", warn);
    int lines = 0;
    for (const char *p = warn; *p; p++)
        lines += *p == '\n';
    HC_CHECK_EQ_INT(lines, 2);
    unsetenv("HIERCOLL_BCST");
    unsetenv("HIERCOLL_ALLREDUCEE");

    /* A name longer than the buffers, and one without '=' in a hand-made environment. */
    char longname[300];
    memset(longname, 'X', sizeof longname);
    memcpy(longname, "HIERCOLL_", 9);
    strcpy(longname + 250, "=1");
    char *envp[] = {longname, "HIERCOLL_NOEQUALS", NULL};
    HC_CHECK_EQ_INT(hc_config_load(&cfg, envp, err, sizeof err, warn, sizeof warn), 0);
    HC_CHECK_MSG(strstr(warn, "HIERCOLL_NOEQUALS"), "%s", warn);

    /* Many unknown names: the warning buffer is truncated, never overrun. */
    char *many[64];
    char names[63][32];
    for (int i = 0; i < 63; i++) {
        snprintf(names[i], sizeof names[i], "HIERCOLL_UNKNOWN_%02d=1", i);
        many[i] = names[i];
    }
    many[63] = NULL;
    char small[100];
    HC_CHECK_EQ_INT(hc_config_load(&cfg, many, err, sizeof err, small, sizeof small), 0);
    HC_CHECK(strlen(small) < sizeof small);
}

int main(void) { return hc_test_main(); }
