/* Device memory for buffers exchanged between afet elements: a GstMemory
 * backed by an OpenCL buffer of the shared device, with a host copy made on
 * demand.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

#include "blockpool.h"
#include "device.h"
#include "transfer.h"

#include <memory>

/* Caps feature: memory:AfetCLMemory (AFET_CAPS_FEATURE_MEMORY_CL).
 *
 * Mapping with GST_MAP_AFET_CL gives the cl_mem (map.data is the handle),
 * uploading first if the host copy was written. A plain GST_MAP_READ
 * downloads once if the device copy is newer, and keeps the host copy until
 * the device copy is written again; a host write is uploaded when next
 * mapped for the device. Writers and readers on the device record their
 * queue (and an event, made when another queue needs one), so that another
 * element's queue waits for the producer's kernels before it reads, a
 * producer reusing the memory waits for its readers (on the device), and
 * the memory is freed only when no queued work uses it (OpenCL defers it;
 * the host never waits). */

/* GST_MAP_FLAG_LAST itself (the first custom flag): with a higher bit, a
 * GstMapFlags value lies outside the enum's range in C++ (UBSan: enum). */
#define GST_MAP_AFET_CL ((GstMapFlags) GST_MAP_FLAG_LAST)
#define GST_AFET_CL_MEMORY_TYPE "AfetCLMemory"

struct AfetCLMemoryState;

typedef struct
{
  GstMemory mem;
  AfetCLMemoryState *state;
} GstAfetCLMemory;

gboolean gst_is_afet_cl_memory (GstMemory * mem);

/* A new device memory of size bytes on device; transfers run on queue and
 * are counted in stats. Returns NULL with err set on failure. */
GstMemory *gst_afet_cl_memory_new (const std::shared_ptr<afet::Device> &
    device, cl_command_queue queue,
    const std::shared_ptr<afet::TransferStats> &stats, gsize size,
    afet::Status * err);

/* A device memory that is size bytes from origin of a combined launch's
 * block (one stream's rows, afet::DeviceRows), written when write_event
 * completes; takes over the reference to write_event. The block goes back
 * to its pool when the last memory using it does, with the events of the
 * work recorded on them (the write and the reads), and is written again
 * only once they have completed: nothing waits when a memory is freed. */
GstMemory *gst_afet_cl_memory_new_region (const std::shared_ptr<afet::Device>
    & device, cl_command_queue queue,
    const std::shared_ptr<afet::TransferStats> &stats,
    std::shared_ptr<afet::DeviceBlock> block, gsize origin, gsize size,
    cl_event write_event);

afet::Device *gst_afet_cl_memory_get_device (GstMemory * mem);

/* Where the memory's first byte is in the cl_mem a GST_MAP_AFET_CL map
 * gives (0 but for regions). */
gsize gst_afet_cl_memory_get_origin (GstMemory * mem);

/* The completion event of the last device write (a new reference), or
 * NULL: for a reader that waits for it itself. A write recorded by its
 * queue gets its event here; NULL with err set (if given) when that
 * failed, and the reader must not go on. */
cl_event gst_afet_cl_memory_get_write_event (GstMemory * mem,
    afet::Status * err = nullptr);

/* Makes queue wait until the memory may be read on the device (the last
 * write finished), or written (also every recorded read finished). Work on
 * queue itself is in order and not waited for; waits (if not NULL) counts
 * the barriers this enqueued (one at most). */
afet::Status gst_afet_cl_memory_sync (GstMemory * mem, cl_command_queue queue,
    gboolean for_write, guint64 * waits = nullptr);

/* Records the completion event of device work that wrote the memory (the
 * host copy becomes stale) or read it. Takes ownership of event.  queue:
 * the (in-order) queue of that work, which a later sync on the same queue
 * need not wait for. */
void gst_afet_cl_memory_set_write_event (GstMemory * mem, cl_event event,
    cl_command_queue queue);
void gst_afet_cl_memory_add_read_event (GstMemory * mem, cl_event event);

/* The same without an event: the work enqueued on queue so far wrote the
 * memory, or read it. No marker is made, nothing is flushed: a later sync
 * on the same queue waits for nothing (in order), and only a reader on
 * another queue, the host (a map, a copy) or a region's release makes the
 * event then (a marker on queue, flushed: it also covers what queue got in
 * between, so it may wait longer, never too little). Elements of one
 * streaming thread that share their queue (gstafetbase-reuse.cc) pass
 * buffers with no marker, flush or barrier between them. */
void gst_afet_cl_memory_set_written (GstMemory * mem,
    cl_command_queue queue);
void gst_afet_cl_memory_add_read_queue (GstMemory * mem,
    cl_command_queue queue);

/* Pool of device-memory buffers of one size, for one element's output. */
#define GST_TYPE_AFET_CL_BUFFER_POOL (gst_afet_cl_buffer_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetCLBufferPool, gst_afet_cl_buffer_pool, GST,
    AFET_CL_BUFFER_POOL, GstBufferPool);

GstBufferPool *gst_afet_cl_buffer_pool_new (const std::shared_ptr<afet::Device>
    & device, cl_command_queue queue,
    const std::shared_ptr<afet::TransferStats> & stats);
