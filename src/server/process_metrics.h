/* The standard Prometheus process_* metrics of gregord, read from /proc/self at
 * scrape time (the names client libraries use, so dashboards work unchanged).
 * @locality any thread (reads files, keeps no state). */
#ifndef GR_SERVER_PROCESS_METRICS_H
#define GR_SERVER_PROCESS_METRICS_H

#include "base/metrics.h"

/** Write process_cpu_seconds_total, process_resident_memory_bytes,
 *  process_virtual_memory_bytes, process_open_fds, process_max_fds and
 *  process_start_time_seconds. A value that cannot be read is left out (the
 *  family keeps its HELP/TYPE). */
void gr_process_metrics_write(gr_prom_t *p);

#endif
