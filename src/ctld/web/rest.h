/*
 * The route tables the HTTP server (web.h) serves, one per file, each
 * ended by an entry with pattern NULL: slurmrestd's API (docs/rest.md) in
 * rest.c (/slurm/v0.0.38 queries and /openapi/v3), rest_job.c
 * (submitting, updating and cancelling jobs) and rest_db.c
 * (/slurmdb/v0.0.38), Sluice's own API in rest_sluice.c (/sluice/v1,
 * docs/rest-sluice.md), metrics.c (/metrics) and the dashboard's files in
 * static.c.  Every API request is served through web_req_rpc as the
 * token's user; slurmrestd's replies are converted to Slurm's objects
 * (common/slurmjson.h).  Below the tables, what the three REST files
 * share.
 */
#ifndef SLUICE_CTLD_REST_H
#define SLUICE_CTLD_REST_H

#include <stdint.h>

#include <jansson.h>

#include "common/slurmjson.h"
#include "ctld/web/web.h"

extern const struct web_route rest_routes[];
extern const struct web_route rest_job_routes[];
extern const struct web_route rest_db_routes[];
extern const struct web_route sluice_routes[];
extern const struct web_route static_routes[];
extern const struct web_route metrics_routes[];

/* rest_status: the HTTP status of a request's error code: web.h's, but a
 * conflict with the job's state (EALREADY, EBUSY, EEXIST) is 409. */
int rest_status(int code);

/* rest_fail: answer the error (code, e) with its status. */
void rest_fail(struct web_req *wr, int code, const struct err *e);

/* rest_call: web_req_rpc (body stolen); on failure the request is
 * answered with the error and -1 returned. */
int rest_call(struct web_req *wr, uint16_t type, json_t *body, json_t **reply);

/* rest_each: serve a paged request (JOB_QUERY, JOB_ACCT: body borrowed,
 * asked again with after_job_id until next_after_job_id is null) and hand
 * every element of reply[key] to fn.  -1 when a page failed (answered). */
int rest_each(struct web_req *wr, uint16_t type, json_t *body, const char *key,
              void (*fn)(json_t *item, void *arg), void *arg);

/*
 * rest_pages: answer a paged request (JOB_QUERY, JOB_ACCT: body stolen,
 * asked again with after_job_id until next_after_job_id is null) one page
 * of at most limit jobs per turn of the loop (web_reply_stream), so that
 * 10,000 jobs never hold the controller for more than one page.  page()
 * gets each page's reply[key] (borrowed) and returns a new array of what
 * to write (or NULL with errno and e: the request fails).  With head set
 * (rest_head) the answer is streamed: head, the values page() returns
 * joined by commas (compact JSON), then "]}"; end is not called.  Without
 * head nothing is written and end() answers when the pages are done (page
 * then gathers into arg and returns an empty array).  done(arg) frees arg
 * when it is all over (may be NULL).  An RPC error before the first byte
 * is answered as rest_fail does; after it, the body is cut short.
 */
struct rest_pages {
    uint16_t type;
    json_t *body;
    const char *key;
    json_int_t limit;
    char *head; /* owned */
    json_t *(*page)(struct web_req *wr, json_t *items, void *arg,
                    struct err *e);
    void (*end)(struct web_req *wr, void *arg);
    void *arg;
    void (*done)(void *arg);
};
/* The jobs a page of a REST answer holds, so that a page (asked, converted
 * and written) takes some 5 ms of the loop: JOB_QUERY's and JOB_ACCT's
 * (whose jobs bring their steps and events) (bench/RESULTS.md). */
#define REST_PAGE_JOBS 50
#define REST_PAGE_ACCT 25
void rest_pages(struct web_req *wr, const struct rest_pages *p);

/* rest_head: the text of obj (borrowed; compact) up to the opening of
 * its last member key, an array to come: {"meta":...,"jobs":[ (newly
 * allocated; obj itself does not hold key). */
char *rest_head(json_t *obj, const char *key);

/* rest_check_query: answer 400 and return -1 when the query has a key not
 * in known (ended by NULL), naming it. */
int rest_check_query(struct web_req *wr, const char *const *known);

/* rest_job_ref: the path's {job_id} ("42" or an array task "42_7") as a
 * job reference of the job messages (an integer, or the "N_T" string);
 * answered 400 and NULL when it is neither.  New reference. */
json_t *rest_job_ref(struct web_req *wr);

/* rest_ctx: what the converters need (ClusterName, the request's time). */
struct slurmjson_ctx rest_ctx(const struct web_req *wr);

/* rest_ok: {"meta", "errors": [], "warnings": []} (plugin's meta). */
json_t *rest_ok(enum slurmjson_plugin plugin);

#endif
