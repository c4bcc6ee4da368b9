/*
 * The one version string of Sluice, printed by every binary (`sluice
 * version`, `sbatch -V`, `sluiced -V`) and reported by the daemons'
 * PING replies.
 */
#ifndef SLUICE_COMMON_VERSION_H
#define SLUICE_COMMON_VERSION_H

#define SLUICE_VERSION "0.1.0"

#endif
