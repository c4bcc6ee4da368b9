/*
 * Trackable resources as Slurm writes them ("cpu=4,mem=16G,node=1,
 * billing=4,gres/gpu=4,gres/gpu:a100=4"): the strings of jobs (requested,
 * allocated) and nodes (configured, allocated) in JSON and scontrol.
 */
#ifndef SLUICE_CTLD_TRES_H
#define SLUICE_CTLD_TRES_H

#include <stddef.h>
#include <stdint.h>

struct tres {
    uint64_t cpus;
    uint64_t mem_mib;     /* 0: left out */
    uint64_t nodes;       /* 0: left out (node strings) */
    uint64_t billing;     /* 0: left out */
    uint64_t gpus;        /* 0: left out */
    const char *gpu_type; /* NULL or "": no typed entry */
};

/* tres_format: the string of t into buf (always terminated); returns buf.
 * Memory is in G when a whole number of GiB, else in M, as Slurm does. */
char *tres_format(const struct tres *t, char *buf, size_t len);

#endif
