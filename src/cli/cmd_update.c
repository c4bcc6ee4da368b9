/*
 * sluice update / scontrol update: "JobId=5 TimeLimit=1:00:00
 * Partition=dev JobName=x Priority=10" (JOB_UPDATE, one per job) and
 * "NodeName=node[01-02] State=DRAIN Reason=\"disk\"" (NODE_UPDATE).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/jobfilter.h"
#include "common/hostlist.h"
#include "common/proto.h"
#include "common/timefmt.h"
#include "common/value.h"
#include "common/xalloc.h"
#include "sched/depend.h"
#include "sched/prio.h"

/* The value of "Key=value" when its key is key (any case), else NULL. */
static const char *upd_value(const char *word, const char *key)
{
    size_t len = strlen(key);

    if (strncasecmp(word, key, len) == 0 && word[len] == '=')
        return word + len + 1;
    return NULL;
}

/* Dependency=EXPR (empty: none), checked here. */
static int upd_dependency(json_t *set, const char *v, struct err *e)
{
    struct depend d;
    char *canon;

    if (v[0] == '\0') {
        json_object_set_new(set, "dependency", json_string(""));
        return 0;
    }
    if (depend_parse(v, &d, e) < 0)
        return -1;
    canon = depend_format(&d);
    depend_clear(&d);
    json_object_set_new(set, "dependency", json_string(canon));
    free(canon);
    return 0;
}

/* Nice=N (no value: 100, as sbatch --nice); the controller decides
 * whether a negative one is allowed. */
static int upd_nice(json_t *set, const char *v, struct err *e)
{
    char *end;
    long long n = 100;

    errno = 0;
    if (v[0] != '\0')
        n = strtoll(v, &end, 10);
    if (v[0] != '\0' && (*end != '\0' || errno != 0 || n < -PRIO_NICE_MAX ||
                         n > PRIO_NICE_MAX)) {
        errno = EINVAL;
        return err_set(e, "Nice=%s: expected an integer from %d to %d", v,
                       -PRIO_NICE_MAX, PRIO_NICE_MAX);
    }
    json_object_set_new(set, "nice", json_integer(n));
    return 0;
}

/* One job setting into set; -1 with e. */
static int upd_job_key(json_t *set, const char *w, struct err *e)
{
    const char *v;
    int64_t secs;
    uint64_t n;

    if ((v = upd_value(w, "TimeLimit")) != NULL) {
        if (timefmt_parse(v, &secs, e) < 0)
            return err_prefix(e, "TimeLimit=%s", v);
        json_object_set_new(set, "time_limit_s",
                            secs == TIMEFMT_INFINITE ? json_string("INFINITE")
                                                     : json_integer(secs));
    } else if ((v = upd_value(w, "Partition")) != NULL && v[0] != '\0') {
        json_object_set_new(set, "partition", json_string(v));
    } else if (((v = upd_value(w, "JobName")) != NULL ||
                (v = upd_value(w, "Name")) != NULL) &&
               v[0] != '\0') {
        json_object_set_new(set, "name", json_string(v));
    } else if ((v = upd_value(w, "Priority")) != NULL) {
        if (value_parse_u64(v, 0, UINT32_MAX - 1, &n, e) < 0)
            return err_prefix(e, "Priority=%s", v);
        json_object_set_new(set, "priority", json_integer((json_int_t)n));
    } else if ((v = upd_value(w, "Nice")) != NULL) {
        return upd_nice(set, v, e);
    } else if ((v = upd_value(w, "Dependency")) != NULL) {
        return upd_dependency(set, v, e);
    } else if ((v = upd_value(w, "Comment")) != NULL) {
        json_object_set_new(set, "comment", json_string(v));
    } else {
        errno = EINVAL;
        return err_set(e,
                       "Invalid input: %s (a job update takes "
                       "TimeLimit, Partition, JobName, Priority, Nice, "
                       "Dependency and Comment)",
                       w);
    }
    return 0;
}

static int upd_job(const char *ids, int argc, char **argv)
{
    struct jobfilter f = {0};
    json_t *set = json_object(), *id;
    struct err e;
    size_t i;
    int rc = 0;

    if (jobfilter_add(&f, JOBFILTER_IDS, ids, &e) < 0)
        goto fail;
    for (int k = 0; k < argc; k++)
        if (upd_job_key(set, argv[k], &e) < 0)
            goto fail;
    if (json_object_size(set) == 0 || f.job_ids == NULL) {
        err_set(&e, "nothing to update (give JobId=ID and Key=Value)");
        goto fail;
    }
    json_array_foreach(f.job_ids, i, id)
    {
        json_t *req = json_pack("{s:O, s:O}", "job_id", id, "set", set);
        json_t *reply = NULL;
        if (cli_call(PROTO_MSG_JOB_UPDATE, req, &reply, &e) < 0) {
            if (json_is_string(id))
                cli_error("Update of job %s failed: %s", json_string_value(id),
                          e.text);
            else
                cli_error("Update of job %lld failed: %s",
                          (long long)json_integer_value(id), e.text);
            rc = 1;
        }
        json_decref(req);
        json_decref(reply);
    }
    json_decref(set);
    jobfilter_clear(&f);
    return rc;
fail:
    cli_error("%s", e.text);
    json_decref(set);
    jobfilter_clear(&f);
    return 1;
}

/* Node keys into req; -1 with e. */
static int upd_node_keys(json_t *req, int argc, char **argv, struct err *e)
{
    const char *v;

    for (int k = 0; k < argc; k++) {
        if ((v = upd_value(argv[k], "State")) != NULL) {
            const char *st = strcasecmp(v, "DRAIN") == 0     ? "DRAIN"
                             : strcasecmp(v, "DOWN") == 0    ? "DOWN"
                             : strcasecmp(v, "RESUME") == 0  ? "RESUME"
                             : strcasecmp(v, "UNDRAIN") == 0 ? "RESUME"
                             : strcasecmp(v, "IDLE") == 0    ? "RESUME"
                                                             : NULL;
            if (st == NULL) {
                errno = EINVAL;
                return err_set(
                    e,
                    "Invalid node state specified: %s "
                    "(expected DRAIN, DOWN, RESUME, UNDRAIN or IDLE)",
                    v);
            }
            json_object_set_new(req, "state", json_string(st));
        } else if ((v = upd_value(argv[k], "Reason")) != NULL) {
            json_object_set_new(req, "reason", json_string(v));
        } else {
            errno = EINVAL;
            return err_set(e,
                           "Invalid input: %s (a node update takes State "
                           "and Reason)",
                           argv[k]);
        }
    }
    return 0;
}

static int upd_node(const char *expr, int argc, char **argv)
{
    struct hostlist *hl;
    json_t *req = json_object(), *names = json_array(), *reply = NULL;
    const char *st;
    struct err e;
    int rc = 1;

    if ((hl = hostlist_expand(expr, &e)) == NULL ||
        upd_node_keys(req, argc, argv, &e) < 0) {
        cli_error("%s", e.text);
        goto out;
    }
    st = json_string_value(json_object_get(req, "state"));
    if (st == NULL) {
        cli_error("nothing to update (give State=DRAIN|DOWN|RESUME)");
        goto out;
    }
    if (strcmp(st, "RESUME") != 0 && json_object_get(req, "reason") == NULL) {
        cli_error("You must specify a reason when DOWNING or DRAINING a "
                  "node. Request denied");
        goto out;
    }
    for (size_t i = 0; i < hostlist_count(hl); i++)
        json_array_append_new(names, json_string(hostlist_nth(hl, i)));
    json_object_set(req, "nodes", names);
    if (cli_call(PROTO_MSG_NODE_UPDATE, req, &reply, &e) < 0)
        cli_error("Update of node %s failed: %s", expr, e.text);
    else
        rc = 0;
out:
    hostlist_destroy(hl);
    json_decref(names);
    json_decref(req);
    json_decref(reply);
    return rc;
}

/* Partition keys into set (values go as written; the controller parses
 * them); -1 with e. */
static int upd_part_keys(json_t *set, int argc, char **argv, struct err *e)
{
    static const struct {
        const char *key, *field;
    } keys[] = {
        {"State", "state"},
        {"MaxTime", "max_time_s"},
        {"DefaultTime", "default_time_s"},
        {"MaxNodes", "max_nodes"},
        {"MinNodes", "min_nodes"},
        {"PriorityTier", "priority_tier"},
        {"Nodes", "nodes"},
    };
    const char *v;

    for (int k = 0; k < argc; k++) {
        size_t i;
        for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
            if ((v = upd_value(argv[k], keys[i].key)) != NULL)
                break;
        if (i == sizeof(keys) / sizeof(keys[0])) {
            errno = EINVAL;
            return err_set(e,
                           "Invalid input: %s (a partition update takes "
                           "State, MaxTime, DefaultTime, MaxNodes, MinNodes, "
                           "PriorityTier and Nodes)",
                           argv[k]);
        }
        json_object_set_new(set, keys[i].field, json_string(v));
    }
    return 0;
}

static int upd_part(const char *name, int argc, char **argv)
{
    json_t *set = json_object(), *req = NULL, *reply = NULL;
    struct err e;
    int rc = 1;

    if (upd_part_keys(set, argc, argv, &e) < 0) {
        cli_error("%s", e.text);
        goto out;
    }
    if (json_object_size(set) == 0) {
        cli_error("nothing to update (give PartitionName=NAME Key=Value)");
        goto out;
    }
    req = json_pack("{s:s, s:O}", "partition", name, "set", set);
    if (cli_call(PROTO_MSG_PART_UPDATE, req, &reply, &e) < 0)
        cli_error("Update of partition %s failed: %s", name, e.text);
    else
        rc = 0;
out:
    json_decref(set);
    json_decref(req);
    json_decref(reply);
    return rc;
}

int update_run(int argc, char **argv)
{
    const char *v;

    if (argc < 1) {
        cli_error("usage: update JobId=ID KEY=VALUE... | NodeName=NODES "
                  "State=DRAIN|DOWN|RESUME [Reason=TEXT] | "
                  "PartitionName=NAME KEY=VALUE...");
        return 2;
    }
    if ((v = upd_value(argv[0], "JobId")) != NULL ||
        (v = upd_value(argv[0], "Job")) != NULL)
        return upd_job(v, argc - 1, argv + 1);
    /* also "update job ID ..." and "update partition NAME ..." */
    if (argc >= 2 && strcasecmp(argv[0], "job") == 0)
        return upd_job(argv[1], argc - 2, argv + 2);
    if (argc >= 2 && strcasecmp(argv[0], "partition") == 0)
        return upd_part(argv[1], argc - 2, argv + 2);
    if ((v = upd_value(argv[0], "PartitionName")) != NULL ||
        (v = upd_value(argv[0], "Partition")) != NULL)
        return upd_part(v, argc - 1, argv + 1);
    if ((v = upd_value(argv[0], "NodeName")) != NULL ||
        (v = upd_value(argv[0], "Node")) != NULL)
        return upd_node(v, argc - 1, argv + 1);
    cli_error("Invalid input: %s (update takes JobId=ID, NodeName=NODES or "
              "PartitionName=NAME first)",
              argv[0]);
    return 1;
}

static const struct opt_def update_opts[] = {
    {"help", 'h', OPT_NOARG, 1},
    {NULL, 0, OPT_NOARG, 0},
};

int cmd_update(int argc, char **argv)
{
    struct opt_state st;
    const char *arg;
    struct err e;
    int id, rc;

    cli_set_prog(argv[0]);
    opt_init(&st, argc, argv, 1, true);
    if ((rc = opt_next(&st, update_opts, &id, &arg, &e)) > 0) {
        printf("usage: sluice update JobId=ID [TimeLimit=T] [Partition=P] "
               "[JobName=N] [Priority=N] [Nice=N]\n"
               "       sluice update NodeName=NODES State=DRAIN|DOWN|RESUME "
               "[Reason=TEXT]\n");
        opt_free(&st);
        return 0;
    }
    if (rc < 0) {
        cli_opt_end(&st, rc, &e);
        return 2;
    }
    rc = update_run(st.n_operands, st.operands);
    opt_free(&st);
    cli_close();
    return rc;
}
