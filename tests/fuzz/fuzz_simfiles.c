/*
 * libFuzzer target for the simulator's other readers: the first byte
 * picks one (the Alibaba pod list, its node list made into a
 * configuration that must then parse, the QOS and association file, the
 * accounting history, --map); whatever is refused names the file, and
 * whatever is read is used without crashing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "sim/acct.h"
#include "sim/alibaba.h"
#include "sim/history.h"
#include "sim/map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT 8192

static void named(const struct err *e, const char *name)
{
    if (strstr(e->text, name) == NULL)
        abort();
}

static void pods(const char *s, size_t n)
{
    struct sim_alibaba a;
    struct err e;

    if (sim_alibaba_parse(s, n, "p.csv", &a, &e) < 0)
        named(&e, "p.csv:");
    sim_alibaba_free(&a);
}

static void nodes(const char *s, size_t n)
{
    struct conf *c;
    struct err e;
    char *text = sim_alibaba_conf(s, n, "n.csv", &e);

    if (text == NULL) {
        named(&e, "n.csv:");
        return;
    }
    /* a configuration made from a node list parses (or names a line) */
    c = conf_parse_string(text, "n.conf", NULL, &e);
    if (c == NULL)
        named(&e, "n.conf");
    conf_destroy(c);
    free(text);
}

static void acct(const char *s, size_t n)
{
    struct sim_acct a;
    struct err e;

    sim_acct_init(&a);
    if (sim_acct_load(&a, s, n, "q.txt", &e) < 0)
        named(&e, "q.txt:");
    for (size_t i = 0; i < a.nassoc; i++) {
        size_t k;
        (void)sim_acct_qos_list(&a, i, &k);
        (void)sim_acct_default_qos(&a, i);
        (void)sim_acct_shares(&a, i);
    }
    sim_acct_free(&a);
}

static void history(const char *s, size_t n)
{
    struct sim_trace t;
    struct err e;

    sim_trace_init(&t, "h.json");
    if (sim_history_parse(s, n, "h.json", &t, &e) < 0)
        named(&e, "h.json");
    sim_trace_free(&t);
}

static void map(const char *s)
{
    struct sim_map m = {0};
    struct err e;

    if (sim_map_parse(s, &m, &e) < 0)
        named(&e, "--map");
    (void)sim_map_find(&m, "0");
    sim_map_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s;

    if (size < 1 || size > FUZZ_MAX_INPUT)
        return 0;
    s = malloc(size);
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';
    switch (data[0] % 5) {
    case 0:
        pods(s, size - 1);
        break;
    case 1:
        nodes(s, size - 1);
        break;
    case 2:
        acct(s, size - 1);
        break;
    case 3:
        history(s, size - 1);
        break;
    default:
        map(s);
        break;
    }
    free(s);
    return 0;
}
