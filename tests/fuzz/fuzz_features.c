/*
 * libFuzzer target for -C feature expressions: whatever parses must
 * match node lists and choose node sets without crashing, and a chosen
 * set never repeats a node.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sched/features.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT 2048

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const feats[] = {"a,b", "a",       "b,c",
                                        "",    "c,rack1", "rack2,a"};
    struct features_req *r;
    struct err e;
    size_t out[6];
    char *expr;

    if (size > FUZZ_MAX_INPUT)
        return 0;
    expr = malloc(size + 1);
    memcpy(expr, data, size);
    expr[size] = '\0';
    r = features_parse(expr, &e);
    free(expr);
    if (r == NULL)
        return 0;
    for (size_t i = 0; i < 6; i++)
        (void)features_node_ok(r, feats[i]);
    for (uint32_t want = 1; want <= 6; want++) {
        if (!features_pick(r, feats, 6, want, out))
            continue;
        for (uint32_t a = 0; a < want; a++)
            for (uint32_t b = a + 1; b < want; b++)
                if (out[a] == out[b] || out[a] >= 6)
                    abort();
    }
    features_free(r);
    return 0;
}
