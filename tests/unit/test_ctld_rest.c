/*
 * The OpenAPI document sluicectld serves (web/openapi/v3.json, embedded)
 * against the REST routes it serves: every route of rest_routes,
 * rest_job_routes and rest_db_routes is described under its method, and
 * every operation the document describes is served.  Responses are
 * checked against the document by tests/e2e/t30_rest.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "ctld/web/assets.h"
#include "ctld/web/rest.h"

static json_t *load_doc(void)
{
    const struct web_asset *a = web_asset_find("openapi/v3.json");
    json_error_t je;
    json_t *doc;

    assert_non_null(a);
    doc = json_loadb((const char *)a->data, a->len, 0, &je);
    if (doc == NULL)
        fail_msg("openapi/v3.json: line %d: %s", je.line, je.text);
    return doc;
}

/* A path without its trailing '/' (the router takes both). */
static void trim(char *p)
{
    size_t n = strlen(p);

    while (n > 1 && p[n - 1] == '/')
        p[--n] = '\0';
}

/* The document's path item for a route pattern, or NULL. */
static json_t *item_of(json_t *paths, const char *pattern)
{
    const char *k;
    json_t *v;
    char a[256], b[256];

    snprintf(a, sizeof(a), "%s", pattern);
    trim(a);
    json_object_foreach(paths, k, v)
    {
        snprintf(b, sizeof(b), "%s", k);
        trim(b);
        if (strcmp(a, b) == 0)
            return v;
    }
    return NULL;
}

static void lower(const char *s, char *out, size_t len)
{
    size_t i;

    for (i = 0; s[i] != '\0' && i + 1 < len; i++)
        out[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    out[i] = '\0';
}

static const struct web_route *const tables[] = {rest_routes, rest_job_routes,
                                                 rest_db_routes};

static void test_every_route_is_described(void **state)
{
    json_t *doc = load_doc(), *paths = json_object_get(doc, "paths");
    size_t n = 0;
    char m[16];

    (void)state;
    for (size_t t = 0; t < sizeof(tables) / sizeof(*tables); t++)
        for (const struct web_route *r = tables[t]; r->pattern != NULL; r++) {
            json_t *item = item_of(paths, r->pattern), *op = NULL;
            lower(r->method, m, sizeof(m));
            if (item == NULL || (op = json_object_get(item, m)) == NULL)
                fail_msg("%s %s is served but not in openapi/v3.json",
                         r->method, r->pattern);
            if (json_object_get(json_object_get(op, "responses"), "200") ==
                NULL)
                fail_msg("%s %s: no 200 response described", r->method,
                         r->pattern);
            /* a public route says so (security: []), the others do not */
            if ((r->flags & WEB_ROUTE_PUBLIC) !=
                (json_is_array(json_object_get(op, "security")) &&
                         json_array_size(json_object_get(op, "security")) == 0
                     ? WEB_ROUTE_PUBLIC
                     : 0u))
                fail_msg("%s %s: public in one and not in the other", r->method,
                         r->pattern);
            n++;
        }
    assert_true(n >= 20);
    json_decref(doc);
}

/* Whether some route serves method on path (a document path). */
static bool served(const char *method, const char *path)
{
    char a[256], b[256], m[16];

    snprintf(a, sizeof(a), "%s", path);
    trim(a);
    for (size_t t = 0; t < sizeof(tables) / sizeof(*tables); t++)
        for (const struct web_route *r = tables[t]; r->pattern != NULL; r++) {
            snprintf(b, sizeof(b), "%s", r->pattern);
            trim(b);
            lower(r->method, m, sizeof(m));
            if (strcmp(a, b) == 0 && strcmp(m, method) == 0)
                return true;
        }
    return false;
}

static void test_every_operation_is_served(void **state)
{
    json_t *doc = load_doc(), *item, *v;
    const char *path, *method;

    (void)state;
    json_object_foreach(json_object_get(doc, "paths"), path, item)
    {
        json_object_foreach(item, method, v)
        {
            if (strcmp(method, "parameters") == 0)
                continue;
            if (!served(method, path))
                fail_msg("openapi/v3.json describes %s %s, which is not "
                         "served",
                         method, path);
        }
    }
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_route_is_described),
        cmocka_unit_test(test_every_operation_is_served),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
