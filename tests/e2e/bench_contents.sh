# The bench's partial rewrites (buffers stride and block), checked without MPI against a
# simulation: tools/bench/contents.h compiled alone, a buffer of content ids rewritten call
# by call as the root rewrites it, and after every call rewrite_content() must name each
# word's id; every call rewrites some words (one in 64, or one 16th in one piece), every word
# within one round of classes; a word left stale is seen.
. tests/e2e/cli_common.bash
cat >"$TMP/t.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "contents.h"
static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; if (fails < 20) { printf(__VA_ARGS__); putchar('\n'); } } } while (0)
int main(void)
{
    long long sizes[] = {0, 1, 7, 8, 9, 100, 504, 512, 513, 4096, 5000, 65536, 65539, 1 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (int block = 0; block < 2; block++) {
            long long bytes = sizes[i];
            rewrite r = rewrite_of(bytes, block);
            CHECK(r.words == (bytes + 7) / 8, "%lld: %lld words", bytes, r.words);
            uint64_t *ids = calloc((size_t)r.words + 1, sizeof *ids), base = 77;
            long long first = 1000 + 3 * (long long)i, *last = calloc((size_t)r.words + 1, sizeof *last);
            for (long long w = 0; w < r.words; w++)
                ids[w] = base, last[w] = -1;
            for (long long k = first; k < first + 3 * r.classes + 5; k++) {
                long long w, step, end, n = 0, lo = -1, hi = -1;
                for (rewrite_words(&r, k, &w, &step, &end); w < end; w += step, n++) {
                    ids[w] = rewrite_id(k), last[w] = k;
                    lo = lo < 0 ? w : lo, hi = w;
                }
                if (r.words) {
                    CHECK(n > 0, "%lld %s call %lld rewrote nothing", bytes, block ? "block" : "stride", k);
                    if (block)
                        CHECK(hi - lo + 1 == n && n <= (r.words + 15) / 16,
                              "%lld block: call %lld rewrote %lld words in [%lld, %lld]", bytes, k, n, lo, hi);
                    else
                        CHECK(n == (r.words - (k % r.classes) + r.classes - 1) / r.classes && r.classes <= 64,
                              "%lld stride: call %lld rewrote %lld words", bytes, k, n);
                }
                for (long long x = 0; x < r.words; x++) {
                    CHECK(rewrite_content(&r, x, k, first, base) == ids[x],
                          "%lld %s: word %lld after call %lld (block from %lld)", bytes, block ? "block" : "stride", x, k, first);
                    CHECK(rewrite_last(&r, x, k, first) == last[x], "%lld: last of word %lld", bytes, x);
                    if (k >= first + r.classes - 1)
                        CHECK(last[x] >= 0, "%lld: word %lld never rewritten in %lld calls", bytes, x, r.classes);
                }
            }
            /* a word the broadcast did not refresh: its expected id differs */
            if (r.words > 1) {
                long long k = first + 3 * r.classes + 4, w = (k - 1) % r.classes;
                if (block)
                    w = ((k - 1) % r.classes) * r.block;
                CHECK(rewrite_content(&r, w, k - 1, first, base) != rewrite_content(&r, w, k - 1 - r.classes, first, base),
                      "%lld: a stale word looks fresh", bytes);
            }
            free(ids);
            free(last);
        }
    printf("%d failed\n", fails);
    return fails != 0;
}
C
cc -std=c11 -Wall -Wextra -O1 -I tools/bench -o "$TMP/t" "$TMP/t.c" || fail "contents.h does not compile alone"
"$TMP/t" >"$TMP/out" || { cat "$TMP/out"; fail "contents.h"; }
echo ok
