/*
 * The plots of a simulation (--plots DIR), as SVG files: GPU utilisation
 * over time per partition (util.svg), the distribution of wait times per
 * partition (wait.svg, the share of started jobs that waited at most so
 * long), preemptions per day (preempt.svg).
 */
#ifndef SLUICE_SIM_PLOTS_H
#define SLUICE_SIM_PLOTS_H

#include "common/err.h"
#include "sim/report.h"

/*
 * sim_plots_write: the three plots of rep into dir (made if missing), the
 * file names prefixed with prefix ("" or "a-").  Returns 0; -1 with e
 * naming the file that could not be written.
 */
int sim_plots_write(const struct sim_report *rep, const char *dir,
                    const char *prefix, struct err *e);

#endif
