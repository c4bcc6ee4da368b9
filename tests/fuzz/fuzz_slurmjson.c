/*
 * libFuzzer target for slurmjson.h: any JSON object (as a controller could
 * send it, keys of any type) goes through every converter, and any text
 * through the TRES list and signal parsers; the results must be objects
 * and lists.  The same object is also a REST request: a job submission
 * and a job update, taken or refused with a message, never a crash.
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
    struct slurmjson_jobcount c = {0};
    json_t *o, *r[10], *l, *set;
    struct err e;
    int hold;
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
    if (slurmjson_signal_parse(s) > 64)
        abort();
    o = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
    if (json_is_object(o)) {
        r[0] = slurmjson_job(o, &ctx);
        r[1] = slurmjson_node(o, &ctx);
        r[2] = slurmjson_partition(o, &ctx);
        r[3] = slurmjson_acct_job(o, &ctx);
        r[4] = slurmjson_reservation(o);
        slurmjson_diag_count(&c, o, 100);
        r[5] = slurmjson_diag(o, &c);
        r[6] = slurmjson_qos(o);
        r[7] = slurmjson_assoc(o, json_object_get(o, "all"));
        r[8] = slurmjson_user(o, json_object_get(o, "all"));
        r[9] = slurmjson_account(o, json_object_get(o, "all"));
        for (int i = 0; i < 10; i++) {
            if (!json_is_object(r[i]))
                abort();
            json_decref(r[i]);
        }
        l = json_array();
        set = slurmjson_job_submission(o, l, &e);
        if (set == NULL ? e.text[0] == '\0' : !json_is_object(set))
            abort();
        json_decref(set);
        json_decref(l);
        if (slurmjson_job_update(o, &set, &hold, &e) == 0) {
            if (!json_is_object(set) || hold < -1 || hold > 1)
                abort();
            json_decref(set);
        } else if (set != NULL || e.text[0] == '\0') {
            abort();
        }
    }
    json_decref(o);
    free(s);
    return 0;
}
