/*
 * libFuzzer target for slurmjson.h: any JSON object (as a controller could
 * send it, keys of any type) goes through every converter, and any text
 * through the TRES list parser; the results must be objects and lists.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/slurmjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT 8192

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct slurmjson_ctx ctx = {"c", 1000};
    json_t *o, *r[4], *l;
    char *s;

    if (size > FUZZ_MAX_INPUT)
        return 0;
    s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0';
    l = slurmjson_tres_list(s);
    if (!json_is_array(l))
        abort();
    json_decref(l);
    o = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
    if (json_is_object(o)) {
        r[0] = slurmjson_job(o, &ctx);
        r[1] = slurmjson_node(o, &ctx);
        r[2] = slurmjson_partition(o, &ctx);
        r[3] = slurmjson_acct_job(o, &ctx);
        for (int i = 0; i < 4; i++) {
            if (!json_is_object(r[i]))
                abort();
            json_decref(r[i]);
        }
    }
    json_decref(o);
    free(s);
    return 0;
}
