/*
 * sacctmgr / sluice acctmgr: add|create, modify|update, delete|remove and
 * show|list of qos, accounts, users, associations and clusters in Slurm's
 * syntax ("add qos prod_qos Priority=1000", "modify user where
 * name=zhangsan set qos+=dev_qos").  Changes are shown first (a dry run
 * on the controller) and committed after "y" unless -i is given.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/acctmgr.h"
#include "cli/cli.h"
#include "cli/client.h"
#include "common/proto.h"
#include "common/xalloc.h"

#define PROMPT_SECS 30

enum verb { V_ADD, V_MODIFY, V_DELETE, V_SHOW };

struct mgr {
    bool immediate, json;
    struct acctmgr_out out;
    enum verb verb;
    const char *entity;
    const char *format;
    json_t *names, *where, *set;
};

static void usage(FILE *fp)
{
    fprintf(fp, "Usage: sacctmgr [-i] [-n] [-p|-P] [--json] COMMAND ENTITY "
                "[SPECS]\n"
                "  COMMAND: add|create, modify|update, delete|remove, "
                "show|list\n"
                "  ENTITY:  qos, account, user, association, cluster\n"
                "  e.g.  sacctmgr add qos prod_qos Priority=1000\n"
                "        sacctmgr modify user where name=zhangsan set "
                "qos+=dev_qos DefaultQOS=dev_qos\n"
                "        sacctmgr show qos format=Name,Priority\n");
}

enum {
    M_IMMEDIATE = 1,
    M_PARSABLE2,
    M_PARSABLE,
    M_NOHEADER,
    M_JSON,
    M_QUIET,
    M_ASSOC,
    M_HELP,
};

static const struct opt_def mgr_opts[] = {
    {"immediate", 'i', OPT_NOARG, M_IMMEDIATE},
    {"parsable2", 'P', OPT_NOARG, M_PARSABLE2},
    {"parsable", 'p', OPT_NOARG, M_PARSABLE},
    {"noheader", 'n', OPT_NOARG, M_NOHEADER},
    {"json", 0, OPT_NOARG, M_JSON},
    {"quiet", 'Q', OPT_NOARG, M_QUIET},
    {"readonly", 'r', OPT_NOARG, M_QUIET},
    {"associations", 's', OPT_NOARG, M_ASSOC},
    {"help", 'h', OPT_NOARG, M_HELP},
    {NULL, 0, OPT_NOARG, 0},
};

static void option(struct mgr *m, int id)
{
    switch (id) {
    case M_IMMEDIATE:
        m->immediate = true;
        break;
    case M_PARSABLE2:
        m->out.parsable2 = true;
        break;
    case M_PARSABLE:
        m->out.parsable = true;
        break;
    case M_NOHEADER:
        m->out.noheader = true;
        break;
    case M_JSON:
        m->json = true;
        break;
    case M_ASSOC:
        m->out.withassoc = true;
        break;
    }
}

static int verb_of(const char *w, enum verb *v)
{
    if (strcasecmp(w, "add") == 0 || strcasecmp(w, "create") == 0)
        *v = V_ADD;
    else if (strcasecmp(w, "modify") == 0 || strcasecmp(w, "update") == 0)
        *v = V_MODIFY;
    else if (strcasecmp(w, "delete") == 0 || strcasecmp(w, "remove") == 0)
        *v = V_DELETE;
    else if (strcasecmp(w, "show") == 0 || strcasecmp(w, "list") == 0)
        *v = V_SHOW;
    else
        return -1;
    return 0;
}

static void add_names(json_t *names, const char *list)
{
    char *copy = xstrdup(list), *save = NULL, *it;

    for (it = strtok_r(copy, ",", &save); it; it = strtok_r(NULL, ",", &save))
        json_array_append_new(names, json_string(it));
    free(copy);
}

/* "Key=V", "Key+=V", "Key-=V" into key/op/value; -1 without '='. */
static int split_kv(const char *w, char *key, size_t klen, const char **op,
                    const char **val)
{
    const char *eq = strchr(w, '=');
    size_t n;

    if (eq == NULL || eq == w)
        return -1;
    n = (size_t)(eq - w);
    *op = "=";
    if (w[n - 1] == '+' || w[n - 1] == '-') {
        *op = w[n - 1] == '+' ? "+=" : "-=";
        n--;
    }
    if (n == 0 || n >= klen)
        return -1;
    memcpy(key, w, n);
    key[n] = '\0';
    *val = eq + 1;
    return 0;
}

static bool is_name_key(const char *key)
{
    return strcasecmp(key, "name") == 0 || strcasecmp(key, "names") == 0;
}

/* One SPEC word; in_set: after "set" (modify). */
static int spec(struct mgr *m, const char *w, bool in_set)
{
    char key[128];
    const char *op, *val;

    if (split_kv(w, key, sizeof(key), &op, &val) < 0) {
        /* "list user x withassoc", "show assoc tree": flags, not names */
        if (m->verb == V_SHOW && acctmgr_flag_word(w, &m->out))
            return 0;
        if (strchr(w, '=') != NULL) {
            cli_error("bad specification \"%s\": expected KEY=VALUE", w);
            return -1;
        }
        if (m->verb == V_ADD)
            add_names(m->names, w);
        else if (in_set) {
            cli_error("bad specification \"%s\" after set: expected "
                      "KEY=VALUE",
                      w);
            return -1;
        } else
            json_object_set_new(m->where, "Name", json_string(w));
        return 0;
    }
    if (m->verb == V_SHOW && strcasecmp(key, "format") == 0) {
        m->format = val;
        return 0;
    }
    if (m->verb == V_ADD && is_name_key(key) && strcmp(op, "=") == 0) {
        add_names(m->names, val);
        return 0;
    }
    if (in_set || m->verb == V_ADD) {
        json_array_append_new(m->set, json_pack("{s:s, s:s, s:s}", "key", key,
                                                "op", op, "value", val));
        return 0;
    }
    if (strcmp(op, "=") != 0) {
        cli_error("bad condition \"%s\": conditions take KEY=VALUE", w);
        return -1;
    }
    json_object_set_new(m->where, key, json_string(val));
    return 0;
}

/* The words after the options: COMMAND ENTITY [SPECS]. */
static int parse_words(struct mgr *m, int n, char **w)
{
    bool in_set = false;

    if (n < 2) {
        usage(stderr);
        return -1;
    }
    if (verb_of(w[0], &m->verb) < 0) {
        cli_error("Unknown command: %s", w[0]);
        return -1;
    }
    m->entity = acctmgr_entity(w[1]);
    if (m->entity == NULL) {
        cli_error("Unknown entity: %s (qos, account, user, association, "
                  "cluster, tres, events)",
                  w[1]);
        return -1;
    }
    if (m->verb != V_SHOW &&
        (strcmp(m->entity, "tres") == 0 || strcmp(m->entity, "events") == 0)) {
        cli_error("%s %s: only show/list is possible", w[0], w[1]);
        return -1;
    }
    for (int i = 2; i < n; i++) {
        if (strcasecmp(w[i], "where") == 0 && m->verb != V_ADD)
            continue;
        if (strcasecmp(w[i], "set") == 0 && m->verb == V_MODIFY) {
            in_set = true;
            continue;
        }
        if (spec(m, w[i], in_set) < 0)
            return -1;
    }
    if (m->verb == V_MODIFY && json_array_size(m->set) == 0) {
        cli_error("modify %s: nothing to set (use: modify %s where ... set "
                  "KEY=VALUE)",
                  m->entity, m->entity);
        return -1;
    }
    return 0;
}

/* "dump [CLUSTER] [file=F]" and "load [file=]F"; 1 when w is neither. */
static int dump_load(int n, char **w)
{
    const char *file = NULL, *cluster = NULL;
    bool dump = strcasecmp(w[0], "dump") == 0;
    struct err e;

    if (!dump && strcasecmp(w[0], "load") != 0)
        return 1;
    for (int i = 1; i < n; i++) {
        if (strncasecmp(w[i], "file=", 5) == 0)
            file = w[i] + 5;
        else if (dump && cluster == NULL && strchr(w[i], '=') == NULL)
            cluster = w[i];
        else if (!dump && file == NULL && strchr(w[i], '=') == NULL)
            file = w[i];
        else if (strncasecmp(w[i], "cluster=", 8) == 0)
            cluster = w[i] + 8;
        else {
            cli_error("%s: unknown specification \"%s\"", w[0], w[i]);
            return -1;
        }
    }
    if (!dump && file == NULL) {
        cli_error("load: no file given (load file=FILE)");
        return -1;
    }
    if ((dump ? acctmgr_dump(cluster, file, &e) : acctmgr_load(file, &e)) < 0) {
        cli_error("%s", e.text);
        return -1;
    }
    return 0;
}

/* Options anywhere (sacctmgr -i add ..., sacctmgr show qos -P), then the
 * words in order. */
static int parse(struct mgr *m, int argc, char **argv)
{
    struct opt_state st;
    const char *arg;
    struct err e;
    int id, rc;

    opt_init(&st, argc, argv, 1, true);
    while ((rc = opt_next(&st, mgr_opts, &id, &arg, &e)) > 0) {
        if (id == M_HELP) {
            usage(stdout);
            opt_free(&st);
            exit(0);
        }
        option(m, id);
    }
    if (rc < 0)
        return cli_opt_end(&st, rc, &e);
    if (st.n_operands > 0 &&
        (rc = dump_load(st.n_operands, st.operands)) <= 0) {
        opt_free(&st);
        return rc < 0 ? -1 : 2; /* done */
    }
    rc = parse_words(m, st.n_operands, st.operands);
    opt_free(&st);
    return rc;
}

static json_t *request(const struct mgr *m, bool dry_run)
{
    json_t *req = json_pack("{s:s, s:O, s:b}", "entity", m->entity, "where",
                            m->where, "dry_run", dry_run);

    if (m->verb == V_ADD)
        json_object_set(req, "names", m->names);
    if (m->verb == V_ADD || m->verb == V_MODIFY)
        json_object_set(req, "set", m->set);
    return req;
}

static uint16_t msg_type(enum verb v)
{
    switch (v) {
    case V_ADD:
        return PROTO_MSG_ACCT_ADD;
    case V_MODIFY:
        return PROTO_MSG_ACCT_MODIFY;
    case V_DELETE:
        return PROTO_MSG_ACCT_DELETE;
    case V_SHOW:
        break;
    }
    return PROTO_MSG_ACCT_LIST;
}

static void print_changes(json_t *reply)
{
    json_t *v;
    size_t i;

    json_array_foreach(json_object_get(reply, "notes"), i, v)
    {
        fprintf(stderr, "%s: %s\n", cli_prog(), json_string_value(v));
    }
    json_array_foreach(json_object_get(reply, "changes"), i, v)
    {
        printf("%s\n", json_string_value(v));
    }
    fflush(stdout);
}

/* Slurm's question; a terminal gets PROMPT_SECS to answer, other input is
 * read as it comes (EOF: no). */
static bool confirm(void)
{
    char line[64];
    struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};

    printf("Would you like to commit changes? (You have %d seconds to "
           "decide)\n(N/y): ",
           PROMPT_SECS);
    fflush(stdout);
    if (isatty(STDIN_FILENO) && poll(&pfd, 1, PROMPT_SECS * 1000) <= 0) {
        printf("\n");
        return false;
    }
    if (fgets(line, sizeof(line), stdin) == NULL) {
        printf("\n");
        return false;
    }
    if (!isatty(STDIN_FILENO))
        printf("%s", line[0] && strchr(line, '\n') ? line : "\n");
    return line[0] == 'y' || line[0] == 'Y';
}

static int change(struct mgr *m)
{
    json_t *req = request(m, !m->immediate), *reply = NULL;
    struct err e;
    int rc = 1;

    if (cli_call(msg_type(m->verb), req, &reply, &e) < 0) {
        cli_error("%s", e.text);
        goto out;
    }
    print_changes(reply);
    if (!m->immediate) {
        if (!confirm()) {
            printf(" Changes Discarded\n");
            rc = 0;
            goto out;
        }
        json_decref(req);
        json_decref(reply);
        reply = NULL;
        req = request(m, false);
        if (cli_call(msg_type(m->verb), req, &reply, &e) < 0) {
            cli_error("%s", e.text);
            goto out;
        }
    }
    rc = 0;
out:
    json_decref(req);
    json_decref(reply);
    return rc;
}

/* "list user|account withassoc": the rows of their associations (a
 * second ACCT_LIST); "show assoc tree": the tree order.  reply changes. */
static int show_rows(struct mgr *m, json_t *reply, struct err *e)
{
    const char *key = strcmp(m->entity, "user") == 0 ? "users" : "accounts";
    json_t *req, *assocs = NULL;

    if (m->out.tree && strcmp(m->entity, "association") == 0)
        json_object_set_new(
            reply, "associations",
            acctmgr_tree(json_object_get(reply, "associations")));
    if (!m->out.withassoc ||
        (strcmp(m->entity, "user") != 0 && strcmp(m->entity, "account") != 0))
        return 0;
    req = json_pack("{s:s, s:{}}", "entity", "association", "where");
    if (cli_call(PROTO_MSG_ACCT_LIST, req, &assocs, e) < 0) {
        json_decref(req);
        return -1;
    }
    json_object_set_new(
        reply, key,
        acctmgr_with_assoc(m->entity, json_object_get(reply, key),
                           json_object_get(assocs, "associations"), m->where));
    json_decref(req);
    json_decref(assocs);
    return 0;
}

static int show(struct mgr *m)
{
    json_t *req = request(m, false), *reply = NULL;
    struct err e;
    int rc = 1;

    cli_set_raw(m->json); /* exact JSON out */
    if (strcmp(m->entity, "tres") == 0) {
        json_decref(req);
        if (acctmgr_print_tres(m->format, &m->out, &e) < 0) {
            cli_error("%s", e.text);
            return 1;
        }
        return 0;
    }
    if (cli_call(PROTO_MSG_ACCT_LIST, req, &reply, &e) < 0 ||
        (!m->json && show_rows(m, reply, &e) < 0)) {
        cli_error("%s", e.text);
        goto out;
    }
    if (m->json) {
        char *s = json_dumps(reply, JSON_INDENT(2));
        printf("%s\n", s ? s : "{}");
        free(s);
        rc = 0;
    } else if (acctmgr_print(m->entity, reply, m->format, &m->out, &e) < 0) {
        cli_error("%s", e.text);
    } else {
        rc = 0;
    }
out:
    json_decref(req);
    json_decref(reply);
    return rc;
}

int cmd_acctmgr(int argc, char **argv)
{
    struct mgr m = {0};
    int rc;

    cli_set_prog(argv[0]);
    m.names = json_array();
    m.where = json_object();
    m.set = json_array();
    rc = parse(&m, argc, argv);
    if (rc == 2)
        rc = 0; /* dump or load, done */
    else if (rc < 0)
        rc = 1;
    else if (m.verb == V_SHOW)
        rc = show(&m);
    else
        rc = change(&m);
    json_decref(m.names);
    json_decref(m.where);
    json_decref(m.set);
    cli_close();
    return rc;
}
