/*
 * Reservations from the command line: scontrol create/update/delete
 * reservation (RESV_CREATE, RESV_UPDATE, RESV_DELETE) with Slurm's
 * Key=Value words, scontrol show reservation in Slurm's layout, and sinfo
 * -T's table (RESV_QUERY).  docs/reservations.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/fmt.h"
#include "cli/jobview.h"
#include "cli/when.h"
#include "common/proto.h"
#include "common/timefmt.h"

/* The keys of create and update, Slurm's spelling (case-insensitive). */
enum rk {
    RK_NAME,
    RK_START,
    RK_END,
    RK_DUR,
    RK_NODES,
    RK_CNT,
    RK_PART,
    RK_USERS,
    RK_ACCTS,
    RK_FLAGS,
    RK_UNSUPPORTED
};

static const struct {
    const char *key;
    enum rk k;
} resv_keys[] = {
    {"ReservationName", RK_NAME},
    {"Reservation", RK_NAME},
    {"StartTime", RK_START},
    {"EndTime", RK_END},
    {"Duration", RK_DUR},
    {"Nodes", RK_NODES},
    {"NodeCnt", RK_CNT},
    {"NodeCount", RK_CNT},
    {"PartitionName", RK_PART},
    {"Partition", RK_PART},
    {"Users", RK_USERS},
    {"User", RK_USERS},
    {"Accounts", RK_ACCTS},
    {"Account", RK_ACCTS},
    {"Flags", RK_FLAGS},
    {"CoreCnt", RK_UNSUPPORTED},
    {"Licenses", RK_UNSUPPORTED},
    {"Features", RK_UNSUPPORTED},
    {"BurstBuffer", RK_UNSUPPORTED},
    {"TRES", RK_UNSUPPORTED},
    {"Watts", RK_UNSUPPORTED},
    {"Groups", RK_UNSUPPORTED},
    {"MaxStartDelay", RK_UNSUPPORTED},
};

static int time_word(const char *key, const char *v, time_t *out, struct err *e)
{
    if (when_parse(v, time(NULL), WHEN_NEXT, out, e) < 0)
        return err_prefix(e, "%s", key);
    return 0;
}

/* One KEY=VALUE word into spec (the name into *name). */
static int resv_word(const char *w, json_t *spec, const char **name,
                     struct err *e)
{
    const char *eq = strchr(w, '=');
    size_t klen = eq ? (size_t)(eq - w) : 0, i;
    const char *v = eq ? eq + 1 : NULL;
    time_t t;
    int64_t secs;
    char *end;
    long n;

    for (i = 0; eq && i < sizeof(resv_keys) / sizeof(resv_keys[0]); i++)
        if (strlen(resv_keys[i].key) == klen &&
            strncasecmp(w, resv_keys[i].key, klen) == 0)
            break;
    if (eq == NULL || i == sizeof(resv_keys) / sizeof(resv_keys[0])) {
        errno = EINVAL;
        return err_set(e, "Invalid input: %s", w);
    }
    switch (resv_keys[i].k) {
    case RK_NAME:
        *name = v;
        return 0;
    case RK_START:
    case RK_END:
        if (time_word(resv_keys[i].key, v, &t, e) < 0)
            return -1;
        json_object_set_new(
            spec, resv_keys[i].k == RK_START ? "start_time" : "end_time",
            json_integer((json_int_t)t));
        return 0;
    case RK_DUR:
        if (timefmt_parse(v, &secs, e) < 0)
            return err_prefix(e, "Duration");
        json_object_set_new(
            spec, "duration_s",
            json_integer(secs == TIMEFMT_INFINITE ? -1 : (json_int_t)secs));
        return 0;
    case RK_NODES:
        json_object_set_new(spec, "nodes", json_string(v));
        return 0;
    case RK_CNT:
        n = strtol(v, &end, 10);
        if (*v == '\0' || *end != '\0' || n < 1) {
            errno = EINVAL;
            return err_set(e,
                           "NodeCnt: expected a number of nodes, not "
                           "\"%s\"",
                           v);
        }
        json_object_set_new(spec, "node_count", json_integer(n));
        return 0;
    case RK_PART:
        json_object_set_new(spec, "partition", json_string(v));
        return 0;
    case RK_USERS:
        json_object_set_new(spec, "users", json_string(v));
        return 0;
    case RK_ACCTS:
        json_object_set_new(spec, "accounts", json_string(v));
        return 0;
    case RK_FLAGS:
        json_object_set_new(spec, "flags", json_string(v));
        return 0;
    case RK_UNSUPPORTED:
        break;
    }
    errno = EINVAL;
    return err_set(e,
                   "%s: not supported by sluice's reservations "
                   "(docs/reservations.md)",
                   resv_keys[i].key);
}

static int resv_words(int argc, char **argv, json_t *spec, const char **name,
                      struct err *e)
{
    for (int i = 0; i < argc; i++)
        if (resv_word(argv[i], spec, name, e) < 0)
            return -1;
    return 0;
}

/* "create reservation KEY=VALUE..." (argv after "create"). */
int resv_create_run(int argc, char **argv)
{
    json_t *spec = json_object(), *req = NULL, *reply = NULL;
    const char *name = NULL;
    struct err e;
    int rc = 1;

    if (argc < 1 ||
        (strncasecmp(argv[0], "reservation", strlen(argv[0])) != 0 ||
         strlen(argv[0]) < 3)) {
        cli_error("usage: create reservation [ReservationName=NAME] "
                  "StartTime=T {EndTime=T|Duration=D} {Nodes=LIST|NodeCnt=N} "
                  "{Users=LIST|Accounts=LIST} [PartitionName=P] "
                  "[Flags=MAINT,IGNORE_JOBS,...]");
        json_decref(spec);
        return 2;
    }
    if (resv_words(argc - 1, argv + 1, spec, &name, &e) < 0) {
        cli_error("Error creating the reservation: %s", e.text);
        goto out;
    }
    if (name != NULL)
        json_object_set_new(spec, "name", json_string(name));
    req = json_pack("{s:O}", "reservation", spec);
    if (cli_call(PROTO_MSG_RESV_CREATE, req, &reply, &e) < 0) {
        cli_error("Error creating the reservation: %s", e.text);
        goto out;
    }
    printf("Reservation created: %s\n",
           jobview_str(reply, "name", name ? name : "?"));
    rc = 0;
out:
    json_decref(spec);
    json_decref(req);
    json_decref(reply);
    return rc;
}

/* "update ReservationName=NAME KEY=VALUE..." (argv from the name on). */
int resv_update_run(int argc, char **argv)
{
    json_t *spec = json_object(), *req = NULL, *reply = NULL;
    const char *name = NULL;
    struct err e;
    int rc = 1;

    if (resv_words(argc, argv, spec, &name, &e) < 0) {
        cli_error("Error updating the reservation: %s", e.text);
        goto out;
    }
    if (name == NULL || json_object_size(spec) == 0) {
        cli_error("Error updating the reservation: give ReservationName=NAME "
                  "and a Key=Value to change");
        goto out;
    }
    req = json_pack("{s:s, s:O}", "name", name, "set", spec);
    if (cli_call(PROTO_MSG_RESV_UPDATE, req, &reply, &e) < 0) {
        cli_error("Error updating the reservation: %s", e.text);
        goto out;
    }
    printf("Reservation updated.\n");
    rc = 0;
out:
    json_decref(spec);
    json_decref(req);
    json_decref(reply);
    return rc;
}

/* "delete ReservationName=NAME" or "delete reservation NAME". */
int resv_delete_run(int argc, char **argv)
{
    const char *name = NULL;
    json_t *req, *reply = NULL;
    struct err e;
    int rc = 0;

    if (argc == 1 && strncasecmp(argv[0], "ReservationName=", 16) == 0)
        name = argv[0] + 16;
    else if (argc == 1 && strncasecmp(argv[0], "Reservation=", 12) == 0)
        name = argv[0] + 12;
    else if (argc == 2 && strcasecmp(argv[0], "reservation") == 0)
        name = argv[1];
    if (name == NULL || *name == '\0') {
        cli_error("usage: delete ReservationName=NAME");
        return 2;
    }
    req = json_pack("{s:s}", "name", name);
    if (cli_call(PROTO_MSG_RESV_DELETE, req, &reply, &e) < 0) {
        cli_error("Error deleting the reservation: %s", e.text);
        rc = 1;
    }
    json_decref(req);
    json_decref(reply);
    return rc;
}

static const char *nul(json_t *o, const char *key)
{
    return jobview_str(o, key, "(null)");
}

/* One reservation in scontrol's Key=Value layout. */
static void show_one(json_t *r, bool oneliner)
{
    char st[32], en[32], dur[TIMEFMT_BUFLEN];
    const char *sep = oneliner ? " " : "\n   ";
    const char *flags = jobview_str(r, "flags", "");

    fmt_time((time_t)jobview_int(r, "start_time", 0), "Unknown", st,
             sizeof(st));
    fmt_time((time_t)jobview_int(r, "end_time", 0), "Unknown", en, sizeof(en));
    fmt_hms(jobview_int(r, "duration_s", 0), dur, sizeof(dur));
    printf("ReservationName=%s StartTime=%s EndTime=%s Duration=%s",
           nul(r, "name"), st, en, dur);
    printf("%sNodes=%s NodeCnt=%lld CoreCnt=%lld Features=(null) "
           "PartitionName=%s Flags=%s",
           sep, nul(r, "nodes"), (long long)jobview_int(r, "node_count", 0),
           (long long)jobview_int(r, "core_count", 0), nul(r, "partition"),
           *flags ? flags : "(null)");
    printf("%sTRES=%s", sep, nul(r, "tres"));
    printf("%sUsers=%s Groups=(null) Accounts=%s Licenses=(null) State=%s "
           "BurstBuffer=(null) Watts=n/a",
           sep, nul(r, "users"), nul(r, "accounts"), nul(r, "state"));
    printf("%sMaxStartDelay=(null)\n", sep);
    if (!oneliner)
        printf("\n");
}

static int resv_query(const char *name, json_t **list)
{
    json_t *req = name ? json_pack("{s:s}", "name", name) : json_object();
    json_t *reply = NULL;
    struct err e;
    int rc = 0;

    *list = NULL;
    if (cli_call(PROTO_MSG_RESV_QUERY, req, &reply, &e) < 0) {
        if (errno == ENOENT)
            cli_error("Reservation %s not found", name ? name : "");
        else
            cli_error("%s", e.text);
        rc = -1;
    } else {
        *list = json_incref(json_object_get(reply, "reservations"));
    }
    json_decref(req);
    json_decref(reply);
    return rc;
}

/* "show reservation [NAME]" (argv after "show reservation"). */
int resv_show_run(int argc, char **argv, bool json, bool oneliner)
{
    const char *name = NULL;
    json_t *list, *r;
    size_t i;

    if (argc > 1) {
        cli_error("usage: show reservation [NAME]");
        return 2;
    }
    if (argc == 1)
        name = strncasecmp(argv[0], "ReservationName=", 16) == 0 ? argv[0] + 16
                                                                 : argv[0];
    if (resv_query(name, &list) < 0)
        return 1;
    if (json) {
        json_t *o = json_pack("{s:O}", "reservations", list);
        char *s = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("%s\n", s);
        free(s);
        json_decref(o);
    } else if (json_array_size(list) == 0) {
        printf("No reservations in the system\n");
    } else {
        json_array_foreach(list, i, r) show_one(r, oneliner);
    }
    json_decref(list);
    return 0;
}

/* sinfo -T: one row per reservation. */
int resv_sinfo_run(bool noheader)
{
    json_t *list, *r;
    size_t i;

    if (resv_query(NULL, &list) < 0)
        return 1;
    if (!noheader)
        printf("%-14s %8s %19s %19s %11s %s\n", "RESV_NAME", "STATE",
               "START_TIME", "END_TIME", "DURATION", "NODELIST");
    json_array_foreach(list, i, r)
    {
        char st[32], en[32], dur[TIMEFMT_BUFLEN];
        fmt_time((time_t)jobview_int(r, "start_time", 0), "Unknown", st,
                 sizeof(st));
        fmt_time((time_t)jobview_int(r, "end_time", 0), "Unknown", en,
                 sizeof(en));
        fmt_hms(jobview_int(r, "duration_s", 0), dur, sizeof(dur));
        printf("%-14.14s %8.8s %19.19s %19.19s %11.11s %s\n", nul(r, "name"),
               nul(r, "state"), st, en, dur, nul(r, "nodes"));
    }
    json_decref(list);
    return 0;
}
