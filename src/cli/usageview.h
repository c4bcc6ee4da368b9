/*
 * The usage fields that sacct and sstat share (MaxRSS, AveCPU, TotalCPU,
 * MaxDiskRead, TRESUsageInAve, ...): Slurm's names and widths, and the
 * values of a STEP's "usage" object (docs/protocol.md, "Steps") printed
 * as Slurm prints them: memory in KiB units ("204800K" -> "200M" only when
 * exact), CPU times as "MM:SS.mmm" or "[D-]HH:MM:SS", disk in megabytes.
 */
#ifndef SLUICE_CLI_USAGEVIEW_H
#define SLUICE_CLI_USAGEVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* What one usage value is computed from. */
struct usageview_src {
    json_t *usage;    /* a STEP's "usage" object (borrowed; NULL: none) */
    long long ntasks; /* the step's tasks, for the TRESUsage*Tot totals */
    bool noconvert;   /* --noconvert: memory "1348K" and disk bytes "5125"
                       * as measured, never converted to a larger unit */
};

/* usageview_field: the index of a field name (any case), or of the first
 * field it begins with (4 letters or more, as "tresusageinmaxn" in Slurm's
 * own lists); -1 when none. */
int usageview_field(const char *name);
/* usageview_name / usageview_width: Slurm's name and default width. */
const char *usageview_name(int f);
int usageview_width(int f);
/* usageview_count: how many fields there are (indices 0..count-1). */
int usageview_count(void);

/*
 * usageview_value: field f of src as Slurm prints it, in buf (or a
 * constant).  Fields Sluice does not measure (AveCPUFreq, ConsumedEnergy,
 * ReqCPUFreq*) print what Slurm prints without the data: "0" or
 * "Unknown".
 */
const char *usageview_value(int f, const struct usageview_src *src, char *buf,
                            size_t len);

/* usageview_cpu: microseconds as sacct's CPU times: "00:02.013",
 * "00:01:05" (whole seconds), "01:02:03", "1-00:00:00".  Returns buf. */
char *usageview_cpu(uint64_t us, char *buf, size_t len);
/* usageview_set_units: sacct --units for the rest of the run: memory and
 * disk in unit ('K'..'P'; 0: Slurm's own choice).  usageview_units: it. */
void usageview_set_units(char unit);
char usageview_units(void);

/* usageview_in_units: KiB in unit ('K'..'P'), as sacct --units prints
 * it: "200M", "195.31M" (two decimals unless whole).  Returns buf. */
char *usageview_in_units(uint64_t kib, char unit, char *buf, size_t len);
/* usageview_kib: KiB as "1348K", "200M" (converted only while exact),
 * "0".  Returns buf. */
char *usageview_kib(uint64_t kib, char *buf, size_t len);
/* usageview_disk: bytes as megabytes: "0", "0.01M", "2.50M", "2G". */
char *usageview_disk(uint64_t bytes, char *buf, size_t len);

/* usageview_num: a number of the usage object (integer or real; 0 when
 * absent). */
uint64_t usageview_num(json_t *usage, const char *key);

#endif
