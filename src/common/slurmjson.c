/*
 * Sluice's JOB, NODE, PART and ACCT_JOB objects in Slurm 22.05's v0.0.38
 * JSON shapes (slurmjson.h).  The field names and types are Slurm's
 * interface; the values come from Sluice's objects as docs/json.md lists.
 */
#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/proto.h"
#include "common/slurmjson.h"
#include "common/slurmjson_int.h"
#include "common/version.h"

/* Slurm's TRES ids: gres/gpu and other gres come after 1000. */
static const struct {
    const char *type;
    int id;
} tres_ids[] = {
    {"cpu", 1},     {"mem", 2},     {"energy", 3}, {"node", 4},
    {"billing", 5}, {"fs/disk", 6}, {"vmem", 7},   {"pages", 8},
};

/* Signal names as Slurm prints them (without "SIG"). */
static const char *const sig_names[] = {
    NULL,     "HUP",  "INT",    "QUIT", "ILL",   "TRAP", "ABRT", "BUS",
    "FPE",    "KILL", "USR1",   "SEGV", "USR2",  "PIPE", "ALRM", "TERM",
    "STKFLT", "CHLD", "CONT",   "STOP", "TSTP",  "TTIN", "TTOU", "URG",
    "XCPU",   "XFSZ", "VTALRM", "PROF", "WINCH", "IO",   "PWR",  "SYS",
};

/* Keys of a JOB that Slurm has no field for: they go under "sluice". */
static const char *const job_sluice_keys[] = {
    "alloc",
    "hold",
    "begin_time",
    "time_limit_s",
    "time_min_s",
    "mem_mib",
    "mem_per_cpu_mib",
    "gres",
    "gpus",
    "gpus_per_node",
    "gpus_per_task",
    "cpus_per_gpu",
    "mem_per_gpu_mib",
    "gpu_alloc",
    "preempted_by",
    "last_checkpoint",
    "no_kill",
    "suspended_s",
    "cancelled_by",
    "warn_signal",
    "warn_time_s",
    "warn_batch",
    "kill_on_invalid_dep",
    "array_task_count",
    "array_task_min",
    "array_task_max",
    "array_task_step",
    "exclusive",
    "oversubscribe",
    "gres_flags",
    "gpu_bind",
    "cpu_bind",
    "hint",
    "distribution",
    "mail_type",
    "mail_user",
    "open_mode",
    "explain",
    "ntasks_per_gpu",
    "spread_job",
    "use_min_nodes",
    "submit_host",
    "events",
    NULL,
};

static const char *const node_sluice_keys[] = {
    "state",         "gpus",          "gpus_alloc",
    "gres_reported", "gres_note",     "connected",
    "last_seen",     "cpus_reported", "mem_reported_mib",
    "jobs",          "mem_alloc_mib", NULL,
};

static const char *const part_sluice_keys[] = {
    "default",   "max_time_s", "default_time_s", "max_nodes",
    "min_nodes", "changed",    "exclusive_user", NULL,
};

/* "gres:gpu:N" from a GPU count string ("2", "a100:2"), or "". */
static json_t *gres_spec(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    if (json_is_integer(v) && json_integer_value(v) > 0)
        return json_sprintf("gres:gpu:%lld", (long long)json_integer_value(v));
    if (json_is_string(v) && json_string_value(v)[0] != '\0')
        return json_sprintf("gres:gpu:%s", json_string_value(v));
    return json_string("");
}

static json_t *sluice_extra(json_t *o, const char *const *keys)
{
    json_t *s = json_object(), *v;

    for (size_t i = 0; keys[i] != NULL; i++)
        if ((v = json_object_get(o, keys[i])) != NULL)
            json_object_set(s, keys[i], v);
    return s;
}

json_t *slurmjson_meta(enum slurmjson_plugin plugin)
{
    bool dbd = plugin == SLURMJSON_DBD;

    return json_pack("{s:{s:s, s:s}, s:{s:{s:i, s:i, s:i}, s:s}, s:{s:s}}",
                     "plugin", "type",
                     dbd ? "openapi/dbv0.0.38" : "openapi/v0.0.38", "name",
                     dbd ? "Slurm OpenAPI DB v0.0.38" : "Slurm OpenAPI v0.0.38",
                     "Slurm", "version", "major", 22, "micro", 0, "minor", 5,
                     "release", "22.05.0", "sluice", "version", SLUICE_VERSION);
}

json_t *slurmjson_response(enum slurmjson_plugin plugin, const char *key,
                           json_t *items)
{
    return json_pack("{s:o, s:[], s:o}", "meta", slurmjson_meta(plugin),
                     "errors", key, items != NULL ? items : json_array());
}

const char *slurmjson_signal_name(int sig)
{
    int n = (int)(sizeof(sig_names) / sizeof(*sig_names));

    return sig > 0 && sig < n ? sig_names[sig] : NULL;
}

json_t *slurmjson_exit_code(int return_code, int signal)
{
    json_t *o = json_object();
    const char *status = signal != 0        ? "SIGNALED"
                         : return_code != 0 ? "FAILED"
                                            : "SUCCESS";

    json_object_set_new(o, "status", json_string(status));
    json_object_set_new(o, "return_code", json_integer(return_code));
    if (signal != 0) {
        const char *name = slurmjson_signal_name(signal);
        json_object_set_new(o, "signal",
                            json_pack("{s:i, s:s}", "signal_id", signal, "name",
                                      name ? name : ""));
    }
    return o;
}

/* One "type=count" of a TRES string as a list entry; NULL when bad. */
static json_t *tres_entry(const char *item, size_t len)
{
    char type[128], *eq, *end;
    long long count, unit = 1;
    int id = 0;

    if (len == 0 || len >= sizeof(type))
        return NULL;
    memcpy(type, item, len);
    type[len] = '\0';
    if ((eq = strchr(type, '=')) == NULL)
        return NULL;
    *eq++ = '\0';
    count = strtoll(eq, &end, 10);
    if (end == eq)
        return NULL;
    switch (toupper((unsigned char)*end)) {
    case 'K':
        count = count / 1024 + (count % 1024 != 0);
        break;
    case 'G':
        unit = 1024;
        break;
    case 'T':
        unit = 1024 * 1024;
        break;
    default:
        break; /* M, or a plain count */
    }
    if (count > LLONG_MAX / unit || count < LLONG_MIN / unit)
        return NULL;
    count *= unit;
    for (size_t i = 0; i < sizeof(tres_ids) / sizeof(*tres_ids); i++)
        if (strcmp(type, tres_ids[i].type) == 0)
            id = tres_ids[i].id;
    if (strncmp(type, "gres/", 5) == 0)
        return json_pack("{s:s, s:s, s:i, s:I}", "type", "gres", "name",
                         type + 5, "id", 1001, "count", (json_int_t)count);
    return json_pack("{s:s, s:s, s:i, s:I}", "type", type, "name", "", "id", id,
                     "count", (json_int_t)count);
}

json_t *slurmjson_tres_list(const char *tres)
{
    json_t *a = json_array(), *e;

    while (tres != NULL && *tres != '\0') {
        size_t len = strcspn(tres, ",");
        if ((e = tres_entry(tres, len)) != NULL)
            json_array_append_new(a, e);
        tres += len;
        if (*tres == ',')
            tres++;
    }
    return a;
}

/* job_resources: the allocation, node by node (CPUs and memory spread
 * evenly, as Sluice allocates them). */
static json_t *job_resources(json_t *job)
{
    const char *nl = str_of(job, "node_list");
    json_int_t cpus = int_of(job, "cpus", 0), mem = int_of(job, "mem_mib", 0);
    json_t *nodes = json_array();
    struct hostlist *hl;
    size_t n = 0;

    if (nl != NULL && (hl = hostlist_expand(nl, NULL)) != NULL) {
        n = hostlist_count(hl);
        for (size_t i = 0; i < n; i++)
            json_array_append_new(nodes,
                                  json_pack("{s:s, s:I, s:I, s:{}}", "nodename",
                                            hostlist_nth(hl, i), "cpus",
                                            cpus / (json_int_t)n, "memory", mem,
                                            "sockets"));
        hostlist_destroy(hl);
    }
    return json_pack("{s:s, s:I, s:I, s:o}", "nodes", nl ? nl : "",
                     "allocated_cores", n ? cpus : 0, "allocated_hosts",
                     (json_int_t)n, "allocated_nodes", nodes);
}

/* Slurm's job exit code: the wait status (code << 8 | signal). */
static json_int_t wait_status(json_t *job)
{
    json_t *ec = json_object_get(job, "exit_code");

    return (int_of(ec, "return_code", 0) & 0xff) << 8 |
           (int_of(ec, "signal", 0) & 0x7f);
}

/* "shared": Slurm's words for --exclusive and --oversubscribe. */
static const char *job_shared(json_t *job)
{
    const char *ex = str_of(job, "exclusive");

    if (ex != NULL)
        return strcmp(ex, "user") == 0 || strcmp(ex, "mcs") == 0 ? ex : "none";
    return json_is_true(json_object_get(job, "oversubscribe")) ? "shared" : "";
}

static void job_times(json_t *o, json_t *job)
{
    json_int_t start = int_of(job, "start_time", 0);
    json_int_t end = int_of(job, "end_time", 0);
    json_int_t limit = int_of(job, "time_limit_s", 0);

    /* Slurm's end_time of a running job is when its limit ends it */
    if (end == 0 && start > 0 && limit > 0)
        end = start + limit;
    json_object_set_new(o, "accrue_time", jint(job, "eligible_time", 0));
    json_object_set_new(o, "eligible_time", jint(job, "eligible_time", 0));
    json_object_set_new(o, "end_time", json_integer(end));
    json_object_set_new(o, "start_time", json_integer(start));
    json_object_set_new(o, "submit_time", jint(job, "submit_time", 0));
    json_object_set_new(o, "suspend_time", jint(job, "suspend_time", 0));
    json_object_set_new(o, "deadline", jint(job, "deadline", 0));
    json_object_set_new(o, "time_limit",
                        limit > 0 ? json_integer(minutes(limit)) : json_null());
    json_object_set_new(o, "time_minimum",
                        json_integer(minutes(int_of(job, "time_min_s", 0))));
}

static void job_array(json_t *o, json_t *job)
{
    json_t *tid = json_object_get(job, "array_task_id");

    json_object_set_new(o, "array_job_id", jint(job, "array_job_id", 0));
    json_object_set_new(o, "array_task_id",
                        json_is_integer(tid) ? json_incref(tid) : json_null());
    json_object_set_new(o, "array_max_tasks", jint(job, "array_max_tasks", 0));
    json_object_set_new(o, "array_task_string", jstr(job, "array_task_str"));
}

static void job_resources_asked(json_t *o, json_t *job)
{
    json_int_t mem = int_of(job, "mem_mib", 0);
    json_int_t mpc = int_of(job, "mem_per_cpu_mib", 0);
    json_int_t mincpus = int_of(job, "mincpus", 0);

    json_object_set_new(o, "billable_tres",
                        json_real((double)int_of(job, "cpus", 0)));
    json_object_set_new(o, "cores_per_socket",
                        jint_or_null(job, "cores_per_socket"));
    json_object_set_new(o, "cpus_per_task", jint(job, "cpus_per_task", 1));
    json_object_set_new(o, "cpus_per_tres", gres_spec(job, "cpus_per_gpu"));
    json_object_set_new(o, "cpus", jint(job, "cpus", 0));
    json_object_set_new(o, "node_count", jint(job, "nodes", 1));
    json_object_set_new(o, "tasks", jint(job, "ntasks", 1));
    json_object_set_new(o, "tasks_per_core", json_null());
    json_object_set_new(o, "tasks_per_node", jint(job, "ntasks_per_node", 0));
    json_object_set_new(o, "tasks_per_socket", json_null());
    json_object_set_new(o, "tasks_per_board", json_integer(0));
    json_object_set_new(o, "memory_per_node",
                        mpc == 0 && mem > 0 ? json_integer(mem) : json_null());
    json_object_set_new(o, "memory_per_cpu",
                        mpc > 0 ? json_integer(mpc) : json_null());
    json_object_set_new(o, "memory_per_tres",
                        gres_spec(job, "mem_per_gpu_mib"));
    json_object_set_new(
        o, "minimum_cpus_per_node",
        json_integer(mincpus > 0 ? mincpus : int_of(job, "cpus_per_task", 1)));
    json_object_set_new(o, "minimum_tmp_disk_per_node",
                        jint(job, "tmp_mib", 0));
    json_object_set_new(o, "sockets_per_board", json_integer(0));
    json_object_set_new(o, "sockets_per_node",
                        jint_or_null(job, "sockets_per_node"));
    json_object_set_new(o, "threads_per_core",
                        jint_or_null(job, "threads_per_core"));
    json_object_set_new(o, "max_cpus", json_integer(0));
    json_object_set_new(o, "max_nodes", json_integer(0));
}

static void job_tres(json_t *o, json_t *job)
{
    const char *bind = str_of(job, "gpu_bind");

    json_object_set_new(o, "tres_bind",
                        bind ? json_sprintf("gres/gpu:%s", bind)
                             : json_string(""));
    json_object_set_new(o, "tres_freq", json_string(""));
    json_object_set_new(o, "tres_per_job", gres_spec(job, "gpus"));
    json_object_set_new(o, "tres_per_node", jstr(job, "tres_per_node"));
    json_object_set_new(o, "tres_per_socket", json_string(""));
    json_object_set_new(o, "tres_per_task", gres_spec(job, "gpus_per_task"));
    json_object_set_new(o, "tres_req_str", jstr(job, "tres_req_str"));
    json_object_set_new(o, "tres_alloc_str", jstr(job, "tres_alloc_str"));
}

/* Strings Sluice does not have: Slurm's empty string. */
static const char *const job_empty_strs[] = {
    "admin_comment",
    "batch_features",
    "burst_buffer",
    "burst_buffer_state",
    "cluster_features",
    "container",
    "federation_origin",
    "federation_siblings_active",
    "federation_siblings_viable",
    "het_job_id_set",
    "licenses",
    "mcs_label",
    "system_comment",
    NULL,
};

json_t *slurmjson_job(json_t *job, const struct slurmjson_ctx *ctx)
{
    json_t *o = json_object(), *gd = json_object_get(job, "gres_detail");
    json_int_t ws = wait_status(job);

#define SET(k, v) json_object_set_new(o, k, v)
    for (size_t i = 0; job_empty_strs[i] != NULL; i++)
        SET(job_empty_strs[i], json_string(""));
    SET("account", jstr(job, "account"));
    job_array(o, job);
    job_times(o, job);
    job_resources_asked(o, job);
    job_tres(o, job);
    SET("association_id", json_integer(0));
    SET("batch_flag", json_boolean(json_object_get(job, "alloc") == NULL));
    SET("batch_host", jstr(job, "batch_host"));
    SET("flags", json_array());
    SET("cluster", json_string(ctx && ctx->cluster ? ctx->cluster : ""));
    SET("command", jstr(job, "command"));
    SET("comment", jstr(job, "comment"));
    SET("contiguous", json_false());
    SET("core_spec", json_null());
    SET("thread_spec", json_null());
    SET("cpu_frequency_minimum", json_null());
    SET("cpu_frequency_maximum", json_null());
    SET("cpu_frequency_governor", json_null());
    SET("delay_boot", json_integer(0));
    SET("dependency", jstr(job, "dependency"));
    SET("derived_exit_code", json_integer(ws));
    SET("exit_code", json_integer(ws));
    SET("excluded_nodes", jstr(job, "exclude"));
    SET("features", jstr(job, "constraint"));
    SET("gres_detail", json_is_array(gd) ? json_incref(gd) : json_array());
    SET("group_id", jint(job, "group_id", 0));
    SET("job_id", jint(job, "job_id", 0));
    SET("job_resources", job_resources(job));
    SET("job_state", jstr(job, "job_state"));
    SET("last_sched_evaluation", json_integer(0));
    SET("name", jstr(job, "name"));
    SET("nodes", jstr(job, "node_list"));
    SET("nice", jint(job, "nice", 0));
    SET("het_job_id", json_integer(0));
    SET("het_job_offset", json_integer(0));
    SET("partition", jstr(job, "partition"));
    SET("preempt_time", json_integer(0));
    SET("pre_sus_time", json_integer(0));
    SET("priority", jint(job, "priority", 0));
    SET("profile", json_array());
    SET("qos", jstr(job, "qos"));
    SET("reboot", json_false());
    SET("required_nodes", jstr(job, "nodelist"));
    SET("requeue", jbool(job, "requeue"));
    SET("resize_time", json_integer(0));
    SET("restart_cnt", jint(job, "restart_count", 0));
    SET("resv_name", jstr(job, "reservation"));
    SET("shared", json_string(job_shared(job)));
    SET("show_flags", json_pack("[ss]", "SHOW_ALL", "SHOW_DETAIL"));
    SET("state_description", jstr(job, "state_description"));
    SET("state_reason", jstr(job, "state_reason"));
    SET("standard_error", jstr(job, "std_err"));
    SET("standard_input", json_string("/dev/null"));
    SET("standard_output", jstr(job, "std_out"));
    SET("user_id", jint(job, "user_id", 0));
    SET("user_name", jstr(job, "user_name"));
    SET("wckey", jstr(job, "wckey"));
    SET("current_working_directory", jstr(job, "work_dir"));
    SET("sluice", sluice_extra(job, job_sluice_keys));
#undef SET
    return o;
}

/* Slurm's lower-case base state and its flags for Sluice's node state. */
static void node_state(json_t *o, json_t *node)
{
    const char *st = str_of(node, "state");
    json_int_t cpus = int_of(node, "cpus", 0);
    json_int_t alloc = int_of(node, "cpus_alloc", 0);
    json_t *flags = json_array();
    const char *base = "unknown";

    if (st == NULL)
        st = "UNKNOWN";
    if (strcmp(st, "IDLE") == 0 || strcmp(st, "DRAIN") == 0)
        base = "idle";
    else if (strcmp(st, "MIXED") == 0)
        base = "mixed";
    else if (strcmp(st, "ALLOCATED") == 0)
        base = "allocated";
    else if (strcmp(st, "DRAINING") == 0)
        base = alloc >= cpus ? "allocated" : "mixed";
    else if (strcmp(st, "DOWN") == 0 || strcmp(st, "INVALID") == 0)
        base = "down";
    if (strncmp(st, "DRAIN", 5) == 0)
        json_array_append_new(flags, json_string("DRAIN"));
    if (strcmp(st, "INVALID") == 0)
        json_array_append_new(flags, json_string("INVALID_REG"));
    json_object_set_new(o, "state", json_string(base));
    json_object_set_new(o, "state_flags", flags);
}

/* The port of "host:port" (or 0). */
static json_int_t addr_port(const char *addr)
{
    const char *colon = addr ? strrchr(addr, ':') : NULL;

    return colon != NULL ? strtoll(colon + 1, NULL, 10) : 0;
}

json_t *slurmjson_node(json_t *node, const struct slurmjson_ctx *ctx)
{
    json_t *o = json_object(), *parts = json_object_get(node, "partitions");
    json_int_t cpus = int_of(node, "cpus", 0);
    json_int_t alloc = int_of(node, "cpus_alloc", 0);
    json_int_t mem = int_of(node, "mem_mib", 0);
    json_int_t mem_alloc = int_of(node, "mem_alloc_mib", 0);
    json_int_t sockets = int_of(node, "sockets", 0);
    const char *feat = str_of(node, "features");
    const char *act = str_of(node, "active_features");

    (void)ctx;
#define SET(k, v) json_object_set_new(o, k, v)
    SET("architecture", json_string(""));
    SET("burstbuffer_network_address", json_string(""));
    SET("boards", jint(node, "boards", 1));
    SET("boot_time", jint(node, "boot_time", 0));
    SET("comment", json_string(""));
    /* without a layout Slurm counts every CPU as a socket of one core */
    SET("cores", jint(node, "cores_per_socket", 1));
    SET("cpu_binding", json_integer(0));
    SET("cpu_load", json_integer(0));
    SET("extra", json_string(""));
    SET("free_memory", json_integer(mem > mem_alloc ? mem - mem_alloc : 0));
    SET("cpus", json_integer(cpus));
    SET("last_busy", json_integer(0));
    SET("features", json_string(feat ? feat : ""));
    SET("active_features", json_string(act ? act : feat ? feat : ""));
    SET("gres", jstr(node, "gres"));
    SET("gres_drained", json_string("N/A"));
    SET("gres_used", jstr(node, "gres_used"));
    SET("mcs_label", json_string(""));
    SET("name", jstr(node, "name"));
    SET("next_state_after_reboot", json_string("invalid"));
    SET("next_state_after_reboot_flags", json_array());
    SET("address", jstr(node, "addr"));
    SET("hostname", jstr(node, "name"));
    node_state(o, node);
    SET("operating_system", json_string(""));
    SET("owner", json_string(""));
    SET("partitions",
        json_is_array(parts) ? json_deep_copy(parts) : json_array());
    SET("port", json_integer(addr_port(str_of(node, "addr"))));
    SET("real_memory", json_integer(mem));
    SET("reason", jstr(node, "reason"));
    SET("reason_changed_at", jint(node, "reason_time", 0));
    SET("reason_set_by_user", jstr(node, "reason_user"));
    SET("slurmd_start_time", jint(node, "boot_time", 0));
    SET("sockets", json_integer(sockets > 0 ? sockets : cpus));
    SET("threads", jint(node, "threads_per_core", 1));
    SET("temporary_disk", jint(node, "tmp_disk_mib", 0));
    SET("weight", jint(node, "weight", 1));
    SET("tres", jstr(node, "tres"));
    SET("slurmd_version", json_string(""));
    SET("alloc_memory", json_integer(mem_alloc));
    SET("alloc_cpus", json_integer(alloc));
    SET("idle_cpus", json_integer(cpus > alloc ? cpus - alloc : 0));
    SET("tres_used", jstr(node, "tres_used"));
    SET("tres_weighted", json_real((double)alloc));
    SET("sluice", sluice_extra(node, node_sluice_keys));
#undef SET
    return o;
}

/* Minutes of a limit in seconds; null (not set) becomes -1 (INFINITE). */
static json_t *part_limit(json_t *part, const char *key, bool infinite)
{
    json_t *v = json_object_get(part, key);

    if (json_is_integer(v) && json_integer_value(v) >= 0)
        return json_integer(minutes(json_integer_value(v)));
    return infinite ? json_integer(-1) : json_null();
}

json_t *slurmjson_partition(json_t *part, const struct slurmjson_ctx *ctx)
{
    json_t *o = json_object(), *flags = json_array();
    json_int_t cpus = int_of(part, "total_cpus", 0);
    json_int_t nodes = int_of(part, "total_nodes", 0);

    (void)ctx;
    if (json_is_true(json_object_get(part, "default")))
        json_array_append_new(flags, json_string("default"));
    if (json_is_true(json_object_get(part, "exclusive_user")))
        json_array_append_new(flags, json_string("exclusive_user"));
#define SET(k, v) json_object_set_new(o, k, v)
    SET("flags", flags);
    SET("preemption_mode", json_pack("[s]", "disabled"));
    SET("allowed_allocation_nodes", json_string(""));
    SET("allowed_accounts", jstr(part, "allow_accounts"));
    SET("allowed_groups", jstr(part, "allow_groups"));
    SET("allowed_qos", jstr(part, "allow_qos"));
    SET("alternative", json_string(""));
    SET("billing_weights", json_string(""));
    SET("default_memory_per_cpu", jint(part, "def_mem_per_cpu_mib", 0));
    SET("default_time_limit", part_limit(part, "default_time_s", false));
    SET("denied_accounts", jstr(part, "deny_accounts"));
    SET("denied_qos", jstr(part, "deny_qos"));
    SET("preemption_grace_time", jint(part, "grace_time_s", 0));
    SET("maximum_cpus_per_node", json_integer(-1));
    SET("maximum_memory_per_node", jint(part, "max_mem_per_node_mib", 0));
    SET("maximum_nodes_per_job", jint(part, "max_nodes", -1));
    SET("max_time_limit", part_limit(part, "max_time_s", true));
    SET("min_nodes_per_job", jint(part, "min_nodes", 0));
    SET("name", jstr(part, "name"));
    SET("nodes", jstr(part, "nodes"));
    SET("over_time_limit", json_null());
    SET("priority_job_factor", jint(part, "priority_job_factor", 1));
    SET("priority_tier", jint(part, "priority_tier", 1));
    SET("qos", jstr(part, "qos"));
    SET("state", jstr(part, "state"));
    SET("total_cpus", json_integer(cpus));
    SET("total_nodes", json_integer(nodes));
    SET("tres", json_sprintf("cpu=%lld,node=%lld,billing=%lld", (long long)cpus,
                             (long long)nodes, (long long)cpus));
    SET("maximum_memory_per_cpu", json_integer(0));
    SET("default_memory_per_node", json_integer(0));
    SET("sluice", sluice_extra(part, part_sluice_keys));
#undef SET
    return o;
}

/* {"seconds", "microseconds"} of a CPU time in microseconds. */
static json_t *cpu_time(json_int_t us)
{
    return json_pack("{s:I, s:I}", "seconds", us / 1000000, "microseconds",
                     us % 1000000);
}

static json_int_t elapsed(json_t *o, time_t now)
{
    json_int_t s = int_of(o, "start_time", 0), e = int_of(o, "end_time", 0);

    if (s <= 0)
        return 0;
    if (e <= 0)
        e = now;
    return e > s ? e - s : 0;
}

/* A step's id as sacct writes it after "JOBID.": "batch", "0". */
static json_t *step_id(json_t *rec)
{
    json_t *v = json_object_get(rec, "step_id");
    const char *id = str_of(rec, "id"), *dot;

    if (json_is_string(v))
        return json_incref(v);
    if (id != NULL && (dot = strchr(id, '.')) != NULL)
        return json_string(dot + 1);
    if (int_of(rec, "step_id", 0) == (json_int_t)STEP_BATCH_ID)
        return json_string("batch");
    if (int_of(rec, "step_id", 0) == (json_int_t)STEP_INTERACTIVE_ID)
        return json_string("interactive");
    return json_sprintf("%lld", (long long)int_of(rec, "step_id", 0));
}

static json_t *acct_step(json_t *job, json_t *rec, time_t now)
{
    json_t *usage = json_object_get(rec, "usage");
    json_int_t user = int_of(usage, "user_cpu_us", 0);
    json_int_t sys = int_of(usage, "sys_cpu_us", 0);
    json_int_t end = int_of(rec, "end_time", 0);
    const char *nodes = str_of(rec, "nodes");

    return json_pack(
        "{s:{s:I, s:I, s:I, s:i, s:o, s:o, s:o}, s:o, s:{s:I, s:s}, s:{s:I},"
        " s:s, s:{s:{s:i, s:i}, s:[]}, s:s, s:o, s:{s:{s:i}, s:{s:i}},"
        " s:{s:I, s:{s:n}, s:o, s:o}, s:{s:s},"
        " s:{s:{s:[], s:[], s:[], s:[]}, s:{s:[], s:[], s:[], s:[]}, s:o},"
        " s:{s:O}}",
        "time", "elapsed", elapsed(rec, now), "end", end > 0 ? end : 0, "start",
        int_of(rec, "start_time", 0), "suspended", 0, "system", cpu_time(sys),
        "total", cpu_time(user + sys), "user", cpu_time(user), "exit_code",
        slurmjson_exit_code((int)int_of(rec, "exit_code", 0),
                            (int)int_of(rec, "signal", 0)),
        "nodes", "count", int_of(rec, "num_nodes", 1), "range",
        nodes ? nodes : "", "tasks", "count", int_of(rec, "ntasks", 1), "pid",
        "", "CPU", "requested_frequency", "min", 0, "max", 0, "governor",
        "kill_request_user", "", "state", jstr(rec, "state"), "statistics",
        "CPU", "actual_frequency", 0, "energy", "consumed", 0, "step", "job_id",
        int_of(job, "job_id", 0), "het", "component", "id", step_id(rec),
        "name", jstr(rec, "name"), "task", "distribution", "Unknown", "tres",
        "requested", "max", "min", "average", "total", "consumed", "max", "min",
        "average", "total", "allocated",
        slurmjson_tres_list(str_of(rec, "tres")), "sluice", "usage",
        json_is_object(usage) ? usage : json_null());
}

/* The job's batch step when the record has no STEP records (older
 * records): the script's run, with the job's times and exit code. */
static json_t *acct_batch(json_t *job, time_t now)
{
    json_t *ec = json_object_get(job, "exit_code");
    const char *st = str_of(job, "job_state");
    json_t *rec, *o;

    /* the script of a job that timed out or was preempted was killed */
    if (st != NULL &&
        (strcmp(st, "TIMEOUT") == 0 || strcmp(st, "PREEMPTED") == 0))
        st = "CANCELLED";
    rec = json_pack(
        "{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:s}", "step_id",
        "batch", "name", "batch", "state", st ? st : "", "start_time",
        int_of(job, "start_time", 0), "end_time", int_of(job, "end_time", 0),
        "exit_code", int_of(ec, "return_code", 0), "signal",
        int_of(ec, "signal", 0), "num_nodes", (json_int_t)1, "ntasks",
        (json_int_t)1, "nodes", str_of(job, "batch_host") ?: "");
    o = acct_step(job, rec, now);
    json_decref(rec);
    return o;
}

static json_t *acct_steps(json_t *job, time_t now)
{
    json_t *steps = json_array(), *recs = json_object_get(job, "steps"), *rec;
    size_t i;

    if (json_is_array(recs)) {
        json_array_foreach(recs, i, rec)
            json_array_append_new(steps, acct_step(job, rec, now));
    } else if (int_of(job, "start_time", 0) > 0 &&
               str_of(job, "node_list") != NULL) {
        json_array_append_new(steps, acct_batch(job, now));
    }
    return steps;
}

/* CPU times of the job: the sum over its steps. */
static json_int_t acct_cpu_us(json_t *job, const char *key)
{
    json_t *recs = json_object_get(job, "steps"), *rec;
    json_int_t us = 0;
    size_t i;

    json_array_foreach(recs, i, rec) us +=
        int_of(json_object_get(rec, "usage"), key, 0);
    return us;
}

static json_t *acct_time(json_t *job, time_t now)
{
    json_int_t user = acct_cpu_us(job, "user_cpu_us");
    json_int_t sys = acct_cpu_us(job, "sys_cpu_us");
    json_int_t limit = int_of(job, "time_limit_s", 0);

    return json_pack(
        "{s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o}", "elapsed",
        elapsed(job, now), "eligible", int_of(job, "eligible_time", 0), "end",
        int_of(job, "end_time", 0), "start", int_of(job, "start_time", 0),
        "submission", int_of(job, "submit_time", 0), "suspended",
        int_of(job, "suspended_s", 0), "system", cpu_time(sys), "total",
        cpu_time(user + sys), "user", cpu_time(user), "limit",
        limit > 0 ? json_integer(minutes(limit)) : json_null());
}

/* Who cancelled it, by name when it was its owner (else ""). */
static json_t *kill_user(json_t *job)
{
    json_t *by = json_object_get(job, "cancelled_by");

    if (json_is_integer(by) &&
        json_integer_value(by) == int_of(job, "user_id", -1))
        return jstr(job, "user_name");
    return json_string("");
}

json_t *slurmjson_acct_job(json_t *job, const struct slurmjson_ctx *ctx)
{
    const char *cluster = ctx && ctx->cluster ? ctx->cluster : "";
    const char *nl = str_of(job, "node_list");
    json_t *ec = json_object_get(job, "exit_code"), *tid, *o, *s;
    json_int_t mem = int_of(job, "mem_mib", 0);
    int rc = (int)int_of(ec, "return_code", 0),
        sig = (int)int_of(ec, "signal", 0);
    time_t now = ctx ? ctx->now : 0;

    tid = json_object_get(job, "array_task_id");
    o = json_pack(
        "{s:o, s:{s:s, s:o, s:s}, s:I, s:{s:I, s:{s:{s:{s:I}}}, s:o, s:O},"
        " s:o, s:{s:o, s:s, s:o, s:o}, s:s, s:o, s:s, s:o, s:o, s:[], s:s,"
        " s:{s:i, s:i}, s:I, s:o, s:{s:s}, s:s, s:o, s:I, s:o,"
        " s:{s:I, s:I}, s:o, s:{s:i, s:o}, s:{s:o, s:o}}",
        "account", jstr(job, "account"), "comment", "administrator", "", "job",
        jstr(job, "comment"), "system", "", "allocation_nodes",
        int_of(job, "nodes", 1), "array", "job_id",
        int_of(job, "array_job_id", 0), "limits", "max", "running", "tasks",
        int_of(job, "array_max_tasks", 0), "task", jstr(job, "array_task_str"),
        "task_id", json_is_integer(tid) ? tid : json_null(), "time",
        acct_time(job, now), "association", "account", jstr(job, "account"),
        "cluster", cluster, "partition", jstr(job, "partition"), "user",
        jstr(job, "user_name"), "cluster", cluster, "constraints",
        jstr(job, "constraint"), "container", "", "derived_exit_code",
        slurmjson_exit_code(rc, sig), "exit_code", slurmjson_exit_code(rc, sig),
        "flags", "group", "", "het", "job_id", 0, "job_offset", 0, "job_id",
        int_of(job, "job_id", 0), "name", jstr(job, "name"), "mcs", "label", "",
        "nodes", nl ? nl : "None assigned", "partition", jstr(job, "partition"),
        "priority", int_of(job, "priority", 0), "qos", jstr(job, "qos"),
        "required", "CPUs", int_of(job, "cpus", 0), "memory",
        mem > 0 ? mem : int_of(job, "mem_per_cpu_mib", 0), "kill_request_user",
        kill_user(job), "reservation", "id", 0, "name",
        jstr(job, "reservation"), "state", "current", jstr(job, "job_state"),
        "reason", jstr(job, "state_reason"));
    json_object_set_new(o, "steps", acct_steps(job, now));
    json_object_set_new(
        o, "tres",
        json_pack("{s:o, s:o}", "allocated",
                  slurmjson_tres_list(str_of(job, "tres_alloc_str")),
                  "requested",
                  slurmjson_tres_list(str_of(job, "tres_req_str"))));
    json_object_set_new(o, "user", jstr(job, "user_name"));
    json_object_set_new(
        o, "wckey",
        json_pack("{s:o, s:[]}", "wckey", jstr(job, "wckey"), "flags"));
    json_object_set_new(o, "working_directory", jstr(job, "work_dir"));
    s = sluice_extra(job, job_sluice_keys);
    json_object_set_new(s, "restart_count", jint(job, "restart_count", 0));
    json_object_set_new(o, "sluice", s);
    return o;
}
