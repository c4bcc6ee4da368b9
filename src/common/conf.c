/*
 * Loading a configuration: cluster-wide keys and their defaults, the
 * dispatch of each logical line to the cluster, node or partition parser,
 * and the load/parse/destroy entry points.  A failed load returns nothing
 * and leaves nothing behind; the caller's current conf stays as it was.
 */
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/conf_int.h"
#include "common/proto.h"
#include "common/timefmt.h"
#include "common/value.h"
#include "common/xalloc.h"

static const struct conf_enum auth_names[] = {
    {"auth/munge", CONF_AUTH_MUNGE},
    {"auth/key", CONF_AUTH_KEY},
    {NULL, 0},
};

static const struct conf_enum metrics_auth_names[] = {
    {"none", CONF_METRICS_AUTH_NONE},
    {"token", CONF_METRICS_AUTH_TOKEN},
    {NULL, 0},
};

static const struct conf_enum debug_names[] = {
    {"quiet", CONF_DEBUG_QUIET},
    {"fatal", CONF_DEBUG_FATAL},
    {"error", CONF_DEBUG_ERROR},
    {"info", CONF_DEBUG_INFO},
    {"verbose", CONF_DEBUG_VERBOSE},
    {"debug", CONF_DEBUG_DEBUG},
    {"debug2", CONF_DEBUG_DEBUG2},
    {"debug3", CONF_DEBUG_DEBUG3},
    {"debug4", CONF_DEBUG_DEBUG4},
    {"debug5", CONF_DEBUG_DEBUG5},
    {NULL, 0},
};

const char *conf_debug_name(enum conf_debug d)
{
    return conf_enum_name(debug_names, (int)d);
}

int conf_debug_parse(const char *s, enum conf_debug *out, struct err *e)
{
    struct err why;
    int v;

    /* Slurm's numbers are the table's order: 0 quiet .. 9 debug5 */
    if (s[0] >= '0' && s[0] <= '9' && s[1] == '\0') {
        *out = (enum conf_debug)debug_names[s[0] - '0'].value;
        return 0;
    }
    if (conf_enum_parse(debug_names, s, &v, &why) < 0)
        return err_inval(e, "invalid debug level '%.64s': %s (or 0-9)", s,
                         why.text);
    *out = (enum conf_debug)v;
    return 0;
}

static const struct conf_enum enforce_names[] = {
    {"NO", CONF_ENFORCE_NO},
    {"ANY", CONF_ENFORCE_ANY},
    {"ALL", CONF_ENFORCE_ALL},
    {"YES", CONF_ENFORCE_ANY},
    {NULL, 0},
};

static const struct conf_enum sched_names[] = {
    {"sched/backfill", CONF_SCHED_BACKFILL},
    {"sched/builtin", CONF_SCHED_BUILTIN},
    {NULL, 0},
};

static const struct conf_enum priority_names[] = {
    {"priority/basic", CONF_PRIORITY_BASIC},
    {"priority/multifactor", CONF_PRIORITY_MULTIFACTOR},
    {NULL, 0},
};

static const struct conf_enum reset_names[] = {
    {"NONE", CONF_RESET_NONE},       {"NOW", CONF_RESET_NOW},
    {"DAILY", CONF_RESET_DAILY},     {"WEEKLY", CONF_RESET_WEEKLY},
    {"MONTHLY", CONF_RESET_MONTHLY}, {"QUARTERLY", CONF_RESET_QUARTERLY},
    {"YEARLY", CONF_RESET_YEARLY},   {NULL, 0},
};

#define HOST_CHARS                                                             \
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_"

/* SlurmctldHost=master or master(10.0.0.1); each line adds one host. */
static int parse_ctld_host(void *ctx, void *obj, const char *val, struct err *e)
{
    struct conf *c = obj;
    size_t hlen = strspn(val, HOST_CHARS), alen = 0;
    struct conf_ctld_host h;

    (void)ctx;
    if (val[hlen] == '(') {
        alen = strspn(val + hlen + 1, HOST_CHARS ":");
        if (alen == 0 || strcmp(val + hlen + 1 + alen, ")") != 0)
            hlen = 0;
    } else if (val[hlen] != '\0') {
        hlen = 0;
    }
    if (hlen == 0)
        return err_set(e, "expected HOST or HOST(ADDRESS), with letters, "
                          "digits, '.', '-' or '_'");
    h.host = xstrndup(val, hlen);
    h.addr = alen ? xstrndup(val + hlen + 1, alen) : xstrdup("");
    c->ctld_hosts = xreallocarray(c->ctld_hosts, c->n_ctld_hosts + 1,
                                  sizeof(*c->ctld_hosts));
    c->ctld_hosts[c->n_ctld_hosts++] = h;
    return 0;
}

static void print_ctld_host(const void *obj, FILE *fp, const char *pre,
                            const char *suf)
{
    const struct conf *c = obj;

    for (size_t i = 0; i < c->n_ctld_hosts; i++) {
        fprintf(fp, "%sSlurmctldHost=%s", pre, c->ctld_hosts[i].host);
        if (c->ctld_hosts[i].addr[0] != '\0')
            fprintf(fp, "(%s)", c->ctld_hosts[i].addr);
        fputs(suf, fp);
    }
}

static json_t *json_ctld_host(const void *obj)
{
    const struct conf *c = obj;
    json_t *a = json_array();

    for (size_t i = 0; i < c->n_ctld_hosts; i++)
        json_array_append_new(a, json_pack("{s:s, s:s}", "host",
                                           c->ctld_hosts[i].host, "addr",
                                           c->ctld_hosts[i].addr));
    return a;
}

/* SlurmdParameters: a comma list; config_overrides is the one Sluice
 * acts on (the node's detected CPUs and memory win over the config). */
static int parse_slurmd_params(void *ctx, void *obj, const char *val,
                               struct err *e)
{
    struct conf *c = obj;

    (void)ctx;
    (void)e;
    free(c->slurmd_parameters);
    c->slurmd_parameters = xstrdup(val);
    c->slurmd_config_overrides = conf_list_has(val, "config_overrides");
    return 0;
}

static void print_slurmd_params(const void *obj, FILE *fp, const char *pre,
                                const char *suf)
{
    const struct conf *c = obj;

    if (c->slurmd_parameters[0] == '\0')
        return;
    fprintf(fp, "%sSlurmdParameters=", pre);
    conf_print_value(fp, c->slurmd_parameters);
    fputs(suf, fp);
}

static json_t *json_slurmd_params(const void *obj)
{
    return json_string(((const struct conf *)obj)->slurmd_parameters);
}

/* LaunchParameters: a comma list kept as written; use_interactive_step
 * is the value Sluice acts on (salloc's default command), Slurm's others
 * are accepted and ignored. */
static int parse_launch_params(void *ctx, void *obj, const char *val,
                               struct err *e)
{
    struct conf *c = obj;

    (void)ctx;
    (void)e;
    free(c->launch_parameters);
    c->launch_parameters = xstrdup(val);
    c->use_interactive_step = conf_list_has(val, "use_interactive_step");
    return 0;
}

static void print_launch_params(const void *obj, FILE *fp, const char *pre,
                                const char *suf)
{
    const struct conf *c = obj;

    if (c->launch_parameters[0] == '\0')
        return;
    fprintf(fp, "%sLaunchParameters=", pre);
    conf_print_value(fp, c->launch_parameters);
    fputs(suf, fp);
}

static json_t *json_launch_params(const void *obj)
{
    return json_string(((const struct conf *)obj)->launch_parameters);
}

const char *conf_interactive_step_options(const struct conf *c)
{
    return c->interactive_step_options[0] != '\0'
               ? c->interactive_step_options
               : CONF_INTERACTIVE_STEP_DEFAULT;
}

/* JobAcctGatherFrequency: "30" or Slurm's list "task=30,energy=0,...",
 * of which the task period is what sluiced uses (its STEP_USAGE period;
 * 0: no sampling).  The value is kept as written for the print. */
static int parse_acct_freq(void *ctx, void *obj, const char *val, struct err *e)
{
    struct conf *c = obj;
    const char *task = strstr(val, "task=");
    const char *num = task != NULL ? task + 5 : val;
    char *end;
    long v;

    (void)ctx;
    if (task == NULL && strchr(val, '=') != NULL) {
        free(c->job_acct_gather_freq);
        c->job_acct_gather_freq = xstrdup(val);
        return 0; /* other kinds only: the task period stays */
    }
    v = strtol(num, &end, 10);
    if (end == num || (*end != '\0' && *end != ',') || v < 0 || v > 86400) {
        errno = EINVAL;
        return err_set(e, "expected seconds 0..86400 or task=SECONDS");
    }
    c->job_acct_gather_freq_s = (uint32_t)v;
    free(c->job_acct_gather_freq);
    c->job_acct_gather_freq = xstrdup(val);
    return 0;
}

static void print_acct_freq(const void *obj, FILE *fp, const char *pre,
                            const char *suf)
{
    const struct conf *c = obj;

    if (c->job_acct_gather_freq[0] == '\0')
        return;
    fprintf(fp, "%sJobAcctGatherFrequency=", pre);
    conf_print_value(fp, c->job_acct_gather_freq);
    fputs(suf, fp);
}

static json_t *json_acct_freq(const void *obj)
{
    return json_integer(((const struct conf *)obj)->job_acct_gather_freq_s);
}

/* SchedulerParameters: a comma list kept as written (the scheduler reads
 * its bf_* keys); max_script_size=BYTES is read here, as Slurm does: the
 * largest batch script the controller accepts (default 4 MiB, at most
 * the 16 MiB frame a request rides in). */
static int parse_sched_params(void *ctx, void *obj, const char *val,
                              struct err *e)
{
    static const char key[] = "max_script_size=";
    struct conf *c = obj;
    uint64_t size = CONF_MAX_SCRIPT_SIZE;

    (void)ctx;
    for (const char *p = val; *p != '\0';) {
        size_t len = strcspn(p, ",");
        if (len >= sizeof(key) - 1 && strncmp(p, key, sizeof(key) - 1) == 0) {
            char num[32];
            size_t n = len - (sizeof(key) - 1);
            snprintf(num, sizeof(num), "%.*s", (int)n, p + sizeof(key) - 1);
            if (n >= sizeof(num) ||
                value_parse_u64(num, 1, PROTO_MAX_BODY, &size, NULL) < 0)
                return err_inval(e,
                                 "SchedulerParameters: max_script_size=%.*s: "
                                 "want bytes from 1 to %u",
                                 (int)n, p + sizeof(key) - 1, PROTO_MAX_BODY);
        }
        p += len + (p[len] == ',');
    }
    free(c->scheduler_parameters);
    c->scheduler_parameters = xstrdup(val);
    c->max_script_size = (uint32_t)size;
    return 0;
}

static void print_sched_params(const void *obj, FILE *fp, const char *pre,
                               const char *suf)
{
    const struct conf *c = obj;

    if (c->scheduler_parameters[0] == '\0')
        return;
    fprintf(fp, "%sSchedulerParameters=", pre);
    conf_print_value(fp, c->scheduler_parameters);
    fputs(suf, fp);
}

static json_t *json_sched_params(const void *obj)
{
    return json_string(((const struct conf *)obj)->scheduler_parameters);
}

/* SluiceStateMinFree: a size (64M, 1G, 0), kept in MiB; printed only
 * when it is not the default, as the other Sluice keys are. */
static int parse_state_min_free(void *ctx, void *obj, const char *val,
                                struct err *e)
{
    (void)ctx;
    if (value_parse_mem_mib(
            val, &((struct conf *)obj)->sluice_state_min_free_mib, e) < 0)
        return err_set(e, "expected a size with an optional K, M, G or T "
                          "suffix (64M, 1G; 0: no check)");
    return 0;
}

static void print_state_min_free(const void *obj, FILE *fp, const char *pre,
                                 const char *suf)
{
    uint64_t mib = ((const struct conf *)obj)->sluice_state_min_free_mib;

    if (mib != CONF_STATE_MIN_FREE_MIB)
        fprintf(fp, "%sSluiceStateMinFree=%lluM%s", pre,
                (unsigned long long)mib, suf);
}

static json_t *json_state_min_free(const void *obj)
{
    return json_integer(
        (json_int_t)((const struct conf *)obj)->sluice_state_min_free_mib);
}

/* SluiceDaemonNice: -20..19; printed only when it is not the default. */
static int parse_daemon_nice(void *ctx, void *obj, const char *val,
                             struct err *e)
{
    bool neg = val[0] == '-';
    uint64_t v;

    (void)ctx;
    if (value_parse_u64(val + neg, 0, neg ? 20 : 19, &v, e) < 0)
        return err_set(e, "expected a nice value from -20 to 19 (0: the "
                          "daemons' CPU weight is left as it is)");
    ((struct conf *)obj)->sluice_daemon_nice = neg ? -(int)v : (int)v;
    return 0;
}

static void print_daemon_nice(const void *obj, FILE *fp, const char *pre,
                              const char *suf)
{
    int nice = ((const struct conf *)obj)->sluice_daemon_nice;

    if (nice != CONF_DAEMON_NICE)
        fprintf(fp, "%sSluiceDaemonNice=%d%s", pre, nice, suf);
}

static json_t *json_daemon_nice(const void *obj)
{
    return json_integer(((const struct conf *)obj)->sluice_daemon_nice);
}

static int parse_preempt_mode(void *ctx, void *obj, const char *val,
                              struct err *e)
{
    (void)ctx;
    return conf_preempt_parse(val, &((struct conf *)obj)->preempt_mode, e);
}

static void print_preempt_mode(const void *obj, FILE *fp, const char *pre,
                               const char *suf)
{
    char buf[64];

    fprintf(fp, "%sPreemptMode=%s%s", pre,
            conf_preempt_format(&((const struct conf *)obj)->preempt_mode, buf,
                                sizeof(buf)),
            suf);
}

static json_t *json_preempt_mode(const void *obj)
{
    char buf[64];

    return json_string(conf_preempt_format(
        &((const struct conf *)obj)->preempt_mode, buf, sizeof(buf)));
}

#define OFF(f) offsetof(struct conf, f)
#define K_STR(n, j, f, fl)                                                     \
    {                                                                          \
        .name = n, .json = j, .kind = CK_STR, .off = OFF(f), .flags = fl       \
    }
#define K_INT(k, n, j, f, lo, hi)                                              \
    {                                                                          \
        .name = n, .json = j, .kind = k, .off = OFF(f), .min = lo, .max = hi   \
    }
#define K_KIND(k, n, j, f)                                                     \
    {                                                                          \
        .name = n, .json = j, .kind = k, .off = OFF(f)                         \
    }
#define K_MEM(n, j, f)                                                         \
    {                                                                          \
        .name = n, .json = j, .kind = CK_MEM, .off = OFF(f),                   \
        .flags = CKF_OMIT_ZERO                                                 \
    }
#define K_ENUM(n, j, f, tab)                                                   \
    {                                                                          \
        .name = n, .json = j, .kind = CK_ENUM, .off = OFF(f), .enums = tab     \
    }
#define K_CUSTOM(n, j, p, pr, js, fl)                                          \
    {                                                                          \
        .name = n, .json = j, .kind = CK_CUSTOM, .parse = p, .print = pr,      \
        .to_json = js, .flags = fl                                             \
    }

/* The cluster-wide keys, in the order of the canonical print. */
const struct conf_key conf_cluster_keys[] = {
    K_STR("ClusterName", "cluster_name", cluster_name, 0),
    K_CUSTOM("SlurmctldHost", "slurmctld_hosts", parse_ctld_host,
             print_ctld_host, json_ctld_host, 0),
    K_CUSTOM("ControlMachine", NULL, parse_ctld_host, NULL, NULL, CKF_NOPRINT),
    K_INT(CK_U16, "SlurmctldPort", "slurmctld_port", slurmctld_port, 1, 65535),
    K_INT(CK_U16, "SlurmdPort", "slurmd_port", slurmd_port, 1, 65535),
    K_STR("StateSaveLocation", "state_save_location", state_save_location, 0),
    K_STR("SlurmdSpoolDir", "slurmd_spool_dir", slurmd_spool_dir, 0),
    K_STR("SlurmUser", "slurm_user", slurm_user, CKF_OMIT_EMPTY),
    K_ENUM("AuthType", "auth_type", auth_type, auth_names),
    K_STR("AuthInfo", "auth_info", auth_info, CKF_OMIT_EMPTY),
    K_STR("AuthAltTypes", "auth_alt_types", auth_alt_types, CKF_OMIT_EMPTY),
    K_STR("AuthAltParameters", "auth_alt_parameters", auth_alt_parameters,
          CKF_OMIT_EMPTY),
    K_STR("SluiceRestAddr", "sluice_rest_addr", sluice_rest_addr,
          CKF_OMIT_EMPTY),
    K_STR("SluiceRestTLSCert", "sluice_rest_tls_cert", sluice_rest_tls_cert,
          CKF_OMIT_EMPTY),
    K_STR("SluiceRestTLSKey", "sluice_rest_tls_key", sluice_rest_tls_key,
          CKF_OMIT_EMPTY),
    {.name = "SluiceMetricsAuth",
     .json = "sluice_metrics_auth",
     .kind = CK_ENUM,
     .off = OFF(sluice_metrics_auth),
     .enums = metrics_auth_names,
     .flags = CKF_OMIT_ZERO},
    K_CUSTOM("SluiceStateMinFree", "sluice_state_min_free_mib",
             parse_state_min_free, print_state_min_free, json_state_min_free,
             0),
    K_CUSTOM("SluiceDaemonNice", "sluice_daemon_nice", parse_daemon_nice,
             print_daemon_nice, json_daemon_nice, 0),
    {.name = "SlurmctldDebug",
     .json = "slurmctld_debug",
     .kind = CK_ENUM,
     .off = OFF(slurmctld_debug),
     .enums = debug_names,
     .flags = CKF_OMIT_ZERO},
    {.name = "SlurmdDebug",
     .json = "slurmd_debug",
     .kind = CK_ENUM,
     .off = OFF(slurmd_debug),
     .enums = debug_names,
     .flags = CKF_OMIT_ZERO},
    K_INT(CK_U32, "SlurmdTimeout", "slurmd_timeout_s", slurmd_timeout_s, 0,
          31536000),
    K_INT(CK_U32, "KillWait", "kill_wait_s", kill_wait_s, 0, 65535),
    K_INT(CK_U32, "MessageTimeout", "message_timeout_s", message_timeout_s, 1,
          3600),
    K_STR("GresTypes", "gres_types", gres_types, CKF_OMIT_EMPTY),
    K_STR("SelectType", "select_type", select_type, 0),
    K_STR("SelectTypeParameters", "select_type_parameters",
          select_type_parameters, CKF_OMIT_EMPTY),
    K_STR("ProctrackType", "proctrack_type", proctrack_type, 0),
    K_STR("TaskPlugin", "task_plugin", task_plugin, 0),
    K_ENUM("EnforcePartLimits", "enforce_part_limits", enforce_part_limits,
           enforce_names),
    K_INT(CK_U32, "MaxJobCount", "max_job_count", max_job_count, 1,
          UINT32_MAX - 1),
    K_INT(CK_U32, "MaxArraySize", "max_array_size", max_array_size, 0, 4000001),
    K_KIND(CK_BOOL01, "JobRequeue", "job_requeue", job_requeue),
    K_MEM("DefMemPerCPU", "def_mem_per_cpu_mib", mem.def_per_cpu_mib),
    K_MEM("DefMemPerGPU", "def_mem_per_gpu_mib", mem.def_per_gpu_mib),
    K_MEM("DefMemPerNode", "def_mem_per_node_mib", mem.def_per_node_mib),
    K_MEM("MaxMemPerCPU", "max_mem_per_cpu_mib", mem.max_per_cpu_mib),
    K_MEM("MaxMemPerNode", "max_mem_per_node_mib", mem.max_per_node_mib),
    K_CUSTOM("SlurmdParameters", "slurmd_parameters", parse_slurmd_params,
             print_slurmd_params, json_slurmd_params, 0),
    K_CUSTOM("LaunchParameters", "launch_parameters", parse_launch_params,
             print_launch_params, json_launch_params, 0),
    K_STR("InteractiveStepOptions", "interactive_step_options",
          interactive_step_options, CKF_OMIT_EMPTY),
    K_ENUM("SchedulerType", "scheduler_type", scheduler_type, sched_names),
    K_CUSTOM("SchedulerParameters", "scheduler_parameters", parse_sched_params,
             print_sched_params, json_sched_params, 0),
    K_ENUM("PriorityType", "priority_type", priority_type, priority_names),
    K_INT(CK_U32, "PriorityWeightAge", "priority_weight_age",
          priority_weight_age, 0, UINT32_MAX),
    K_INT(CK_U32, "PriorityWeightFairshare", "priority_weight_fairshare",
          priority_weight_fairshare, 0, UINT32_MAX),
    K_INT(CK_U32, "PriorityWeightJobSize", "priority_weight_job_size",
          priority_weight_job_size, 0, UINT32_MAX),
    K_INT(CK_U32, "PriorityWeightPartition", "priority_weight_partition",
          priority_weight_partition, 0, UINT32_MAX),
    K_INT(CK_U32, "PriorityWeightQOS", "priority_weight_qos",
          priority_weight_qos, 0, UINT32_MAX),
    K_STR("PriorityWeightTRES", "priority_weight_tres", priority_weight_tres,
          CKF_OMIT_EMPTY),
    K_KIND(CK_TIME, "PriorityMaxAge", "priority_max_age_s", priority_max_age_s),
    K_KIND(CK_TIME, "PriorityCalcPeriod", "priority_calc_period_s",
           priority_calc_period_s),
    K_KIND(CK_TIME, "PriorityDecayHalfLife", "priority_decay_half_life_s",
           priority_decay_half_life_s),
    K_ENUM("PriorityUsageResetPeriod", "priority_usage_reset_period",
           priority_usage_reset_period, reset_names),
    K_KIND(CK_BOOL, "PriorityFavorSmall", "priority_favor_small",
           priority_favor_small),
    K_STR("PriorityFlags", "priority_flags", priority_flags, CKF_OMIT_EMPTY),
    K_ENUM("PreemptType", "preempt_type", preempt_type,
           conf_preempt_type_names),
    K_CUSTOM("PreemptMode", "preempt_mode", parse_preempt_mode,
             print_preempt_mode, json_preempt_mode, 0),
    K_KIND(CK_TIME, "PreemptExemptTime", "preempt_exempt_time_s",
           preempt_exempt_time_s),
    K_STR("PreemptParameters", "preempt_parameters", preempt_parameters,
          CKF_OMIT_EMPTY),
    K_STR("AccountingStorageType", "accounting_storage_type",
          accounting_storage_type, 0),
    K_STR("AccountingStorageEnforce", "accounting_storage_enforce",
          accounting_storage_enforce, CKF_OMIT_EMPTY),
    K_STR("AccountingStorageTRES", "accounting_storage_tres",
          accounting_storage_tres, CKF_OMIT_EMPTY),
    K_STR("MailProg", "mail_prog", mail_prog, CKF_OMIT_EMPTY),
    K_STR("JobAcctGatherType", "job_acct_gather_type", job_acct_gather_type, 0),
    K_CUSTOM("JobAcctGatherFrequency", "job_acct_gather_frequency_s",
             parse_acct_freq, print_acct_freq, json_acct_freq, 0),
    {.name = NULL},
};

/* Slurm keys that Sluice reads past with a gentler warning. */
static const char *const slurm_only_keys[] = {
    "SlurmdUser",
    "SlurmctldLogFile",
    "SlurmdLogFile",
    "SlurmctldPidFile",
    "SlurmdPidFile",
    "ReturnToService",
    "MpiDefault",
    "SwitchType",
    "InactiveLimit",
    "MinJobAge",
    "Waittime",
    "FastSchedule",
    "JobCompType",
    "SlurmctldTimeout",
    "AccountingStorageHost",
    "AccountingStoragePort",
    "CryptoType",
    "SchedulerTimeSlice",
    NULL,
};

int conf_slurm_user_uid(const struct conf *c, uid_t *uid, struct err *e)
{
    struct passwd pw, *found = NULL;
    char buf[4096];
    int rc;

    *uid = (uid_t)-1;
    if (c->slurm_user[0] == '\0')
        return 0;
    rc = getpwnam_r(c->slurm_user, &pw, buf, sizeof(buf), &found);
    if (found == NULL) {
        errno = rc ? rc : ENOENT;
        return err_set(e, "SlurmUser=%s: no such user on this host%s%s",
                       c->slurm_user, rc ? ": " : "", rc ? strerror(rc) : "");
    }
    *uid = pw.pw_uid;
    return 0;
}

bool conf_list_has(const char *list, const char *item)
{
    size_t n = strlen(item);

    for (const char *p = list; *p != '\0';) {
        size_t len = strcspn(p, ",");
        if (len == n && strncasecmp(p, item, n) == 0)
            return true;
        p += len;
        if (*p == ',')
            p++;
    }
    return false;
}

void conf_diag_at(const struct conf *c, enum conf_severity sev,
                  const struct conf_loc *loc, const char *fmt, ...)
{
    char *text;
    va_list ap;

    va_start(ap, fmt);
    if (vasprintf(&text, fmt, ap) < 0)
        text = NULL;
    va_end(ap);
    conf_diag_add(c->priv->diag, sev, loc ? loc->file : c->path,
                  loc ? loc->line : 0, loc ? loc->col : 0, "%s",
                  text ? text : "(out of memory)");
    free(text);
}

static void conf_cluster_key(struct conf *c, const char *file,
                             const struct conf_pair *p)
{
    const struct conf_key *k = conf_key_find(conf_cluster_keys, p->key);
    struct conf_loc loc = {file, p->line, p->col}, *prev;
    struct err e;
    bool multi;

    if (k == NULL) {
        if (strcasecmp(p->key, "SallocDefaultCommand") == 0) {
            conf_diag_at(c, CONF_WARNING, &loc,
                         "SallocDefaultCommand was removed in Slurm 21.08 "
                         "and is not read; use "
                         "LaunchParameters=use_interactive_step (and "
                         "InteractiveStepOptions) for a shell on the "
                         "allocated node");
            return;
        }
        for (size_t i = 0; slurm_only_keys[i] != NULL; i++)
            if (strcasecmp(slurm_only_keys[i], p->key) == 0) {
                conf_diag_at(c, CONF_WARNING, &loc,
                             "Slurm key '%s' is not used by Sluice; ignored",
                             slurm_only_keys[i]);
                return;
            }
        conf_diag_at(c, CONF_WARNING, &loc, "unknown key '%.64s' ignored",
                     p->key);
        return;
    }
    if (k->parse == parse_ctld_host) /* ControlMachine is an alias */
        k = conf_key_find(conf_cluster_keys, "SlurmctldHost");
    if (conf_key_set(k, c, c, p->value, &e) < 0) {
        conf_diag_at(c, CONF_ERROR, &loc, "%s", e.text);
        return;
    }
    prev = &c->priv->cluster_loc[k - conf_cluster_keys];
    multi = k->parse == parse_ctld_host; /* each line adds a host */
    if (prev->line > 0 && !multi)
        conf_diag_at(c, CONF_WARNING, &loc,
                     "%s was already set at %s:%d; this value replaces it",
                     k->name, prev->file, prev->line);
    if (prev->line == 0 || !multi)
        *prev = loc;
}

static void conf_on_line(void *arg, const struct conf_line *ln)
{
    struct conf *c = arg;
    const char *first = ln->pairs[0].key;

    if (strcasecmp(first, "NodeName") == 0) {
        conf_node_line(c, ln);
        return;
    }
    if (strcasecmp(first, "PartitionName") == 0) {
        conf_part_line(c, ln);
        return;
    }
    for (size_t i = 1; i < ln->n; i++) {
        const struct conf_pair *p = &ln->pairs[i];
        if (strcasecmp(p->key, "NodeName") == 0 ||
            strcasecmp(p->key, "PartitionName") == 0) {
            struct conf_loc loc = {ln->file, p->line, p->col};
            conf_diag_at(c, CONF_ERROR, &loc,
                         "%s= must begin its line (it starts a new "
                         "definition)",
                         strcasecmp(p->key, "NodeName") ? "PartitionName"
                                                        : "NodeName");
            return;
        }
    }
    for (size_t i = 0; i < ln->n; i++)
        conf_cluster_key(c, ln->file, &ln->pairs[i]);
}

static struct conf *conf_new(const char *path)
{
    struct conf *c = xcalloc(1, sizeof(*c));
    size_t nkeys = 0;

    while (conf_cluster_keys[nkeys].name != NULL)
        nkeys++;
    c->priv = xcalloc(1, sizeof(*c->priv));
    c->priv->cluster_loc = xcalloc(nkeys, sizeof(struct conf_loc));
    c->path = xstrdup(path);
    c->cluster_name = xstrdup("");
    c->slurmctld_port = CONF_SLURMCTLD_PORT;
    c->slurmd_port = CONF_SLURMD_PORT;
    c->state_save_location = xstrdup("/var/spool/sluice/ctld");
    c->slurmd_spool_dir = xstrdup("/var/spool/sluice/d");
    c->slurm_user = xstrdup("");
    c->auth_type = CONF_AUTH_MUNGE;
    c->auth_info = xstrdup("");
    c->auth_alt_types = xstrdup("");
    c->auth_alt_parameters = xstrdup("");
    c->sluice_rest_addr = xstrdup("");
    c->sluice_rest_tls_cert = xstrdup("");
    c->sluice_rest_tls_key = xstrdup("");
    c->sluice_state_min_free_mib = CONF_STATE_MIN_FREE_MIB;
    c->sluice_daemon_nice = CONF_DAEMON_NICE;
    c->slurmd_timeout_s = 300;
    c->kill_wait_s = 30;
    c->message_timeout_s = 10;
    c->gres_types = xstrdup("");
    c->select_type = xstrdup("select/cons_tres");
    c->select_type_parameters = xstrdup("");
    c->proctrack_type = xstrdup("proctrack/cgroup");
    c->task_plugin = xstrdup("task/none");
    c->enforce_part_limits = CONF_ENFORCE_NO;
    c->max_job_count = 10000;
    c->max_array_size = 1001;
    c->job_requeue = true;
    c->slurmd_parameters = xstrdup("");
    c->launch_parameters = xstrdup("");
    c->interactive_step_options = xstrdup("");
    c->scheduler_type = CONF_SCHED_BACKFILL;
    c->scheduler_parameters = xstrdup("");
    c->max_script_size = CONF_MAX_SCRIPT_SIZE;
    c->priority_type = CONF_PRIORITY_BASIC;
    c->priority_weight_tres = xstrdup("");
    c->priority_max_age_s = 7 * 86400;
    c->priority_calc_period_s = 5 * 60;
    c->priority_decay_half_life_s = 7 * 86400;
    c->priority_flags = xstrdup("");
    c->preempt_type = CONF_PREEMPT_NONE;
    c->preempt_mode.mode = CONF_PREEMPT_MODE_OFF;
    c->preempt_parameters = xstrdup("");
    c->accounting_storage_type = xstrdup("accounting_storage/none");
    c->accounting_storage_enforce = xstrdup("");
    c->accounting_storage_tres = xstrdup("");
    c->mail_prog = xstrdup(""); /* "": CONF_MAIL_PROG_DEFAULT */
    c->job_acct_gather_type = xstrdup("jobacct_gather/none");
    c->job_acct_gather_freq = xstrdup("");
    c->job_acct_gather_freq_s = 30;
    conf_node_tmpl_init(&c->priv->node_default);
    conf_part_tmpl_init(&c->priv->part_default);
    return c;
}

static void conf_free_strings(struct conf *c)
{
    for (const struct conf_key *k = conf_cluster_keys; k->name; k++)
        if (k->kind == CK_STR)
            free(*(char **)((char *)c + k->off));
    free(c->slurmd_parameters);
    free(c->launch_parameters);
    free(c->job_acct_gather_freq);
    free(c->scheduler_parameters); /* a custom key (max_script_size) */
    for (size_t i = 0; i < c->n_ctld_hosts; i++) {
        free(c->ctld_hosts[i].host);
        free(c->ctld_hosts[i].addr);
    }
    free(c->ctld_hosts);
}

void conf_destroy(struct conf *c)
{
    int saved = errno;

    if (c == NULL)
        return;
    conf_free_strings(c);
    for (size_t i = 0; i < c->n_nodes; i++)
        conf_node_free(&c->nodes[i]);
    free(c->nodes);
    for (size_t i = 0; i < c->n_parts; i++)
        conf_part_free(&c->parts[i]);
    free(c->parts);
    conf_node_tmpl_free(&c->priv->node_default);
    conf_part_tmpl_free(&c->priv->part_default);
    for (size_t i = 0; i < c->priv->n_gres_pool; i++)
        free(c->priv->gres_pool[i]);
    free(c->priv->gres_pool);
    free(c->priv->node_index);
    free(c->priv->cluster_loc);
    conf_strs_free(&c->priv->names);
    free(c->priv);
    free(c->path);
    free(c);
    errno = saved;
}

/* The first error of this parse, as one line, into e. */
static void conf_first_error(const struct conf_diag *d, size_t from,
                             size_t n_errors, struct err *e)
{
    char buf[1024];

    for (size_t i = from; i < d->n; i++) {
        const struct conf_diag_item *it = &d->items[i];
        if (it->severity != CONF_ERROR)
            continue;
        if (it->line > 0 && it->col > 0)
            snprintf(buf, sizeof(buf), "%s:%d:%d: %s", it->file, it->line,
                     it->col, it->text);
        else if (it->line > 0)
            snprintf(buf, sizeof(buf), "%s:%d: %s", it->file, it->line,
                     it->text);
        else
            snprintf(buf, sizeof(buf), "%s: %s", it->file, it->text);
        if (n_errors > 1)
            err_set(e, "%s (and %zu more errors)", buf, n_errors - 1);
        else
            err_set(e, "%s", buf);
        return;
    }
}

static struct conf *conf_run(const char *path, const char *text,
                             struct conf_diag *diag, struct err *e)
{
    struct conf_diag local;
    struct conf_diag *d = diag ? diag : &local;
    struct conf *c = conf_new(path);
    struct conf_lex lx = {.diag = d, .fn = conf_on_line, .arg = c};
    size_t errs0, first;
    int saved = EINVAL;

    conf_diag_init(&local);
    errs0 = d->n_errors;
    first = d->n;
    c->priv->diag = d;
    lx.names = &c->priv->names;
    if (text == NULL) {
        if (conf_lex_file(&lx, path, NULL) < 0) {
            saved = errno;
            goto error;
        }
    } else {
        conf_lex_text(&lx, text, strlen(text), path);
    }
    if (d->n_errors == errs0)
        conf_check(c);
    if (d->n_errors != errs0)
        goto error;
    c->priv->diag = NULL;
    conf_diag_free(&local);
    return c;
error:
    conf_first_error(d, first, d->n_errors - errs0, e);
    conf_destroy(c);
    conf_diag_free(&local);
    errno = saved;
    return NULL;
}

struct conf *conf_load(const char *path, struct conf_diag *diag, struct err *e)
{
    return conf_run(path, NULL, diag, e);
}

struct conf *conf_parse_string(const char *text, const char *name,
                               struct conf_diag *diag, struct err *e)
{
    return conf_run(name, text, diag, e);
}

const struct conf_part *conf_part_find(const struct conf *c, const char *name)
{
    for (size_t i = 0; i < c->n_parts; i++)
        if (strcmp(c->parts[i].name, name) == 0)
            return &c->parts[i];
    return NULL;
}

const struct conf_part *conf_part_default(const struct conf *c)
{
    for (size_t i = 0; i < c->n_parts; i++)
        if (c->parts[i].is_default)
            return &c->parts[i];
    return NULL;
}

const struct conf_node *conf_node_find(const struct conf *c, const char *name)
{
    long i = conf_node_lookup(c, name);

    return i < 0 ? NULL : &c->nodes[i];
}
