/* Minimal unit-test harness: no MPI, no framework dependency.
 *
 *   HC_TEST(name) { HC_CHECK(x == 1); HC_CHECK_EQ_INT(a, b); }
 *   int main(void) { return hc_test_main(); }   // runs every HC_TEST in the file
 *
 * Each test prints "ok" or "FAIL" with the failing check; the binary exits 1 if any
 * check failed, so the runner (tests/run.sh) counts the binary as failed. */
#ifndef HC_TEST_H
#define HC_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*hc_test_fn)(void);
struct hc_test_entry { const char *name; hc_test_fn fn; };

#define HC_TEST_MAX 256
static struct hc_test_entry hc_tests[HC_TEST_MAX];
static int hc_test_count;
static int hc_test_failed_checks;
static int hc_test_current_failed;

#define HC_TEST(name)                                                            \
    static void name(void);                                                      \
    __attribute__((constructor)) static void hc_register_##name(void)            \
    {                                                                            \
        if (hc_test_count < HC_TEST_MAX)                                         \
            hc_tests[hc_test_count++] = (struct hc_test_entry){#name, name};     \
    }                                                                            \
    static void name(void)

#define HC_CHECK_MSG(cond, ...)                                                  \
    do {                                                                         \
        if (!(cond)) {                                                           \
            hc_test_failed_checks++;                                             \
            hc_test_current_failed = 1;                                          \
            fprintf(stderr, "  %s:%d: check failed: %s: ", __FILE__, __LINE__,   \
                    #cond);                                                      \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
        }                                                                        \
    } while (0)

#define HC_CHECK(cond) HC_CHECK_MSG(cond, "%s", "")
#define HC_CHECK_EQ_INT(a, b)                                                    \
    HC_CHECK_MSG((long long)(a) == (long long)(b), "%lld != %lld",               \
                 (long long)(a), (long long)(b))
#define HC_CHECK_EQ_STR(a, b)                                                    \
    HC_CHECK_MSG(strcmp((a), (b)) == 0, "\"%s\" != \"%s\"", (a), (b))
#define HC_CHECK_NEAR(a, b, tol)                                                 \
    HC_CHECK_MSG(((a) - (b)) <= (tol) && ((b) - (a)) <= (tol),                   \
                 "%.17g != %.17g (tol %g)", (double)(a), (double)(b),            \
                 (double)(tol))

static inline int hc_test_main(void)
{
    int failed_tests = 0;
    for (int i = 0; i < hc_test_count; i++) {
        hc_test_current_failed = 0;
        hc_tests[i].fn();
        printf("%-4s %s\n", hc_test_current_failed ? "FAIL" : "ok", hc_tests[i].name);
        failed_tests += hc_test_current_failed;
    }
    printf("%d passed, %d failed\n", hc_test_count - failed_tests, failed_tests);
    return failed_tests ? 1 : 0;
}

#endif
