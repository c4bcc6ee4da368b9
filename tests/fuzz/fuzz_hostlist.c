/*
 * libFuzzer target for hostlist expressions: whatever expands must survive
 * sort_uniq, compress and a second expansion unchanged.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT 4096

static void check_same(const struct hostlist *a, const struct hostlist *b)
{
    if (hostlist_count(a) != hostlist_count(b))
        abort();
    for (size_t i = 0; i < hostlist_count(a); i++)
        if (strcmp(hostlist_nth(a, i), hostlist_nth(b, i)) != 0)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hostlist *hl, *back;
    struct err e;
    char *expr, *c;

    if (size > FUZZ_MAX_INPUT)
        return 0;
    expr = malloc(size + 1);
    memcpy(expr, data, size);
    expr[size] = '\0';
    hl = hostlist_expand(expr, &e);
    free(expr);
    if (hl == NULL)
        return 0;
    hostlist_sort_uniq(hl);
    c = hostlist_compress(hl);
    back = hostlist_expand(c, &e);
    if (back == NULL)
        abort();
    check_same(hl, back);
    free(c);
    hostlist_destroy(back);
    hostlist_destroy(hl);
    return 0;
}
