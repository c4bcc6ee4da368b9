/*
 * sluice show job|node|partition [ID] / scontrol show ...: records in
 * scontrol's Key=Value layout (-o: one line each) or as JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/jobfilter.h"
#include "cli/jobview.h"
#include "cli/opt.h"
#include "cli/showview.h"
#include "common/hostlist.h"
#include "common/proto.h"
#include "common/slurmjson.h"
#include "common/value.h"

enum show_kind {
    SHOW_JOB,
    SHOW_NODE,
    SHOW_PART,
};

/* scontrol -d (once or more): the details of show job. */
static int show_detail;

void show_set_detail(int n)
{
    show_detail = n;
}

static const struct {
    const char *word;
    enum show_kind kind;
    uint16_t msg;
    const char *req_key, *reply_key, *what;
} show_kinds[] = {
    {"jobs", SHOW_JOB, PROTO_MSG_JOB_QUERY, "job_ids", "jobs", "job"},
    {"jobid", SHOW_JOB, PROTO_MSG_JOB_QUERY, "job_ids", "jobs", "job"},
    {"nodes", SHOW_NODE, PROTO_MSG_NODE_QUERY, "nodes", "nodes", "node"},
    {"partitions", SHOW_PART, PROTO_MSG_PART_QUERY, "partitions", "partitions",
     "partition"},
};

/* "job", "jobs", "node", "part", "partition" ...: any prefix of at least
 * three letters.  -1 when none. */
static int show_kind_find(const char *w)
{
    size_t len = strlen(w);

    for (size_t i = 0; i < sizeof(show_kinds) / sizeof(*show_kinds); i++)
        if (len >= 3 && strncasecmp(show_kinds[i].word, w, len) == 0)
            return (int)i;
    return -1;
}

/* The request's selection list for id ("5", "node[01-02]", "prod"). */
static int show_select(enum show_kind kind, const char *id, json_t **list,
                       struct err *e)
{
    struct hostlist *hl;

    *list = json_array();
    if (kind == SHOW_JOB) {
        struct jobfilter f = {0};
        /* "12", "12_3" (an array task), "12_[1-3]" */
        if (jobfilter_add(&f, JOBFILTER_IDS, id, e) < 0 ||
            json_array_size(f.job_ids) != 1) {
            jobfilter_clear(&f);
            errno = EINVAL;
            return err_set(e, "Invalid job id specified");
        }
        json_array_extend(*list, f.job_ids);
        jobfilter_clear(&f);
    } else if (kind == SHOW_NODE) {
        if ((hl = hostlist_expand(id, e)) == NULL)
            return -1;
        for (size_t i = 0; i < hostlist_count(hl); i++)
            json_array_append_new(*list, json_string(hostlist_nth(hl, i)));
        hostlist_destroy(hl);
    } else {
        json_array_append_new(*list, json_string(id));
    }
    return 0;
}

/* What scontrol prints for a job id the controller does not know. */
static void show_no_job(void)
{
    fflush(stdout);
    fputs("slurm_load_jobs error: Invalid job id specified\n", stderr);
}

static void show_print(enum show_kind kind, json_t *items, bool oneliner)
{
    time_t now = time(NULL);
    size_t i;
    json_t *v;

    json_array_foreach(items, i, v)
    {
        if (kind == SHOW_JOB)
            showview_job(stdout, v, now, oneliner, show_detail);
        else if (kind == SHOW_NODE)
            showview_node(stdout, v, oneliner);
        else
            showview_part(stdout, v, oneliner);
        if (!oneliner)
            putchar('\n');
    }
}

/* Keep of the JOBs those that id ("12", "12_3", "12_[1-3]") names: the
 * controller may answer a whole array for one of its tasks. */
static void show_only(json_t *jobs, const char *id)
{
    struct jobfilter f = {0};

    if (jobfilter_add(&f, JOBFILTER_IDS, id, NULL) == 0) {
        for (size_t i = 0; i < json_array_size(jobs);) {
            if (jobfilter_match(&f, json_array_get(jobs, i)))
                i++;
            else
                json_array_remove(jobs, i);
        }
    }
    jobfilter_clear(&f);
}

/* items in Slurm's v0.0.38 schema (docs/json.md), under reply_key. */
static void show_print_slurm(enum show_kind kind, const char *reply_key,
                             json_t *items)
{
    struct slurmjson_ctx ctx = {cli_cluster_name(), time(NULL)};
    json_t *out = json_array(), *v;
    size_t i;

    json_array_foreach(items, i, v) json_array_append_new(
        out, kind == SHOW_JOB    ? slurmjson_job(v, &ctx)
             : kind == SHOW_NODE ? slurmjson_node(v, &ctx)
                                 : slurmjson_partition(v, &ctx));
    cli_print_json(slurmjson_response(SLURMJSON_CTLD, reply_key, out));
}

int show_run(int argc, char **argv, bool json, bool oneliner)
{
    json_t *req = json_object(), *reply = NULL, *items, *list;
    struct err e;
    int k, rc = 1;

    if (argc >= 1 && strlen(argv[0]) >= 3 &&
        strncasecmp("steps", argv[0], strlen(argv[0])) == 0) {
        json_decref(req);
        return show_step_run(argc - 1, argv + 1, json, oneliner);
    }
    if (argc < 1 || argc > 2 || (k = show_kind_find(argv[0])) < 0) {
        cli_error("usage: show job|node|partition|step [ID]");
        json_decref(req);
        return 2;
    }
    if (argc == 2) {
        if (show_select(show_kinds[k].kind, argv[1], &list, &e) < 0) {
            if (show_kinds[k].kind == SHOW_JOB)
                show_no_job();
            else
                cli_error("%s", e.text);
            json_decref(list);
            goto out;
        }
        json_object_set_new(req, show_kinds[k].req_key, list);
        /* -dd: the batch script too, as scontrol lists it */
        if (show_kinds[k].kind == SHOW_JOB && show_detail >= 2)
            json_object_set_new(req, "batch_script", json_true());
    }
    if ((show_kinds[k].kind == SHOW_JOB
             ? cli_job_query(req, &reply, &e)
             : cli_call(show_kinds[k].msg, req, &reply, &e)) < 0) {
        cli_error("cannot load %ss: %s", show_kinds[k].what, e.text);
        goto out;
    }
    items = json_is_array(reply)
                ? reply
                : json_object_get(reply, show_kinds[k].reply_key);
    if (show_kinds[k].kind == SHOW_JOB && argc == 2)
        show_only(items, argv[1]);
    if (json && cli_json_sluice()) {
        cli_print_json(json_pack("{s:O}", show_kinds[k].reply_key,
                                 items ? items : json_array()));
    } else if (json) {
        show_print_slurm(show_kinds[k].kind, show_kinds[k].reply_key, items);
    } else if (json_array_size(items) == 0 && argc == 2) {
        if (show_kinds[k].kind == SHOW_JOB) /* Slurm's words exactly */
            show_no_job();
        else
            cli_error("%s %s not found",
                      show_kinds[k].kind == SHOW_NODE ? "Node" : "Partition",
                      argv[1]);
        goto out;
    } else if (json_array_size(items) == 0) {
        printf("No %ss in the system\n", show_kinds[k].what);
    } else {
        show_print(show_kinds[k].kind, items, oneliner);
    }
    rc = 0;
out:
    json_decref(req);
    json_decref(reply);
    return rc;
}

enum { S_JSON = 1, S_ONELINER, S_DETAILS, S_HELP };

static const struct opt_def show_opts[] = {
    {"json", 0, OPT_OPTARG, S_JSON},
    {"oneliner", 'o', OPT_NOARG, S_ONELINER},
    {"details", 'd', OPT_NOARG, S_DETAILS},
    {"help", 'h', OPT_NOARG, S_HELP},
    {NULL, 0, OPT_NOARG, 0},
};

int cmd_show(int argc, char **argv)
{
    struct opt_state st;
    bool json = false, oneliner = false, sluice;
    const char *arg;
    struct err e;
    int id, rc;

    cli_set_prog(argv[0]);
    opt_init(&st, argc, argv, 1, true);
    while ((rc = opt_next(&st, show_opts, &id, &arg, &e)) > 0) {
        if (id == S_HELP) {
            printf("usage: sluice show [--json] [-o] [-d] "
                   "job|node|partition|step [ID]\n");
            opt_free(&st);
            return 0;
        }
        json |= id == S_JSON;
        oneliner |= id == S_ONELINER;
        if (id == S_DETAILS)
            show_set_detail(show_detail + 1);
        if (id == S_JSON && cli_json_schema(arg, &sluice, &e) < 0) {
            rc = -1;
            break;
        }
    }
    if (rc < 0) {
        cli_opt_end(&st, rc, &e);
        return 2;
    }
    cli_set_raw(json); /* exact JSON out */
    rc = show_run(st.n_operands, st.operands, json, oneliner);
    opt_free(&st);
    cli_close();
    return rc;
}
