/* GstAfetBase's combined streams: the combine-streams and merged-batches
 * properties, and live context elements' rows through a lane of the context
 * combiner.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The path of live context elements (afetdelta, afettraps,
 * afetcmvn scope=sliding) fed features, in system or device memory: a lane of the
 * process' ContextCombiner for their configuration instead of a device
 * history of their own, so that many live streams share each launch
 * (engine/temporal/lanes.h; the spectral elements combine through the
 * engine's SpectralCombiner, see gstafetspectral.cc). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetbase-private.h"

#include "gstafetclmemory.h"
#include "lanes.h"

#define GST_CAT_DEFAULT gst_afet_base_debug

void
gst_afet_base_class_install_combine (GObjectClass * klass)
{
  g_object_class_install_property (klass, PROP_COMBINE_STREAMS,
      g_param_spec_boolean ("combine-streams", "Combine streams",
          "Compute small batches (live input) in one launch with those of "
          "the other afet streams of the same configuration in this "
          "process, for many streams on one device (results unchanged; "
          "context elements: feature input, afetcmvn's sliding scope)", DEFAULT_COMBINE_STREAMS, (GParamFlags) (G_PARAM_READWRITE
              | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (klass, PROP_MERGED_BATCHES,
      g_param_spec_uint64 ("merged-batches", "Merged batches",
          "Batches of this element computed in one launch with other "
          "streams' frames so far", 0, G_MAXUINT64, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (klass, PROP_CHAINED_BATCHES,
      g_param_spec_uint64 ("chained-batches", "Chained batches",
          "Live input: batches of this element computed in one pass with "
          "the afet elements next to it (a spectral element such as "
          "afetmfcc and the context elements directly after it, e.g. "
          "afetdelta ! afetcmvn scope=sliding: each round of a stream "
          "waits once instead of once an element) so far", 0,
          G_MAXUINT64, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

void
gst_afet_needs_lanes (GstAfetNeeds * needs, const afet::ContextStage * stage)
{
  needs->stage = stage && stage->has_lanes () ? stage : nullptr;
}

gboolean
gst_afet_base_combine_streams (GstAfetBase * self)
{
  GST_OBJECT_LOCK (self);
  gboolean on = PRIV (self)->combine_streams;
  GST_OBJECT_UNLOCK (self);
  return on;
}

void
afet_base_count_chained (GstAfetBase * self)
{
  GST_OBJECT_LOCK (self);
  PRIV (self)->chained_batches++;
  GST_OBJECT_UNLOCK (self);
}

void
gst_afet_base_count_combined (GstAfetBase * self)
{
  GST_OBJECT_LOCK (self);
  PRIV (self)->merged_batches++;
  GST_OBJECT_UNLOCK (self);
}

void
afet_base_lanes_release (GstAfetBaseState * p)
{
  if (p->combiner && p->lane >= 0)
    p->combiner->leave (p->lane);
  p->combiner.reset ();
  p->lane = -1;
  p->lane_stage = nullptr;
  p->lanes_checked = false;
}

/* Whether this stream's rows go through a lane: decided at its first rows
 * (the live query has been answered by then), for the rest of the caps. */
bool
afet_base_lanes_active (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  if (p->lanes_checked)
    return p->combiner != nullptr;
  p->lanes_checked = true;
  if (!p->live || !p->lane_stage || p->in.audio ||
      !gst_afet_base_combine_streams (self))
    return false;
  afet::Status st = afet::ContextCombiner::get (p->device, *p->lane_stage,
      p->extent, p->out.dims, &p->combiner);
  if (!st.ok ()) {
    GST_DEBUG_OBJECT (self, "computing alone: %s", st.message ().c_str ());
    p->combiner.reset ();
    return false;
  }
  p->lane = p->combiner->join ();
  p->lane_rows = 0;
  /* the element's own history (made at caps time, before the live query)
   * is not used: its device memory goes back (2.7 MB for a 39-column
   * sliding CMVN, a thousand streams' worth matters) */
  p->history.release ();
  GST_DEBUG_OBJECT (self, "live: lane %d of %d rows in the process' "
      "combined launches", p->lane, p->combiner->ring ());
  return true;
}

/* m rows into the lane, from the host (rows) or from the device (in: a
 * buffer's memory, rows from its origin on); the output frames they
 * complete (every frame of the run at its end) come back, in system memory
 * or, with device output, in a region of the launch's buffer, and are
 * queued. */
static GstFlowReturn
lanes_push (GstAfetBase * self, const float *rows, GstMemory * in, gint64 m,
    bool end)
{
  GstAfetBaseState *p = PRIV (self);
  const afet::RowHistory::Extent & x = p->extent;
  const gsize row_bytes = (gsize) p->out.dims * sizeof (float);
  const gsize in_row_bytes = (gsize) x.row_dims * sizeof (float);
  afet::ContextCombiner::DeviceIo io;
  cl_mem in_cl = nullptr;
  GstMapInfo in_map = GST_MAP_INFO_INIT;
  if (in) {
    if (!gst_memory_map (in, &in_map, (GstMapFlags) (GST_MAP_READ |
                GST_MAP_AFET_CL))) {
      afet_base_post_engine_error (self, "cannot map the input device "
          "memory");
      return GST_FLOW_ERROR;
    }
    in_cl = (cl_mem) in_map.data;
    afet::Status st;
    io.in.ready = gst_afet_cl_memory_get_write_event (in, &st);
    if (!st.ok ()) {
      gst_memory_unmap (in, &in_map);
      afet_base_post_engine_error (self, st.message ().c_str ());
      return GST_FLOW_ERROR;
    }
  }
  io.out_device = p->out_device;
  GstFlowReturn ret = GST_FLOW_OK;
  gint64 done = 0;
  do {
    gint64 take = MIN (m - done, (gint64) afet::ContextCombiner::kMaxRows);
    gint64 received = p->lane_rows + take;
    bool last = end && done + take == m;
    gint64 n = afet::RowHistory::ready_of (x, received, p->frames_out, last);
    GstBuffer *buf = nullptr;
    GstMapInfo map = GST_MAP_INFO_INIT;
    if (n > 0 && !p->out_device) {
      buf = gst_buffer_new_allocate (nullptr, (gsize) n * row_bytes, nullptr);
      if (!gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
        gst_buffer_unref (buf);
        afet_base_post_engine_error (self, "cannot map an output buffer");
        ret = GST_FLOW_ERROR;
        break;
      }
    }
    if (in_cl) {
      io.in.buffer = in_cl;
      io.in.offset = gst_afet_cl_memory_get_origin (in) + (gsize) done *
          in_row_bytes;
    }
    io.out = afet::DeviceRows ();
    bool combined = false;
    afet::Status st = p->combiner->compute (p->lane, rows ? rows + done *
        x.row_dims : nullptr, (int) take, p->lane_rows,
        (long long) p->frames_out, (int) n, last ? received : -1,
        (float *) map.data, &combined, &io);
    if (buf)
      gst_buffer_unmap (buf, &map);
    if (io.read_done) {
      /* the memory is not reused (a pool's) nor freed before this read */
      gst_afet_cl_memory_add_read_event (in, io.read_done);
      io.read_done = nullptr;
    }
    if (st.ok () && n > 0 && p->out_device) {
      buf = gst_buffer_new ();
      gst_buffer_append_memory (buf, gst_afet_cl_memory_new_region
          (p->device, p->queue.get (), p->stats, std::move (io.out.block),
              io.out.offset, (gsize) n * row_bytes, io.out.ready));
    }
    if (!st.ok ()) {
      gst_clear_buffer (&buf);
      afet_base_post_engine_error (self, st.message ().c_str ());
      ret = GST_FLOW_ERROR;
      break;
    }
    p->lane_rows = received;
    /* this stream's share of the combined copies */
    if (take > 0 && !in) {
      p->stats->uploads++;
      p->stats->upload_bytes += (guint64) take * in_row_bytes;
    }
    if (n > 0 && !p->out_device) {
      p->stats->downloads++;
      p->stats->download_bytes += (guint64) n * row_bytes;
    }
    if (combined)
      gst_afet_base_count_combined (self);
    if (buf)
      afet_base_queue_output (self, buf, n);
    done += take;
  } while (done < m);
  if (io.in.ready)
    clReleaseEvent (io.in.ready);
  if (in)
    gst_memory_unmap (in, &in_map);
  return ret;
}

GstFlowReturn
afet_base_lanes_push (GstAfetBase * self, const float *rows, gint64 m,
    bool end)
{
  return lanes_push (self, rows, nullptr, m, end);
}

GstFlowReturn
afet_base_lanes_push_device (GstAfetBase * self, GstMemory * in, gint64 m)
{
  return lanes_push (self, nullptr, in, m, false);
}
