/*
 * libFuzzer target for the configuration parser: any input must parse or
 * fail cleanly, without crashing or leaking; a configuration that parses
 * must print canonically, and that print must parse back to the same print.
 * Include points nowhere (the name's directory does not exist).  The same
 * input is also read as a gres.conf.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/gresconf.h"
#include "common/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_NAME "/nonexistent-sluice-fuzz/fuzz.conf"

static char *fuzz_print(const struct conf *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);

    if (fp == NULL)
        abort();
    conf_print(c, fp);
    fclose(fp);
    return buf;
}

static void fuzz_round_trip(const struct conf *c)
{
    struct conf_diag d;
    struct err e;
    char *first = fuzz_print(c), *second;
    struct conf *again;

    conf_diag_init(&d);
    again = conf_parse_string(first, FUZZ_NAME, &d, &e);
    if (again == NULL) {
        fprintf(stderr, "canonical print does not parse: %s\n%s", e.text,
                first);
        abort();
    }
    second = fuzz_print(again);
    if (strcmp(first, second) != 0) {
        fprintf(stderr, "canonical print changed:\n%s---\n%s", first, second);
        abort();
    }
    free(first);
    free(second);
    conf_destroy(again);
    conf_diag_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = xstrndup((const char *)data, size);
    struct conf_diag d;
    struct err e;
    struct conf *c;
    struct gresconf *g;

    conf_diag_init(&d);
    c = conf_parse_string(text, FUZZ_NAME, &d, &e);
    if (c != NULL) {
        json_t *o = conf_to_json(c);
        json_decref(o);
        fuzz_round_trip(c);
        conf_destroy(c);
    }
    conf_diag_free(&d);
    g = gresconf_parse_string(text, FUZZ_NAME, "node01", NULL, &e);
    gresconf_destroy(g);
    free(text);
    return 0;
}
