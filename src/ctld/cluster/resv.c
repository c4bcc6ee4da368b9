/*
 * The reservation table (resv.h): checked into a temporary, swapped in
 * whole, one JSON record per reservation in the database, and the pure
 * node rule the scheduler asks of it for every pending job.
 */
#include "ctld/cluster/resv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/core/loop.h"
#include "ctld/core/persist.h"

/* A Duration of UNLIMITED ends a year later, as Slurm's does. */
#define RESV_UNLIMITED_S (365 * 86400)
#define RESV_MAX_NAME 256
#define RESV_MAX_LIST 4096

struct resvs {
    const struct conf *conf; /* borrowed (resvs_create) */
    struct persist *persist;
    struct loop *loop;
    struct resv **v;
    size_t n;
};

static const struct {
    unsigned flag;
    const char *name;
} flag_names[] = {
    {RESV_MAINT, "MAINT"},     {RESV_IGNORE_JOBS, "IGNORE_JOBS"},
    {RESV_OVERLAP, "OVERLAP"}, {RESV_DAILY, "DAILY"},
    {RESV_WEEKLY, "WEEKLY"},   {RESV_SPEC_NODES, "SPEC_NODES"},
};
#define N_FLAGS (sizeof(flag_names) / sizeof(flag_names[0]))

const char *resv_flags_name(unsigned flags, char *buf, size_t len)
{
    size_t off = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < N_FLAGS; i++) {
        if (!(flags & flag_names[i].flag))
            continue;
        int k = snprintf(buf + off, off < len ? len - off : 0, "%s%s",
                         off ? "," : "", flag_names[i].name);
        if (k > 0)
            off += (size_t)k;
    }
    return buf;
}

int resv_flags_parse(const char *s, unsigned *out, struct err *e)
{
    char *copy = xstrdup(s), *save = NULL;
    unsigned f = 0;

    for (char *w = strtok_r(copy, ",", &save); w != NULL;
         w = strtok_r(NULL, ",", &save)) {
        size_t i;
        for (i = 0; i < N_FLAGS; i++)
            if (strcasecmp(w, flag_names[i].name) == 0)
                break;
        if (i == N_FLAGS) {
            err_inval(e,
                      "Flags: %.64s is not supported here (MAINT, "
                      "IGNORE_JOBS, OVERLAP, DAILY, WEEKLY, SPEC_NODES)",
                      w);
            free(copy);
            return -1;
        }
        f |= flag_names[i].flag;
    }
    free(copy);
    if ((f & RESV_DAILY) && (f & RESV_WEEKLY))
        return err_inval(e, "Flags: DAILY and WEEKLY exclude each other");
    *out = f;
    return 0;
}

static void resv_free(struct resv *r)
{
    if (r == NULL)
        return;
    free(r->name);
    free(r->node_idx);
    free(r->partition);
    free(r->users);
    free(r->accounts);
    free(r);
}

static struct resv *resv_copy(const struct resv *r)
{
    struct resv *c = xcalloc(1, sizeof(*c));

    *c = *r;
    c->name = r->name ? xstrdup(r->name) : NULL;
    c->node_idx = xcalloc(r->n_nodes ? r->n_nodes : 1, sizeof(size_t));
    memcpy(c->node_idx, r->node_idx, r->n_nodes * sizeof(size_t));
    c->partition = r->partition ? xstrdup(r->partition) : NULL;
    c->users = r->users ? xstrdup(r->users) : NULL;
    c->accounts = r->accounts ? xstrdup(r->accounts) : NULL;
    return c;
}

bool resv_active(const struct resv *r, time_t now)
{
    return r->start <= now && now < r->end;
}

bool resv_has_node(const struct resv *r, size_t node)
{
    for (size_t i = 0; i < r->n_nodes; i++)
        if (r->node_idx[i] == node)
            return true;
    return false;
}

size_t resvs_count(const struct resvs *rs)
{
    return rs ? rs->n : 0;
}

const struct resv *resvs_get(const struct resvs *rs, size_t i)
{
    ASSERT(i < rs->n);
    return rs->v[i];
}

static size_t find_idx(const struct resvs *rs, const char *name)
{
    for (size_t i = 0; rs != NULL && name != NULL && i < rs->n; i++)
        if (strcmp(rs->v[i]->name, name) == 0)
            return i;
    return SIZE_MAX;
}

const struct resv *resvs_find(const struct resvs *rs, const char *name)
{
    size_t i = find_idx(rs, name);

    return i == SIZE_MAX ? NULL : rs->v[i];
}

/* ---- reading a spec ----------------------------------------------------- */

static int get_epoch(json_t *v, const char *key, time_t *out, struct err *e)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) > (INT64_C(1) << 40))
        return err_inval(e, "%s: expected a time (seconds since the epoch)",
                         key);
    *out = (time_t)json_integer_value(v);
    return 0;
}

/* Nodes=: a host list of configured nodes, or ALL, into r. */
static int get_nodes(const struct conf *conf, const char *s, struct resv *r,
                     struct err *e)
{
    bool *in = xcalloc(conf->n_nodes ? conf->n_nodes : 1, sizeof(*in));
    struct hostlist *hl = NULL;
    int rc = -1;

    if (strcasecmp(s, "ALL") == 0) {
        for (size_t i = 0; i < conf->n_nodes; i++)
            in[i] = true;
    } else {
        if ((hl = hostlist_expand(s, e)) == NULL) {
            errno = EINVAL;
            err_prefix(e, "Nodes");
            goto out;
        }
        for (size_t i = 0; i < hostlist_count(hl); i++) {
            const struct conf_node *n =
                conf_node_find(conf, hostlist_nth(hl, i));
            if (n == NULL) {
                err_inval(e, "Nodes: node %s is not configured",
                          hostlist_nth(hl, i));
                goto out;
            }
            in[n - conf->nodes] = true;
        }
    }
    free(r->node_idx);
    r->node_idx = xcalloc(conf->n_nodes ? conf->n_nodes : 1, sizeof(size_t));
    r->n_nodes = 0;
    for (size_t i = 0; i < conf->n_nodes; i++)
        if (in[i])
            r->node_idx[r->n_nodes++] = i;
    rc = r->n_nodes > 0 ? 0 : err_inval(e, "Nodes: no node given");
out:
    hostlist_destroy(hl);
    free(in);
    return rc;
}

/* Users=/Accounts=: names, all with '-' (all but these) or none. */
static int get_list(json_t *v, const char *key, char **out, struct err *e)
{
    const char *s = json_string_value(v);
    size_t neg = 0, n = 0;
    char *copy, *save = NULL;

    if (v == NULL)
        return 0;
    if (json_is_null(v) || (s != NULL && *s == '\0')) {
        free(*out);
        *out = NULL;
        return 0;
    }
    if (s == NULL || strlen(s) > RESV_MAX_LIST)
        return err_inval(e, "%s: expected a comma-separated list of names",
                         key);
    copy = xstrdup(s);
    for (char *w = strtok_r(copy, ",", &save); w != NULL;
         w = strtok_r(NULL, ",", &save)) {
        n++;
        if (w[0] == '-')
            neg++;
        if (w[w[0] == '-'] == '\0' || strpbrk(w, " \t\n=") != NULL) {
            free(copy);
            return err_inval(e, "%s: \"%.64s\" is not a name", key, w);
        }
    }
    free(copy);
    if (n == 0)
        return err_inval(e, "%s: no name given", key);
    if (neg != 0 && neg != n)
        return err_inval(e,
                         "%s: names to exclude (-NAME) and to include cannot "
                         "be mixed",
                         key);
    free(*out);
    *out = xstrdup(s);
    return 0;
}

/* Start, end and duration of spec over r's (end moves with a new start
 * when only the start is given, keeping the duration). */
static int get_times(json_t *spec, struct resv *r, bool fresh, time_t now,
                     struct err *e)
{
    json_t *st = json_object_get(spec, "start_time");
    json_t *en = json_object_get(spec, "end_time");
    json_t *du = json_object_get(spec, "duration_s");
    int64_t dur = r->end - r->start;

    if (st != NULL && get_epoch(st, "StartTime", &r->start, e) < 0)
        return -1;
    if (fresh && st == NULL)
        r->start = now;
    if (r->start < now && (fresh || st != NULL))
        r->start = now; /* "now" as the CLI read it, or a moment ago */
    if (en != NULL && du != NULL)
        return err_inval(e, "give EndTime or Duration, not both");
    if (en != NULL) {
        if (get_epoch(en, "EndTime", &r->end, e) < 0)
            return -1;
    } else if (du != NULL) {
        if (!json_is_integer(du) || json_integer_value(du) < -1 ||
            json_integer_value(du) > INT64_C(100) * 365 * 86400)
            return err_inval(e, "Duration: expected seconds (or -1: "
                                "UNLIMITED)");
        dur = json_integer_value(du);
        r->end = r->start + (dur < 0 ? RESV_UNLIMITED_S : dur);
    } else if (fresh) {
        return err_inval(e, "EndTime or Duration must be given");
    } else {
        r->end = r->start + dur;
    }
    if (r->end <= r->start)
        return err_inval(e, "Invalid time specification: EndTime is not "
                            "after StartTime");
    return 0;
}

static bool resv_overlaps(const struct resv *a, const struct resv *b)
{
    if (a->start >= b->end || b->start >= a->end)
        return false;
    for (size_t i = 0; i < a->n_nodes; i++)
        if (resv_has_node(b, a->node_idx[i]))
            return true;
    return false;
}

/* Node i may go into r: no other reservation's (unless OVERLAP) at r's
 * time, and no job still runs there at r's start (unless IGNORE_JOBS). */
static bool node_free(const struct resvs *rs, const struct resv *r, size_t self,
                      size_t node, const struct resv_busy *busy)
{
    if (!(r->flags & RESV_OVERLAP)) {
        for (size_t k = 0; k < rs->n; k++) {
            const struct resv *o = rs->v[k];
            if (k != self && !(o->flags & RESV_OVERLAP) && r->start < o->end &&
                o->start < r->end && resv_has_node(o, node))
                return false;
        }
    }
    return (r->flags & RESV_IGNORE_JOBS) || busy == NULL ||
           busy->busy == NULL ||
           !busy->busy(busy->arg, node, r->start,
                       self == SIZE_MAX ? NULL : r->name);
}

/* NodeCnt=N: the first N free nodes of the partition (or of all). */
static int pick_nodes(const struct resvs *rs, struct resv *r, uint32_t count,
                      const struct resv_busy *busy, struct err *e)
{
    const struct conf *conf = rs->conf;
    const struct conf_part *p =
        r->partition ? conf_part_find(conf, r->partition) : NULL;
    size_t n = p ? p->n_nodes : conf->n_nodes;

    free(r->node_idx);
    r->node_idx = xcalloc(count ? count : 1, sizeof(size_t));
    r->n_nodes = 0;
    for (size_t k = 0; k < n && r->n_nodes < count; k++) {
        size_t i = p ? p->node_idx[k] : k;
        if (node_free(rs, r, SIZE_MAX, i, busy))
            r->node_idx[r->n_nodes++] = i;
    }
    if (r->n_nodes < count) {
        errno = EBUSY;
        return err_set(e,
                       "Requested nodes are busy: %zu of %u nodes free "
                       "for this time",
                       r->n_nodes, count);
    }
    /* ascending order, as resv_has_node and the JSON expect */
    for (size_t a = 1; a < r->n_nodes; a++)
        for (size_t b = a; b > 0 && r->node_idx[b - 1] > r->node_idx[b]; b--) {
            size_t t = r->node_idx[b];
            r->node_idx[b] = r->node_idx[b - 1];
            r->node_idx[b - 1] = t;
        }
    return 0;
}

/* The checks every new or changed reservation passes (self: its index
 * in the table, SIZE_MAX for a new one). */
static int check(const struct resvs *rs, const struct resv *r, size_t self,
                 const struct resv_busy *busy, struct err *e)
{
    const struct conf *conf = rs->conf;

    if (r->users == NULL && r->accounts == NULL)
        return err_inval(e, "Either Users or Accounts must be given");
    if (!(r->flags & RESV_OVERLAP)) {
        for (size_t k = 0; k < rs->n; k++) {
            if (k != self && !(rs->v[k]->flags & RESV_OVERLAP) &&
                resv_overlaps(r, rs->v[k])) {
                errno = EBUSY;
                return err_set(e,
                               "Requested reservation overlaps with another "
                               "reservation (%s)",
                               rs->v[k]->name);
            }
        }
    }
    if (r->flags & RESV_IGNORE_JOBS)
        return 0;
    for (size_t i = 0; busy != NULL && busy->busy && i < r->n_nodes; i++) {
        if (busy->busy(busy->arg, r->node_idx[i], r->start,
                       self == SIZE_MAX ? NULL : r->name)) {
            errno = EBUSY;
            return err_set(e,
                           "Requested nodes are busy: a job on %s runs past "
                           "the start (Flags=IGNORE_JOBS creates it anyway)",
                           conf->nodes[r->node_idx[i]].name);
        }
    }
    return 0;
}

/* Apply spec's keys but the name and the times to r. */
static int apply(const struct resvs *rs, json_t *spec, struct resv *r,
                 struct err *e)
{
    const char *s;
    json_t *v;

    if ((v = json_object_get(spec, "partition")) != NULL) {
        s = json_string_value(v);
        if (!json_is_null(v) && s == NULL)
            return err_inval(e, "PartitionName: expected a name");
        if (s != NULL && *s != '\0' && conf_part_find(rs->conf, s) == NULL)
            return err_inval(e, "PartitionName: no partition %.64s", s);
        free(r->partition);
        r->partition = s && *s ? xstrdup(s) : NULL;
    }
    if ((v = json_object_get(spec, "flags")) != NULL) {
        unsigned f;
        if (!json_is_string(v))
            return err_inval(e, "Flags: expected a comma-separated list");
        if (resv_flags_parse(json_string_value(v), &f, e) < 0)
            return -1;
        r->flags = f | (r->flags & RESV_SPEC_NODES);
    }
    if (get_list(json_object_get(spec, "users"), "Users", &r->users, e) < 0 ||
        get_list(json_object_get(spec, "accounts"), "Accounts", &r->accounts,
                 e) < 0)
        return -1;
    if ((v = json_object_get(spec, "nodes")) != NULL) {
        if ((s = json_string_value(v)) == NULL || *s == '\0')
            return err_inval(e, "Nodes: expected a host list or ALL");
        if (get_nodes(rs->conf, s, r, e) < 0)
            return -1;
        r->flags |= RESV_SPEC_NODES;
    }
    return 0;
}

/* ---- saving ------------------------------------------------------------- */

static char *node_names(const struct conf *conf, const struct resv *r)
{
    struct hostlist *hl = hostlist_create();
    char *s;

    for (size_t i = 0; i < r->n_nodes; i++)
        hostlist_push_host(hl, conf->nodes[r->node_idx[i]].name);
    hostlist_sort_uniq(hl);
    s = hostlist_compress(hl);
    hostlist_destroy(hl);
    return s;
}

json_t *resvs_to_json(const struct resvs *rs, const struct resv *r, time_t now)
{
    char flags[256], tres[64];
    char *nodes = node_names(rs->conf, r);
    uint64_t cpus = 0;
    json_t *o;

    for (size_t i = 0; i < r->n_nodes; i++)
        cpus += rs->conf->nodes[r->node_idx[i]].cpus;
    snprintf(tres, sizeof(tres), "cpu=%" PRIu64, cpus);
#define STR(s) ((s) ? json_string(s) : json_null())
    o = json_pack("{s:s, s:I, s:I, s:I, s:s, s:I, s:I, s:o, s:s, s:o, s:o, "
                  "s:s, s:s}",
                  "name", r->name, "start_time", (json_int_t)r->start,
                  "end_time", (json_int_t)r->end, "duration_s",
                  (json_int_t)(r->end - r->start), "nodes", nodes, "node_count",
                  (json_int_t)r->n_nodes, "core_count", (json_int_t)cpus,
                  "partition", STR(r->partition), "flags",
                  resv_flags_name(r->flags, flags, sizeof(flags)), "users",
                  STR(r->users), "accounts", STR(r->accounts), "state",
                  resv_active(r, now) ? "ACTIVE" : "INACTIVE", "tres", tres);
#undef STR
    free(nodes);
    return o;
}

static int save(struct resvs *rs, const struct resv *r, struct err *e)
{
    json_t *o = resvs_to_json(rs, r, 0);
    char *text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    int rc;

    json_decref(o);
    if (text == NULL)
        fatalx("out of memory encoding reservation %s", r->name);
    rc = loop_write(rs->loop, e) < 0
             ? -1
             : persist_resv_save(rs->persist, r->name, text, e);
    free(text);
    return rc;
}

/* Delete the i-th reservation: the row, then memory; a row that cannot
 * be deleted leaves memory as it was. */
static int drop(struct resvs *rs, size_t i, struct err *e)
{
    struct resv *r = rs->v[i];

    if (loop_write(rs->loop, e) < 0 ||
        persist_resv_delete(rs->persist, r->name, e) < 0)
        return -1;
    memmove(&rs->v[i], &rs->v[i + 1], (rs->n - i - 1) * sizeof(*rs->v));
    rs->n--;
    resv_free(r);
    loop_want_pass(rs->loop);
    return 0;
}

static void insert(struct resvs *rs, struct resv *r)
{
    rs->v = xreallocarray(rs->v, rs->n + 1, sizeof(*rs->v));
    rs->v[rs->n++] = r;
}

/* A record as saved (resvs_to_json) back into a reservation. */
static int load_one(void *arg, const char *name, const char *text)
{
    struct resvs *rs = arg;
    json_t *o = json_loads(text, 0, NULL);
    struct resv *r = xcalloc(1, sizeof(*r));
    struct err e = {.text = ""};
    const char *fl;

    r->name = xstrdup(name);
    json_object_del(o, "name"); /* the row's name is the one */
    if (!json_is_object(o) ||
        get_epoch(json_object_get(o, "start_time"), "start_time", &r->start,
                  &e) < 0 ||
        get_epoch(json_object_get(o, "end_time"), "end_time", &r->end, &e) <
            0 ||
        apply(rs, o, r, &e) < 0) {
        log_warnx("reservation=%s dropped: %s", name,
                  json_is_object(o) ? e.text : "unreadable record");
        json_decref(o);
        resv_free(r);
        return 0;
    }
    /* SPEC_NODES is what the record says, not what apply() infers */
    fl = json_string_value(json_object_get(o, "flags"));
    if (fl == NULL || strstr(fl, "SPEC_NODES") == NULL)
        r->flags &= ~(unsigned)RESV_SPEC_NODES;
    json_decref(o);
    insert(rs, r);
    log_info("reservation=%s restored", name);
    return 0;
}

struct resvs *resvs_create(const struct conf *conf, struct persist *persist,
                           struct loop *loop, struct err *e)
{
    struct resvs *rs = xcalloc(1, sizeof(*rs));

    rs->conf = conf;
    rs->persist = persist;
    rs->loop = loop;
    if (persist_resv_load(persist, load_one, rs, e) < 0) {
        resvs_destroy(rs);
        return NULL;
    }
    return rs;
}

void resvs_destroy(struct resvs *rs)
{
    if (rs == NULL)
        return;
    for (size_t i = 0; i < rs->n; i++)
        resv_free(rs->v[i]);
    free(rs->v);
    free(rs);
}

/* ---- changes ------------------------------------------------------------ */

/* The generated name: the first user (or account) and a counter kept in
 * the database, as Slurm's USER_N; *next is the counter after it, saved
 * once the reservation is. */
static char *new_name(struct resvs *rs, const struct resv *r, uint64_t *next,
                      struct err *e)
{
    const char *base = r->users ? r->users : r->accounts;
    size_t len;
    uint64_t id = 1;
    char buf[RESV_MAX_NAME + 32];

    if (persist_meta_get(rs->persist, "next_resv_id", &id, e) < 0)
        return NULL;
    if (*base == '-')
        base++;
    len = strcspn(base, ",");
    if (len > RESV_MAX_NAME)
        len = RESV_MAX_NAME;
    do {
        snprintf(buf, sizeof(buf), "%.*s_%" PRIu64, (int)len, base, id++);
    } while (resvs_find(rs, buf) != NULL);
    *next = id;
    return xstrdup(buf);
}

int resvs_add(struct resvs *rs, json_t *spec, const struct resv_busy *busy,
              time_t now, const char **name, struct err *e)
{
    struct resv *r = xcalloc(1, sizeof(*r));
    json_t *v = json_object_get(spec, "name");
    json_t *cnt = json_object_get(spec, "node_count");
    const char *s = json_string_value(v);
    uint64_t next = 0;

    if (!json_is_object(spec)) {
        err_inval(e, "RESV_CREATE: expected {\"reservation\": {...}}");
        goto error;
    }
    if (v != NULL && !json_is_null(v) &&
        (s == NULL || *s == '\0' || strlen(s) > RESV_MAX_NAME ||
         strpbrk(s, " \t\n=,") != NULL)) {
        err_inval(e, "ReservationName: expected a name without spaces, '=' "
                     "or ','");
        goto error;
    }
    if (s != NULL && resvs_find(rs, s) != NULL) {
        errno = EEXIST;
        err_set(e, "Duplicate reservation name %s", s);
        goto error;
    }
    if (get_times(spec, r, true, now, e) < 0 || apply(rs, spec, r, e) < 0)
        goto error;
    if (r->n_nodes > 0 && cnt != NULL) {
        err_inval(e, "give Nodes or NodeCnt, not both");
        goto error;
    }
    if (r->n_nodes == 0 && cnt == NULL && r->partition == NULL) {
        err_inval(e, "Nodes, NodeCnt or PartitionName must be given");
        goto error;
    }
    if (r->users == NULL && r->accounts == NULL) {
        err_inval(e, "Either Users or Accounts must be given");
        goto error;
    }
    if (r->n_nodes == 0) {
        const struct conf_part *p =
            r->partition ? conf_part_find(rs->conf, r->partition) : NULL;
        uint32_t want = p ? (uint32_t)p->n_nodes : 0;
        if (cnt != NULL &&
            (!json_is_integer(cnt) || json_integer_value(cnt) < 1 ||
             json_integer_value(cnt) > (json_int_t)rs->conf->n_nodes)) {
            err_inval(e, "NodeCnt: expected 1 to %zu nodes", rs->conf->n_nodes);
            goto error;
        }
        if (cnt != NULL)
            want = (uint32_t)json_integer_value(cnt);
        if (pick_nodes(rs, r, want, busy, e) < 0)
            goto error;
    }
    r->name = s ? xstrdup(s) : NULL;
    if (r->name == NULL && (r->name = new_name(rs, r, &next, e)) == NULL)
        goto error;
    if (check(rs, r, SIZE_MAX, busy, e) < 0 || save(rs, r, e) < 0 ||
        (next != 0 &&
         persist_meta_set(rs->persist, "next_resv_id", next, e) < 0))
        goto error;
    insert(rs, r);
    r->was_active = false;
    loop_want_pass(rs->loop);
    if (name != NULL)
        *name = r->name;
    return 0;
error:
    resv_free(r);
    return -1;
}

int resvs_update(struct resvs *rs, const char *name, json_t *spec,
                 const struct resv_busy *busy, time_t now, struct err *e)
{
    size_t i = find_idx(rs, name);
    struct resv *t;

    if (i == SIZE_MAX) {
        errno = ENOENT;
        return err_set(e, "Invalid reservation name %.64s", name);
    }
    if (!json_is_object(spec) || json_object_size(spec) == 0)
        return err_inval(e, "RESV_UPDATE: expected \"set\": {...} with a key");
    if (json_object_get(spec, "name") || json_object_get(spec, "node_count"))
        return err_inval(e, "RESV_UPDATE: the name and NodeCnt cannot change "
                            "(give Nodes=)");
    t = resv_copy(rs->v[i]);
    if (get_times(spec, t, false, now, e) < 0 || apply(rs, spec, t, e) < 0 ||
        check(rs, t, i, busy, e) < 0 || save(rs, t, e) < 0) {
        resv_free(t);
        return -1;
    }
    resv_free(rs->v[i]);
    rs->v[i] = t;
    loop_want_pass(rs->loop);
    return 0;
}

int resvs_delete(struct resvs *rs, const char *name, struct err *e)
{
    size_t i = find_idx(rs, name);

    if (i == SIZE_MAX) {
        errno = ENOENT;
        return err_set(e, "Invalid reservation name %.64s", name);
    }
    return drop(rs, i, e);
}

void resvs_tick(struct resvs *rs, time_t now)
{
    struct err e;

    for (size_t i = 0; rs != NULL && i < rs->n;) {
        struct resv *r = rs->v[i];
        bool active = resv_active(r, now);
        if (active != r->was_active) {
            log_info("reservation=%s state=%s", r->name,
                     active ? "ACTIVE" : "INACTIVE");
            r->was_active = active;
            loop_want_pass(rs->loop);
        }
        if (now < r->end) {
            i++;
            continue;
        }
        if (r->flags & (RESV_DAILY | RESV_WEEKLY)) {
            time_t step = (r->flags & RESV_DAILY) ? 86400 : 7 * 86400;
            while (r->end <= now) {
                r->start += step;
                r->end += step;
            }
            if (save(rs, r, &e) < 0)
                log_warnx("reservation=%s not saved: %s", r->name, e.text);
            i++;
            continue;
        }
        log_info("reservation=%s ended", r->name);
        if (drop(rs, i, &e) < 0) {
            log_warnx("reservation ended, not deleted: %s", e.text);
            i++; /* a later tick deletes it */
        }
    }
}

/* ---- the questions of others -------------------------------------------- */

const char *resvs_node_resv(const struct resvs *rs, size_t node, time_t now)
{
    for (size_t i = 0; rs != NULL && i < rs->n; i++)
        if (resv_active(rs->v[i], now) && resv_has_node(rs->v[i], node))
            return rs->v[i]->name;
    return NULL;
}

const char *resvs_maint_node(const struct resvs *rs, size_t node, time_t now)
{
    for (size_t i = 0; rs != NULL && i < rs->n; i++)
        if ((rs->v[i]->flags & RESV_MAINT) && resv_active(rs->v[i], now) &&
            resv_has_node(rs->v[i], node))
            return rs->v[i]->name;
    return NULL;
}

void resvs_node_json(const struct resvs *rs, size_t node, time_t now, json_t *o)
{
    const char *r = resvs_node_resv(rs, node, now);

    json_object_set_new(o, "reservation", r ? json_string(r) : json_null());
    json_object_set_new(o, "maint",
                        json_boolean(resvs_maint_node(rs, node, now) != NULL));
}

/* name is in the list (or, for a "-a,-b" list, is not). */
static bool list_admits(const char *list, const char *name)
{
    char *copy, *save = NULL;
    bool neg = list[0] == '-', found = false;

    if (name == NULL)
        return neg;
    copy = xstrdup(list);
    for (char *w = strtok_r(copy, ",", &save); w != NULL && !found;
         w = strtok_r(NULL, ",", &save))
        found = strcmp(w + (w[0] == '-'), name) == 0;
    free(copy);
    return neg ? !found : found;
}

int resvs_job_access(const struct resvs *rs, const char *name, const char *user,
                     const char *account, struct err *e)
{
    const struct resv *r = resvs_find(rs, name);

    if (r == NULL)
        return err_inval(e,
                         "Requested reservation is invalid: no "
                         "reservation %.64s",
                         name);
    if ((r->users == NULL || list_admits(r->users, user)) &&
        (r->accounts == NULL || list_admits(r->accounts, account)))
        return 0;
    errno = EPERM;
    return err_set(e, "Access denied to requested reservation %s", r->name);
}

const char *resvs_blocker(const struct resvs *rs, const char *resv,
                          int64_t limit_s, time_t now, size_t node)
{
    if (resv != NULL) {
        const struct resv *r = resvs_find(rs, resv);
        return r != NULL && !resv_has_node(r, node) ? r->name : NULL;
    }
    for (size_t k = 0; rs != NULL && k < rs->n; k++) {
        const struct resv *r = rs->v[k];
        if (r->end > now && (limit_s <= 0 || now + limit_s > r->start) &&
            resv_has_node(r, node))
            return r->name;
    }
    return NULL;
}

enum resv_verdict resvs_job_mask(const struct resvs *rs, const char *resv,
                                 int64_t limit_s, time_t now, bool *mask,
                                 size_t n_nodes, bool *maint)
{
    bool masked = false;

    if (maint != NULL)
        *maint = false;
    if (resv != NULL) {
        const struct resv *r = resvs_find(rs, resv);
        if (r == NULL)
            return RESV_DELETED;
        if (now < r->start)
            return RESV_WAIT;
        for (size_t i = 0; i < n_nodes; i++)
            mask[i] = false;
        for (size_t i = 0; i < r->n_nodes; i++)
            if (r->node_idx[i] < n_nodes)
                mask[r->node_idx[i]] = true;
        return RESV_MASKED;
    }
    for (size_t k = 0; rs != NULL && k < rs->n; k++) {
        const struct resv *r = rs->v[k];
        /* the job's run [now, now + limit) meets the reservation's */
        if (r->end <= now || (limit_s > 0 && now + limit_s <= r->start))
            continue;
        if (!masked) {
            for (size_t i = 0; i < n_nodes; i++)
                mask[i] = true;
            masked = true;
        }
        for (size_t i = 0; i < r->n_nodes; i++)
            if (r->node_idx[i] < n_nodes)
                mask[r->node_idx[i]] = false;
        if (maint != NULL && (r->flags & RESV_MAINT))
            *maint = true;
    }
    return masked ? RESV_MASKED : RESV_FREE;
}
