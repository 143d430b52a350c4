/* libgregor: the Gregor C client library (umbrella header).
 *
 * Include this header, link with -lgregor (pkg-config --cflags --libs gregor).
 * The library speaks the Kafka wire protocol and works against gregord and
 * against Apache Kafka 4.x unchanged. It starts no threads: network I/O runs on
 * the caller's thread inside the poll/flush calls and the blocking admin calls.
 *
 *   gregor/error.h     gr_err_t (0 ok, > 0 Kafka codes, < 0 local), names, descriptions
 *   gregor/conf.h      gr_conf_t: configuration by Kafka property names
 *   gregor/producer.h  gr_producer_t: batching, partitioning, compression, idempotence
 *   gregor/admin.h     gr_admin_t: topics, partitions, configs, groups, share groups
 *   gregor/share_consumer.h  gr_share_consumer_t: share groups (KIP-932), the KafkaShareConsumer contract
 *
 * Only names starting with gr_ / GR_ are defined; no public structs (handles are
 * opaque, results are read through accessors), so the ABI can grow. */
#ifndef GREGOR_H
#define GREGOR_H

#include "gregor/admin.h"
#include "gregor/conf.h"
#include "gregor/consumer.h"
#include "gregor/error.h"
#include "gregor/producer.h"
#include "gregor/share_consumer.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GR_VERSION_MAJOR 0
#define GR_VERSION_MINOR 1
#define GR_VERSION_PATCH 0
/** The library version as text ("0.1.0"); any thread. */
const char *gr_version_str(void);

#ifdef __cplusplus
}
#endif

#endif
