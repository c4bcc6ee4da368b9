/*
 * libFuzzer target for the simulator's SWF reader (src/sim/swf.c):
 * whatever parses must map onto a small configuration without crashing,
 * every job getting at least one node and one CPU, a run time that is
 * not negative and a partition of the configuration; a refusal names a
 * line of the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "sim/swf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT 8192

static const char conf_text[] =
    "ClusterName=f\nSlurmctldHost=m\nGresTypes=gpu\n"
    "NodeName=n[1-4] CPUs=16 RealMemory=64000 Gres=gpu:4\n"
    "PartitionName=prod Nodes=n1 MaxTime=INFINITE Priority=100\n"
    "PartitionName=dev Nodes=n[2-4] Default=YES MaxTime=1:00:00\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct conf *conf;
    static struct sim_map map;
    struct sim_swf s;
    struct sim_trace t;
    struct err e;

    if (size > FUZZ_MAX_INPUT)
        return 0;
    if (conf == NULL) {
        conf = conf_parse_string(conf_text, "fuzz.conf", NULL, &e);
        if (conf == NULL || sim_map_parse("0=prod:gpu,1=dev:gpu=2", &map, &e))
            abort();
    }
    if (sim_swf_parse((const char *)data, size, "f.swf", &s, &e) < 0) {
        if (strncmp(e.text, "f.swf:", 6) != 0)
            abort();
        sim_swf_free(&s);
        return 0;
    }
    sim_trace_init(&t, "f.swf");
    if (sim_swf_jobs(&s, conf, &map, 1, &t, &e) < 0)
        abort(); /* the map's partitions exist */
    if (t.n + t.skipped != s.n)
        abort();
    for (size_t i = 0; i < t.n; i++) {
        const struct sim_job_in *j = &t.jobs[i];
        if (j->nodes == 0 || j->cpus_per_node == 0 || j->run_s < 0 ||
            j->limit_s <= 0 || conf_part_find(conf, j->part) == NULL ||
            j->user == NULL)
            abort();
    }
    sim_trace_free(&t);
    sim_swf_free(&s);
    return 0;
}
