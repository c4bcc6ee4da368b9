/*
 * What sluice import-slurm does with each Slurm key that Sluice does not
 * read as it is: left out with the reason, or written with another value.
 * A key Sluice reads under the same name and meaning has no rule here: it
 * is written as it was (conf_cluster_keys and friends say which).
 */
#include <stddef.h>
#include <strings.h>

#include "common/conf.h"
#include "common/conf_import_int.h"
#include "common/conf_int.h"

#define C IMPORT_SCOPE_CLUSTER
#define N IMPORT_SCOPE_NODE
#define P IMPORT_SCOPE_PART
#define G IMPORT_SCOPE_GRES
#define CG IMPORT_SCOPE_CGROUP

#define WHY_LOG                                                                \
    "the daemons log to the journal under systemd (-L FILE in "                \
    "/etc/default/sluicectld or sluiced for a file)"
#define WHY_PID                                                                \
    "the pid files are StateSaveLocation/sluicectld.pid and "                  \
    "SlurmdSpoolDir/sluiced.pid"
#define WHY_DEBUG                                                              \
    "no debug flags or log time formats: SlurmctldDebug and SlurmdDebug set "  \
    "the daemons' log levels, -v gives debug lines"
#define WHY_DBD                                                                \
    "there is no slurmdbd: job history and accounts live in the "              \
    "controller's database"
#define WHY_SCRIPTS                                                            \
    "Sluice runs no prolog, epilog or health check: do that work in the "      \
    "job script, or in a wrapper the jobs call"
#define WHY_TIMING "a Slurm timing or plumbing setting Sluice has no use for"
#define WHY_POWER "no power saving: nodes are never suspended or resumed"
#define WHY_TOPO "no network topology: --switches has no effect"
#define WHY_SPEC                                                               \
    "no core or memory specialization: all of the node goes to jobs"
#define WHY_PROPAGATE                                                          \
    "a job gets the submitting shell's limits only with --propagate; "         \
    "without it, those of sluiced"
#define WHY_SWAP                                                               \
    "swap is all or nothing: ConstrainSwapSpace=yes allows none beyond the "   \
    "RAM limit"
#define WHY_RAM "a job's limit is its allocation times AllowedRAMSpace"
#define WHY_PORT "sluiced opens no port: it connects to the controller"

static const struct import_rule rules[] = {
    /* --- slurm.conf, cluster-wide ---------------------------------- */
    {C, "SlurmctldPort", IMPORT_ACT_DEFAULT, "7817",
     "Sluice's own port, so that Slurm (6817) can go on beside Sluice during "
     "a trial"},
    {C, "SlurmdPort", IMPORT_ACT_DEFAULT, "7818", WHY_PORT},
    {C, "StateSaveLocation", IMPORT_ACT_DEFAULT, "/var/spool/sluice/ctld",
     "the controller's database must not share Slurm's directory"},
    {C, "SlurmdSpoolDir", IMPORT_ACT_DEFAULT, "/var/spool/sluice/d",
     "Sluice's own spool, beside Slurm's"},
    {C, "SlurmdUser", IMPORT_ACT_IGNORE, NULL,
     "sluiced runs as root, to start jobs as their users"},
    {C, "SlurmctldLogFile", IMPORT_ACT_IGNORE, NULL, WHY_LOG},
    {C, "SlurmdLogFile", IMPORT_ACT_IGNORE, NULL, WHY_LOG},
    {C, "SlurmSchedLogFile", IMPORT_ACT_IGNORE, NULL,
     "no scheduler log: sluice explain JOB says why a job waits"},
    {C, "SlurmSchedLogLevel", IMPORT_ACT_IGNORE, NULL,
     "no scheduler log: sluice explain JOB says why a job waits"},
    {C, "SlurmctldPidFile", IMPORT_ACT_IGNORE, NULL, WHY_PID},
    {C, "SlurmdPidFile", IMPORT_ACT_IGNORE, NULL, WHY_PID},
    {C, "DebugFlags", IMPORT_ACT_IGNORE, NULL, WHY_DEBUG},
    {C, "LogTimeFormat", IMPORT_ACT_IGNORE, NULL, WHY_DEBUG},
    {C, "SlurmctldSyslogDebug", IMPORT_ACT_IGNORE, NULL, WHY_LOG},
    {C, "SlurmdSyslogDebug", IMPORT_ACT_IGNORE, NULL, WHY_LOG},
    {C, "CryptoType", IMPORT_ACT_IGNORE, NULL,
     "credentials are AuthType's (auth/munge or auth/key)"},
    {C, "CredType", IMPORT_ACT_IGNORE, NULL,
     "credentials are AuthType's (auth/munge or auth/key)"},
    {C, "AccountingStorageHost", IMPORT_ACT_IGNORE, NULL, WHY_DBD},
    {C, "AccountingStorageBackupHost", IMPORT_ACT_IGNORE, NULL, WHY_DBD},
    {C, "AccountingStoragePort", IMPORT_ACT_IGNORE, NULL, WHY_DBD},
    {C, "AccountingStorageUser", IMPORT_ACT_IGNORE, NULL, WHY_DBD},
    {C, "AccountingStoragePass", IMPORT_ACT_IGNORE, NULL, WHY_DBD},
    {C, "AccountingStorageLoc", IMPORT_ACT_IGNORE, NULL, WHY_DBD},
    {C, "AccountingStoreFlags", IMPORT_ACT_IGNORE, NULL, WHY_DBD},
    {C, "JobCompType", IMPORT_ACT_NONE_OK, "jobcomp/none",
     "no job completion plugin: sacct has every finished job"},
    {C, "JobCompLoc", IMPORT_ACT_IGNORE, NULL,
     "no job completion plugin: sacct has every finished job"},
    {C, "JobCompHost", IMPORT_ACT_IGNORE, NULL,
     "no job completion plugin: sacct has every finished job"},
    {C, "JobCompPort", IMPORT_ACT_IGNORE, NULL,
     "no job completion plugin: sacct has every finished job"},
    {C, "JobCompUser", IMPORT_ACT_IGNORE, NULL,
     "no job completion plugin: sacct has every finished job"},
    {C, "JobCompPass", IMPORT_ACT_IGNORE, NULL,
     "no job completion plugin: sacct has every finished job"},
    {C, "AcctGatherEnergyType", IMPORT_ACT_NONE_OK, "acct_gather_energy/none",
     "no energy accounting (ConsumedEnergy prints 0)"},
    {C, "AcctGatherProfileType", IMPORT_ACT_NONE_OK, "acct_gather_profile/none",
     "no profiling plugin (--profile warns)"},
    {C, "AcctGatherInterconnectType", IMPORT_ACT_NONE_OK,
     "acct_gather_interconnect/none", "no interconnect accounting"},
    {C, "AcctGatherFilesystemType", IMPORT_ACT_NONE_OK,
     "acct_gather_filesystem/none", "no file system accounting"},
    {C, "AcctGatherNodeFreq", IMPORT_ACT_IGNORE, NULL,
     "no energy or profile gathering"},
    {C, "MpiDefault", IMPORT_ACT_NONE_OK, "none",
     "tasks start without an MPI plugin (srun --mpi warns): MPI libraries "
     "that need PMI/PMIx from srun must be started another way"},
    {C, "MpiParams", IMPORT_ACT_IGNORE, NULL, "no MPI plugin"},
    {C, "SwitchType", IMPORT_ACT_NONE_OK, "switch/none",
     "no interconnect switch plugin"},
    {C, "TopologyPlugin", IMPORT_ACT_NONE_OK, "topology/none", WHY_TOPO},
    {C, "TopologyParam", IMPORT_ACT_IGNORE, NULL, WHY_TOPO},
    {C, "RoutePlugin", IMPORT_ACT_IGNORE, NULL, WHY_TIMING},
    {C, "TreeWidth", IMPORT_ACT_IGNORE, NULL, WHY_TIMING},
    {C, "InactiveLimit", IMPORT_ACT_IGNORE, NULL,
     "an allocation ends when salloc's command exits or salloc is gone"},
    {C, "MinJobAge", IMPORT_ACT_IGNORE, NULL,
     "finished jobs stay in squeue -t all and sacct"},
    {C, "Waittime", IMPORT_ACT_IGNORE, NULL, WHY_TIMING},
    {C, "FastSchedule", IMPORT_ACT_IGNORE, NULL,
     "removed from Slurm; SlurmdParameters=config_overrides is kept"},
    {C, "SlurmctldTimeout", IMPORT_ACT_IGNORE, NULL,
     "no backup controller takes over (SlurmctldHost lines after the first "
     "are recorded only)"},
    {C, "BatchStartTimeout", IMPORT_ACT_IGNORE, NULL, WHY_TIMING},
    {C, "CompleteWait", IMPORT_ACT_IGNORE, NULL, WHY_TIMING},
    {C, "EioTimeout", IMPORT_ACT_IGNORE, NULL, WHY_TIMING},
    {C, "GetEnvTimeout", IMPORT_ACT_IGNORE, NULL, WHY_TIMING},
    {C, "TCPTimeout", IMPORT_ACT_IGNORE, NULL, WHY_TIMING},
    {C, "UnkillableStepTimeout", IMPORT_ACT_IGNORE, NULL, WHY_TIMING},
    {C, "OverTimeLimit", IMPORT_ACT_IGNORE, NULL,
     "a job is ended at its time limit (SIGTERM, then SIGKILL after "
     "KillWait)"},
    {C, "ResvOverRun", IMPORT_ACT_IGNORE, NULL, WHY_TIMING},
    {C, "SchedulerTimeSlice", IMPORT_ACT_IGNORE, NULL,
     "no gang time-slicing (GANG only resumes suspended jobs)"},
    {C, "GroupUpdateForce", IMPORT_ACT_IGNORE, NULL,
     "groups are read when checked (sluiced caches them 10 s)"},
    {C, "GroupUpdateTime", IMPORT_ACT_IGNORE, NULL,
     "groups are read when checked (sluiced caches them 10 s)"},
    {C, "TmpFS", IMPORT_ACT_IGNORE, NULL,
     "TmpDisk= of each node says what --tmp is checked against"},
    {C, "ReturnToService", IMPORT_ACT_IGNORE, NULL,
     "a node that stopped answering is back when its sluiced registers "
     "again; a node you set DOWN or DRAIN stays so until scontrol update"},
    {C, "Prolog", IMPORT_ACT_UNMAP, NULL, WHY_SCRIPTS},
    {C, "Epilog", IMPORT_ACT_UNMAP, NULL, WHY_SCRIPTS},
    {C, "PrologSlurmctld", IMPORT_ACT_UNMAP, NULL, WHY_SCRIPTS},
    {C, "EpilogSlurmctld", IMPORT_ACT_UNMAP, NULL, WHY_SCRIPTS},
    {C, "PrologFlags", IMPORT_ACT_UNMAP, NULL, WHY_SCRIPTS},
    {C, "PrologEpilogTimeout", IMPORT_ACT_IGNORE, NULL, WHY_SCRIPTS},
    {C, "TaskProlog", IMPORT_ACT_UNMAP, NULL, WHY_SCRIPTS},
    {C, "TaskEpilog", IMPORT_ACT_UNMAP, NULL, WHY_SCRIPTS},
    {C, "SrunProlog", IMPORT_ACT_UNMAP, NULL, WHY_SCRIPTS},
    {C, "SrunEpilog", IMPORT_ACT_UNMAP, NULL, WHY_SCRIPTS},
    {C, "HealthCheckProgram", IMPORT_ACT_UNMAP, NULL, WHY_SCRIPTS},
    {C, "HealthCheckInterval", IMPORT_ACT_IGNORE, NULL, WHY_SCRIPTS},
    {C, "HealthCheckNodeState", IMPORT_ACT_IGNORE, NULL, WHY_SCRIPTS},
    {C, "RebootProgram", IMPORT_ACT_UNMAP, NULL,
     "nodes are never rebooted by the scheduler (scontrol reboot is not "
     "there)"},
    {C, "SuspendProgram", IMPORT_ACT_UNMAP, NULL, WHY_POWER},
    {C, "ResumeProgram", IMPORT_ACT_UNMAP, NULL, WHY_POWER},
    {C, "SuspendTime", IMPORT_ACT_UNMAP, NULL, WHY_POWER},
    {C, "SuspendTimeout", IMPORT_ACT_IGNORE, NULL, WHY_POWER},
    {C, "ResumeTimeout", IMPORT_ACT_IGNORE, NULL, WHY_POWER},
    {C, "ResumeRate", IMPORT_ACT_IGNORE, NULL, WHY_POWER},
    {C, "SuspendRate", IMPORT_ACT_IGNORE, NULL, WHY_POWER},
    {C, "TaskPluginParam", IMPORT_ACT_UNMAP, NULL,
     "tasks are not bound by a task plugin: ConstrainCores=yes in "
     "cgroup.conf pins each job to its CPUs"},
    {C, "JobSubmitPlugins", IMPORT_ACT_UNMAP, NULL,
     "no job_submit plugins: the site's submission filter (job_submit.lua) "
     "does not run"},
    {C, "CliFilterPlugins", IMPORT_ACT_UNMAP, NULL,
     "no cli_filter plugins: the site's client-side filter does not run"},
    {C, "JobContainerType", IMPORT_ACT_NONE_OK, "job_container/none",
     "no job containers (private /tmp per job): use the job's own "
     "directories"},
    {C, "PlugStackConfig", IMPORT_ACT_UNMAP, NULL,
     "no SPANK plugins: what plugstack.conf loads does not run"},
    {C, "PluginDir", IMPORT_ACT_IGNORE, NULL, "no plugins are loaded"},
    {C, "UsePAM", IMPORT_ACT_UNMAP, NULL,
     "no PAM session is opened for a job (limits come from sluiced, "
     "LimitNOFILE and friends of sluiced.service)"},
    {C, "PropagateResourceLimits", IMPORT_ACT_UNMAP, NULL, WHY_PROPAGATE},
    {C, "PropagateResourceLimitsExcept", IMPORT_ACT_UNMAP, NULL, WHY_PROPAGATE},
    {C, "PropagatePrioProcess", IMPORT_ACT_IGNORE, NULL,
     "jobs run at sluiced's nice value"},
    {C, "SallocDefaultCommand", IMPORT_ACT_UNMAP, NULL,
     "removed in Slurm 21.08: LaunchParameters=use_interactive_step and "
     "InteractiveStepOptions give a shell on the allocated node"},
    {C, "SlurmctldParameters", IMPORT_ACT_UNMAP, NULL,
     "Sluice's controller has none of these options (no configless mode: "
     "each host needs /etc/sluice/sluice.conf)"},
    {C, "MailDomain", IMPORT_ACT_UNMAP, NULL,
     "job mail goes to --mail-user, or to the user's name as it is"},
    {C, "FirstJobId", IMPORT_ACT_UNMAP, NULL,
     "job ids start at 1 on a new controller database"},
    {C, "MaxStepCount", IMPORT_ACT_UNMAP, NULL, "no limit on steps per job"},
    {C, "MaxTasksPerNode", IMPORT_ACT_UNMAP, NULL,
     "no limit on tasks per node beyond its CPUs"},
    {C, "MCSPlugin", IMPORT_ACT_NONE_OK, "mcs/none", "no MCS labels"},
    {C, "X11Parameters", IMPORT_ACT_IGNORE, NULL, "no X11 forwarding"},
    {C, "DefaultStorageType", IMPORT_ACT_IGNORE, NULL, WHY_DBD},
    {C, "DefaultStorageHost", IMPORT_ACT_IGNORE, NULL, WHY_DBD},
    {C, "DefaultStorageLoc", IMPORT_ACT_IGNORE, NULL, WHY_DBD},
    {C, "DefaultStoragePort", IMPORT_ACT_IGNORE, NULL, WHY_DBD},
    {C, "DefaultStorageUser", IMPORT_ACT_IGNORE, NULL, WHY_DBD},
    {C, "DefaultStoragePass", IMPORT_ACT_IGNORE, NULL, WHY_DBD},
    {C, "DownNodes", IMPORT_ACT_UNMAP, NULL,
     "set nodes DOWN with scontrol update NodeName=... State=DOWN once the "
     "controller runs"},
    {C, "NodeSet", IMPORT_ACT_UNMAP, NULL,
     "no node sets: name the nodes in each partition's Nodes="},
    {C, "FrontendName", IMPORT_ACT_UNMAP, NULL, "no front end nodes"},

    /* --- slurm.conf, NodeName= lines ------------------------------- */
    {N, "Port", IMPORT_ACT_DEFAULT, "7818", WHY_PORT},
    {N, "CoreSpecCount", IMPORT_ACT_UNMAP, NULL, WHY_SPEC},
    {N, "CpuSpecList", IMPORT_ACT_UNMAP, NULL, WHY_SPEC},
    {N, "MemSpecLimit", IMPORT_ACT_UNMAP, NULL, WHY_SPEC},
    {N, "Reason", IMPORT_ACT_UNMAP, NULL,
     "a node's reason is set with scontrol update NodeName=... Reason=..."},
    {N, "CpuBind", IMPORT_ACT_UNMAP, NULL, "tasks are not bound to CPUs"},

    /* --- slurm.conf, PartitionName= lines -------------------------- */
    {P, "Hidden", IMPORT_ACT_UNMAP, NULL, "every partition is shown"},
    {P, "RootOnly", IMPORT_ACT_UNMAP, NULL,
     "any user may submit to any partition its Allow*/Deny* lists admit"},
    {P, "AllocNodes", IMPORT_ACT_UNMAP, NULL,
     "jobs may be submitted from any host"},
    {P, "LLN", IMPORT_ACT_UNMAP, NULL,
     "nodes are picked by weight, then best fit"},
    {P, "MaxCPUsPerNode", IMPORT_ACT_UNMAP, NULL,
     "no cap on a partition's CPUs per node"},
    {P, "DisableRootJobs", IMPORT_ACT_UNMAP, NULL, "root may run jobs"},
    {P, "ReqResv", IMPORT_ACT_UNMAP, NULL,
     "jobs need no reservation to use the partition"},
    {P, "CpuBind", IMPORT_ACT_UNMAP, NULL, "tasks are not bound to CPUs"},

    /* --- gres.conf ------------------------------------------------- */
    {G, "Flags", IMPORT_ACT_IGNORE, NULL,
     "a job always gets CUDA_VISIBLE_DEVICES and the SLURM_JOB_GPUS "
     "variables"},
    {G, "MultipleFiles", IMPORT_ACT_UNMAP, NULL,
     "one device file per GPU (File=)"},

    /* --- cgroup.conf ----------------------------------------------- */
    {CG, "CgroupAutomount", IMPORT_ACT_IGNORE, NULL,
     "sluiced uses the cgroup file system that is mounted"},
    {CG, "AllowedSwapSpace", IMPORT_ACT_UNMAP, NULL, WHY_SWAP},
    {CG, "MaxSwapPercent", IMPORT_ACT_UNMAP, NULL, WHY_SWAP},
    {CG, "MaxRAMPercent", IMPORT_ACT_UNMAP, NULL, WHY_RAM},
    {CG, "MinRAMSpace", IMPORT_ACT_UNMAP, NULL, WHY_RAM},
    {CG, "MemorySwappiness", IMPORT_ACT_IGNORE, NULL,
     "the kernel's swappiness applies"},
    {CG, "AllowedKmemSpace", IMPORT_ACT_IGNORE, NULL,
     "kernel memory is counted in the job's memory"},
    {CG, "ConstrainKmemSpace", IMPORT_ACT_IGNORE, NULL,
     "kernel memory is counted in the job's memory"},
    {CG, "MaxKmemPercent", IMPORT_ACT_IGNORE, NULL,
     "kernel memory is counted in the job's memory"},
    {CG, "MinKmemSpace", IMPORT_ACT_IGNORE, NULL,
     "kernel memory is counted in the job's memory"},
    {CG, "IgnoreSystemd", IMPORT_ACT_IGNORE, NULL,
     "sluiced makes its cgroups itself, under /sys/fs/cgroup/sluice"},
    {CG, "IgnoreSystemdOnFailure", IMPORT_ACT_IGNORE, NULL,
     "sluiced makes its cgroups itself, under /sys/fs/cgroup/sluice"},
    {CG, "EnableControllers", IMPORT_ACT_IGNORE, NULL,
     "sluiced enables the controllers it needs"},
    {CG, "SignalChildrenProcesses", IMPORT_ACT_IGNORE, NULL,
     "a job's whole cgroup is signalled when it ends"},
    {0, NULL, IMPORT_ACT_IGNORE, NULL, NULL},
};

/* The keys of gres.conf and cgroup.conf that Sluice reads (gresconf.c and
 * cgroupconf.c keep them in if-chains). */
static const char *const gres_keys[] = {
    "NodeName", "Name",  "Type",  "File",       "Files",
    "Count",    "Cores", "Links", "AutoDetect", NULL,
};
static const char *const cgroup_keys[] = {
    "CgroupPlugin",       "CgroupMountpoint",
    "ConstrainCores",     "ConstrainRAMSpace",
    "ConstrainSwapSpace", "ConstrainDevices",
    "AllowedRAMSpace",    NULL,
};

const struct import_rule *import_rule_find(unsigned scope, const char *key)
{
    for (const struct import_rule *r = rules; r->key != NULL; r++)
        if ((r->scopes & scope) && strcasecmp(r->key, key) == 0)
            return r;
    return NULL;
}

static bool listed(const char *const *list, const char *key)
{
    for (; *list != NULL; list++)
        if (strcasecmp(*list, key) == 0)
            return true;
    return false;
}

bool import_key_known(unsigned scope, const char *key)
{
    switch (scope) {
    case IMPORT_SCOPE_CLUSTER:
        return conf_key_find(conf_cluster_keys, key) != NULL;
    case IMPORT_SCOPE_NODE:
        return conf_key_find(conf_node_keys, key) != NULL;
    case IMPORT_SCOPE_PART:
        return conf_key_find(conf_part_keys, key) != NULL;
    case IMPORT_SCOPE_GRES:
        return listed(gres_keys, key);
    default:
        return listed(cgroup_keys, key);
    }
}

const char *import_unknown_why(unsigned scope)
{
    switch (scope) {
    case IMPORT_SCOPE_NODE:
        return "Sluice has no such NodeName key; check that nothing of the "
               "node depends on it";
    case IMPORT_SCOPE_PART:
        return "Sluice has no such PartitionName key; check that nothing of "
               "the partition depends on it";
    case IMPORT_SCOPE_GRES:
        return "Sluice's gres.conf has no such key";
    case IMPORT_SCOPE_CGROUP:
        return "Sluice's cgroup.conf has no such key";
    default:
        return "Sluice does not read this key; check that nothing of the "
               "cluster depends on it";
    }
}
