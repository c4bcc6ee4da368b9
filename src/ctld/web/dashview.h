/*
 * The dashboard's views of the cluster (docs/rest-sluice.md), shaped from
 * the objects the RPCs answer (NODE, PART, JOB, ACCT_JOB of
 * docs/protocol.md): which job holds each GPU, each partition's load,
 * the queue with each job's preemptions.  Pure: JSON in, JSON out, so the
 * unit tests check them without a controller.
 */
#ifndef SLUICE_CTLD_DASHVIEW_H
#define SLUICE_CTLD_DASHVIEW_H

#include <stdint.h>

#include <jansson.h>

/*
 * dashview_holds_gpus: whether a job in state (a JOB's job_state) holds
 * its GPUs: RUNNING, COMPLETING and SUSPENDED (a suspended job keeps its
 * GPUs, docs/preemption.md).
 */
int dashview_holds_gpus(const char *state);

/*
 * dashview_job_gpus: the GPUs of a JOB in all: its allocation (gpu_alloc)
 * once it has one, else what it asks for (gres/gpu=N of tres_req_str);
 * 0 without GPUs.
 */
int64_t dashview_job_gpus(json_t *job);

/*
 * dashview_cluster: the GPU map and the partitions' load, a new reference:
 * {"nodes": [{"name", "state", "reason", "partitions", "connected",
 *   "cpus", "cpus_alloc", "mem_mib", "mem_alloc_mib", "gpus_total",
 *   "gpus_busy", "gpus": [{"index", "type", "busy", "job_id",
 *   "user_name", "partition", "job_state"}]}],
 *  "partitions": [{"name", "state", "default", "priority_tier", "nodes",
 *   "total_nodes", "total_cpus", "gpus_total", "gpus_busy",
 *   "gpus_alloc", "cpus_alloc", "jobs_running", "jobs_suspended",
 *   "jobs_pending", "gpus_pending"}],
 *  "totals": {"nodes", "nodes_available", "gpus_total", "gpus_busy",
 *   "jobs_running", "jobs_suspended", "jobs_pending"}}
 * from nodes (NODE objects), parts (PART objects) and jobs (JOB objects;
 * those holding GPUs fill the map, pending ones count as waiting).  A
 * GPU the node lists as allocated but no given job holds is busy with
 * job_id null.  The arguments are borrowed.
 */
json_t *dashview_cluster(json_t *nodes, json_t *parts, json_t *jobs);

/*
 * dashview_preemptions: from ACCT_JOB objects with their events, the
 * preemptions each job suffered, a new object {"ID": {"preemptions": N,
 * "last_by": preemptor id or null, "last_time": T}} naming only jobs
 * preempted at least once.
 */
json_t *dashview_preemptions(json_t *acct_jobs);

/*
 * dashview_queue: jobs (JOB objects) as the queue's rows, a new array:
 * {"job_id", "array_job_id", "array_task_id", "array_task_str", "name",
 *  "user_name", "account", "qos", "partition", "job_state",
 *  "state_reason", "state_description", "priority", "submit_time",
 *  "start_time", "end_time", "time_limit_s", "node_list", "num_nodes",
 *  "cpus", "gpus", "gpu_alloc", "tres_per_node", "restart_count",
 *  "hold", "dependency", "preemptions", "last_preempted_by"}:
 * preemptions from preempted (dashview_preemptions; may be NULL), the
 * last preemptor from the JOB's preempted_by, else from preempted.
 * Borrowed.
 */
json_t *dashview_queue(json_t *jobs, json_t *preempted);

/*
 * dashview_add_pending: n pending jobs asking for gpus GPUs in all, of
 * partition part (a name), into dashview_cluster's totals and into the
 * partition of parts (its "partitions" array) that has that name.
 */
void dashview_add_pending(json_t *totals, json_t *parts, const char *part,
                          json_int_t n, json_int_t gpus);

#endif
