/* GstAfetBase's output: buffers from our device pool or a staging buffer
 * downloaded to system memory, completion events between queues, timestamps
 * and offsets, and the queue of buffers for generate_output.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetbase-private.h"

#include "gstafetclmemory.h"

#include "clutil.h"

#define GST_CAT_DEFAULT gst_afet_base_debug

void
afet_base_clear_queue (GstAfetBaseState * p)
{
  for (GstBuffer *b : p->outq)
    gst_buffer_unref (b);
  p->outq.clear ();
  p->outq_serial.clear ();
  p->serial_pushed = p->serial_out;
}

/* ---- events among the frames ---------------------------------------------
 *
 * GstBaseTransform forwards a serialized event as it comes, but an afet
 * element holds frames (a batch, the latency budget, a context element's
 * look-ahead), so an event would overtake the frames that came before it:
 * afetparse's key tag of the next archive entry reached afetenc before the
 * last frames of the entry before it. Such events wait for those frames.
 * An event's place is the number of the run's frames the input before it
 * completes; it goes out before the first buffer that holds a frame at or
 * past that place (mid-run, a buffer that holds frames on both sides is
 * not split: the event goes before it), and at a run's end after the
 * run's last frame. */

static void
push_held (GstAfetBase * self, guint64 before_serial)
{
  GstAfetBaseState *p = PRIV (self);
  while (!p->held_events.empty () &&
      p->held_events.front ().before < before_serial) {
    GstEvent *e = p->held_events.front ().event;
    p->held_events.pop_front ();
    GST_LOG_OBJECT (self, "held %" GST_PTR_FORMAT " goes now", e);
    gst_pad_push_event (GST_BASE_TRANSFORM_SRC_PAD (self), e);
  }
}

void
afet_base_release_events (GstAfetBase * self, bool all)
{
  GstAfetBaseState *p = PRIV (self);
  push_held (self, all ? G_MAXUINT64 : p->serial_pushed + 1);
}

void
afet_base_events_end_run (GstAfetBaseState * p)
{
  for (auto & h:p->held_events)
    h.before = MIN (h.before, p->serial_out);
}

gboolean
afet_base_hold_event (GstAfetBase * self, GstEvent * event)
{
  GstAfetBaseState *p = PRIV (self);
  /* the run's frames that the input before the event completes */
  const guint64 done = p->in.audio ? (guint64) (p->stream.consumed () +
      p->stream.frames ()) : p->units_in;
  const guint64 before = p->have_data ? p->serial_out - p->frames_out + done
      : p->serial_out;
  if (p->held_events.empty () && before <= p->serial_pushed)
    return FALSE;               /* nothing it must wait for */
  GST_LOG_OBJECT (self, "holding %" GST_PTR_FORMAT " until frame %"
      G_GUINT64_FORMAT " (pushed %" G_GUINT64_FORMAT ")", event, before,
      p->serial_pushed);
  p->held_events.push_back ({MAX (before, p->held_events.empty ()? 0 :
          p->held_events.back ().before), event});
  return TRUE;
}

GstBuffer *
afet_base_pop_output (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  if (p->outq.empty ())
    return nullptr;
  GstBuffer *b = p->outq.front ();
  const guint64 first = p->outq_serial.front ();
  const guint64 n = GST_BUFFER_OFFSET_END (b) - GST_BUFFER_OFFSET (b);
  p->outq.pop_front ();
  p->outq_serial.pop_front ();
  push_held (self, first + n);
  p->serial_pushed = first + n;
  return b;
}

/* An OpenCL failure while running: the cause (the call, the OpenCL error
 * and what to do) is the error's own text. */
void
afet_base_post_engine_error (GstAfetBase * self, const gchar * what)
{
  PRIV (self)->engine_failed = true;
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("%s: the OpenCL device failed: %s", GST_ELEMENT_NAME (self), what),
      (nullptr));
}

/* Where outputs are computed (our pool of device buffers, or one staging
 * buffer downloaded into system memory), the stream's framing and the
 * context elements' history, for the negotiated p->in / p->out. */
afet::Status
afet_base_setup_output (GstAfetBase * self, GstCaps * outcaps)
{
  GstAfetBaseState *p = PRIV (self);
  const GstAfetInput & in = p->in;
  const gsize batch_bytes = (gsize) in.max_batch * p->out.dims *
      sizeof (float);
  afet::Status st;
  if (p->out_device) {
    p->pool = gst_afet_cl_buffer_pool_new (p->device, p->queue.get (),
        p->stats);
    GstStructure *config = gst_buffer_pool_get_config (p->pool);
    gst_buffer_pool_config_set_params (config, outcaps, (guint) batch_bytes,
        0, 0);
    if (!gst_buffer_pool_set_config (p->pool, config) ||
        !gst_buffer_pool_set_active (p->pool, TRUE))
      st = afet::Status (afet::Status::OPENCL, "cannot start the device "
          "buffer pool");
  } else {
    st = afet::make_buffer (p->device->context (), CL_MEM_READ_WRITE,
        batch_bytes, nullptr, &p->staging);
  }
  if (st.ok () && p->context_mode)
    st = p->history.init (p->device->context (), p->queue.get (), p->extent,
        in.max_batch);
  afet::FrameStream::Shape shape;
  shape.audio = in.audio;
  shape.W = in.W;
  shape.S = in.S;
  shape.row = in.in_dims;
  shape.max_batch = in.max_batch;
  shape.pad = in.pad;
  shape.edges = in.edges;
  shape.unit = (int) afet::sample_bytes (in.samples);
  p->stream.configure (shape);
  return st;
}

static void
log_transfers (GstAfetBase * self, const char *what)
{
  GstAfetBaseState *p = PRIV (self);
  GST_CAT_LOG_OBJECT (afet_transfer_debug, self, "%s: uploads %"
      G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " bytes), downloads %"
      G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " bytes)", what,
      (guint64) p->stats->uploads, (guint64) p->stats->upload_bytes,
      (guint64) p->stats->downloads, (guint64) p->stats->download_bytes);
}

/* gst_afet_cl_memory_sync on this element's queue, its barrier counted
 * (device-waits). */
afet::Status
afet_base_sync_memory (GstAfetBase * self, GstMemory * mem,
    gboolean for_write)
{
  GstAfetBaseState *p = PRIV (self);
  guint64 waits = 0;
  afet::Status st = gst_afet_cl_memory_sync (mem, p->queue.get (), for_write,
      &waits);
  if (waits) {
    GST_OBJECT_LOCK (self);
    p->device_waits += waits;
    GST_OBJECT_UNLOCK (self);
  }
  return st;
}

/* Marks the work enqueued so far as the end of a read of in_mem and a
 * write of out_mem (either may be null): other queues wait for it before
 * they write in_mem or read out_mem. Between elements that share this
 * queue (in_mem from the element before, out_mem for the element after:
 * afet_base_take_queue) no event is made: a later user on another queue,
 * or the host, has it made then (gst_afet_cl_memory_set_written). Else a
 * marker now, as the waits of a thread of its own must not cover this
 * queue's later work. The work is flushed to the device, but while a
 * shared run drains: its last element's blocking read flushes it. */
afet::Status
afet_base_mark_completion (GstAfetBase * self, GstMemory * in_mem, GstMemory * out_mem)
{
  if (!in_mem && !out_mem)
    return afet::Status::Ok ();
  GstAfetBaseState *p = PRIV (self);
  cl_command_queue q = p->queue.get ();
  const bool lazy_in = in_mem && p->queue_shared_up;
  const bool lazy_out = out_mem && p->queue_shared_down;
  cl_event ev = nullptr;
  if ((in_mem && !lazy_in) || (out_mem && !lazy_out)) {
    cl_int err = clEnqueueMarkerWithWaitList (q, 0, nullptr, &ev);
    if (err != CL_SUCCESS)
      return afet::cl_fail ("clEnqueueMarkerWithWaitList", err);
  }
  if (in_mem) {
    if (lazy_in) {
      gst_afet_cl_memory_add_read_queue (in_mem, q);
    } else {
      clRetainEvent (ev);
      gst_afet_cl_memory_add_read_event (in_mem, ev);
    }
  }
  if (out_mem) {
    if (lazy_out) {
      gst_afet_cl_memory_set_written (out_mem, q);
    } else {
      clRetainEvent (ev);
      gst_afet_cl_memory_set_write_event (out_mem, ev, q);
    }
  }
  if (ev)
    clReleaseEvent (ev);
  if (ev || !p->draining)
    clFlush (q);
  return afet::Status::Ok ();
}

/* Computes n frames into a new output buffer: input from the host
 * or from rows of a device buffer (device input, already synchronised).
 * Device output is left on the device with its completion event; system
 * output is downloaded batch by batch. */
GstFlowReturn
afet_base_compute (GstAfetBase * self, gint64 n, const GstAfetBatch * proto,
    GstMemory * in_mem, GstBuffer ** out)
{
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  GstAfetBaseState *p = PRIV (self);
  const int dims = p->out.dims;
  const gint64 max_batch = p->in.max_batch;
  const gsize bytes = (gsize) n * dims * sizeof (float);
  cl_command_queue q = p->queue.get ();
  afet::Status st;
  GstBuffer *buf = nullptr;
  GstMemory *out_mem = nullptr;
  cl_mem target = p->staging.get ();
  GstMapInfo map = GST_MAP_INFO_INIT;
  gchar *why = nullptr;
  gboolean ok = TRUE;

  if (proto->host && !in_mem && p->live && klass->combined_front) {
    /* a live chain after this element, in the same pass */
    gboolean handled = FALSE;
    GstFlowReturn ret = afet_base_chain_compute (self, proto, n, out,
        &handled);
    if (ret != GST_FLOW_OK || handled)
      return ret;
  }
  if (p->out_device && proto->host && !in_mem && n <= max_batch &&
      klass->process_host_device) {
    /* rows of a combined launch, left on the device: a region of its
     * buffer becomes this buffer's memory */
    afet::DeviceRows rows;
    gboolean handled = FALSE;
    if (!klass->process_host_device (self, proto, (gint) n, &rows, &handled,
            &why)) {
      afet_base_post_engine_error (self, why);
      g_free (why);
      return GST_FLOW_ERROR;
    }
    if (handled) {
      buf = gst_buffer_new ();
      gst_buffer_append_memory (buf, gst_afet_cl_memory_new_region
          (p->device, q, p->stats, std::move (rows.block), rows.offset,
              bytes, rows.ready));
      *out = buf;
      return GST_FLOW_OK;
    }
  }
  if (p->out_device) {
    if (n <= max_batch) {
      if (gst_buffer_pool_acquire_buffer (p->pool, &buf, nullptr) !=
          GST_FLOW_OK) {
        afet_base_post_engine_error (self, "no buffer from the device pool");
        return GST_FLOW_ERROR;
      }
      gst_buffer_set_size (buf, bytes);
    } else {
      GstMemory *m = gst_afet_cl_memory_new (p->device, q, p->stats, bytes,
          &st);
      if (!m) {
        afet_base_post_engine_error (self, st.message ().c_str ());
        return GST_FLOW_ERROR;
      }
      buf = gst_buffer_new ();
      gst_buffer_append_memory (buf, m);
    }
    out_mem = gst_buffer_peek_memory (buf, 0);
    /* the buffer may come back from the pool while a reader's kernels
     * still use it */
    st = afet_base_sync_memory (self, out_mem, TRUE);
    if (gst_memory_map (out_mem, &map, (GstMapFlags) (GST_MAP_WRITE |
                GST_MAP_AFET_CL))) {
      target = (cl_mem) map.data;
    } else {
      ok = FALSE;
      why = g_strdup ("cannot map the output device memory");
    }
  } else {
    buf = gst_buffer_new_allocate (nullptr, bytes, nullptr);
    if (!gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
      ok = FALSE;
      why = g_strdup ("cannot map an output buffer");
    }
  }
  if (ok && !st.ok ()) {
    ok = FALSE;
    why = g_strdup (st.message ().c_str ());
  }

  cl_mem in_cl = nullptr;
  GstMapInfo in_map = GST_MAP_INFO_INIT;
  /* a region's rows start there (take_on_device checked it is a row) */
  const size_t in_origin_row = in_mem ? gst_afet_cl_memory_get_origin
      (in_mem) / ((gsize) p->in.in_dims * sizeof (float)) : 0;
  if (ok && in_mem) {
    if (gst_memory_map (in_mem, &in_map, (GstMapFlags) (GST_MAP_READ |
                GST_MAP_AFET_CL))) {
      in_cl = (cl_mem) in_map.data;
    } else {
      ok = FALSE;
      why = g_strdup ("cannot map the input device memory");
    }
  }

  /* system output: each batch's blocking download returns once every
   * command before it on q is done, the reads of the input included */
  bool reads_done = !p->out_device;
  for (gint64 done = 0; ok && done < n;) {
    gint b = (gint) MIN (n - done, max_batch);
    GstAfetBatch batch = *proto;
    if (in_cl) {
      batch.device = in_cl;
      batch.in_row = in_origin_row + (size_t) done;
    } else if (proto->host) {
      batch.host = (const char *) proto->host + (size_t) done *
          p->stream.step_bytes ();
    } else {
      batch.out_first = proto->out_first + done;
    }
    gsize out_row = p->out_device ? (gsize) done : 0;
    gboolean handled = FALSE;
    if (!p->out_device && batch.host && klass->process_host)
      ok = klass->process_host (self, &batch, b, (float *) (map.data +
              (gsize) done * dims * sizeof (float)), &handled, &why);
    if (handled)
      reads_done = false;       /* computed elsewhere, not downloaded here */
    if (ok && !handled)
      ok = klass->process (self, &batch, b, target, out_row, &why);
    if (ok && !handled && !p->out_device) {
      st = afet::download (q, target, 0, (size_t) b * dims * sizeof (float),
          map.data + (gsize) done * dims * sizeof (float), p->stats.get ());
      if (!st.ok ()) {
        ok = FALSE;
        why = g_strdup (st.message ().c_str ());
      }
    }
    done += b;
  }

  /* rows adopted from upstream's buffer (a context batch reading them):
   * its read is marked with this launch's */
  GstMemory *read_mem = in_cl ? in_mem : nullptr;
  if (!read_mem && p->adopted && proto->block.rows &&
      proto->block.rows == p->history.block (true).rows)
    read_mem = gst_buffer_peek_memory (p->adopted, 0);
  if (reads_done)
    read_mem = nullptr;         /* nothing reads it any more: no event */
  if (ok) {
    st = afet_base_mark_completion (self, read_mem,
        p->out_device ? out_mem : nullptr);
    if (!st.ok ()) {
      ok = FALSE;
      why = g_strdup (st.message ().c_str ());
    }
  }
  if (in_cl)
    gst_memory_unmap (in_mem, &in_map);
  if (p->out_device) {
    if (map.data)
      gst_memory_unmap (out_mem, &map);
  } else if (map.data) {
    gst_buffer_unmap (buf, &map);
  }

  if (!ok) {
    gst_buffer_unref (buf);
    afet_base_post_engine_error (self, why);
    g_free (why);
    return GST_FLOW_ERROR;
  }
  *out = buf;
  return GST_FLOW_OK;
}

/* Timestamps an output buffer of n frames and queues it for
 * generate_output / the EOS push. */
void
afet_base_queue_output (GstAfetBase * self, GstBuffer * buf, gint64 n)
{
  GstAfetBaseState *p = PRIV (self);
  const guint64 first = p->frames_out;
  const GstClockTime t0 = GST_CLOCK_TIME_IS_VALID (p->t0) ? p->t0 : 0;
  const guint64 S = (guint64) p->in.S, rate = (guint64) p->in.rate;
  GstClockTime start = t0 + gst_util_uint64_scale (first * S, GST_SECOND,
      rate);
  GstClockTime end = t0 + gst_util_uint64_scale ((first + n) * S,
      GST_SECOND, rate);
  GST_BUFFER_PTS (buf) = start;
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = end - start;
  GST_BUFFER_OFFSET (buf) = first;
  GST_BUFFER_OFFSET_END (buf) = first + n;
  if (first == 0)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  p->frames_out += n;
  GST_LOG_OBJECT (self, "%" G_GINT64_FORMAT " frames %" G_GUINT64_FORMAT
      "..%" G_GUINT64_FORMAT " at %" GST_TIME_FORMAT, n, first, first + n,
      GST_TIME_ARGS (start));
  log_transfers (self, "after a batch");
  p->outq.push_back (buf);
  p->outq_serial.push_back (p->serial_out);
  p->serial_out += (guint64) n;
}

GstFlowReturn
afet_base_push_queued (GstAfetBase * self)
{
  GstFlowReturn ret = GST_FLOW_OK;
  while (GstBuffer * b = afet_base_pop_output (self)) {
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), b);
    else
      gst_buffer_unref (b);
  }
  if (ret == GST_FLOW_OK)
    afet_base_release_events (self, false);
  return ret;
}

/* FLUSH_STOP, stop, finalize: what held events came among is gone */
void
afet_base_drop_held_events (GstAfetBaseState * p)
{
  for (auto & h:p->held_events)
    gst_event_unref (h.event);
  p->held_events.clear ();
}
