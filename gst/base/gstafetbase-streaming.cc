/* GstAfetBase's streaming: input buffers into the engine's FrameStream,
 * batches computed as they fall due, context elements' rows through the
 * device RowHistory, and runs drained at EOS, DISCONT and format changes.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetbase-private.h"

#include "gstafetclmemory.h"

#include "cache.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#define GST_CAT_DEFAULT gst_afet_base_debug

static GstFlowReturn context_emit (GstAfetBase * self, bool drain,
    bool force);

/* Context elements: makes room for m more rows in the device history,
 * computing what can be computed first, then growing it. */
static GstFlowReturn
context_room (GstAfetBase * self, gint64 m)
{
  GstAfetBaseState *p = PRIV (self);
  if (p->history.fits (m))
    return GST_FLOW_OK;
  GstFlowReturn ret = context_emit (self, false, true);
  if (ret != GST_FLOW_OK || p->history.fits (m))
    return ret;
  /* nothing can go yet (whole-run statistics) */
  afet::Status st = p->history.grow (m);
  if (!st.ok ()) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("%s: %s: use a sliding or running scope for runs this long "
            "(afetcmvn scope, afetmfcc clamp=running).",
            GST_ELEMENT_NAME (self), st.message ().c_str ()), (nullptr));
    return GST_FLOW_ERROR;
  }
  GST_DEBUG_OBJECT (self, "frame history grown for %" G_GINT64_FORMAT
      " more rows", m);
  return GST_FLOW_OK;
}

/* Context elements with audio input: n frames of audio become rows of the
 * history through the subclass' pre_process. */
static GstFlowReturn
context_pre_process (GstAfetBase * self, gint64 n)
{
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  GstAfetBaseState *p = PRIV (self);
  for (gint64 done = 0; done < n;) {
    gint b = (gint) MIN (n - done, (gint64) p->in.max_batch);
    GstFlowReturn ret = context_room (self, b);
    if (ret != GST_FLOW_OK)
      return ret;
    GstAfetBatch batch;
    batch.host = p->stream.at (done);
    batch.out_first = (gint64) p->stream.consumed () + done;
    gchar *why = nullptr;
    if (!klass->pre_process (self, &batch, b, p->history.tail (),
            p->history.tail_row (), &why)) {
      afet_base_post_engine_error (self, why);
      g_free (why);
      return GST_FLOW_ERROR;
    }
    p->history.commit (b);
    done += b;
  }
  return GST_FLOW_OK;
}

static GstFlowReturn context_push_rows (GstAfetBase * self,
    const float *host, cl_mem dev, gint64 m, gint64 dev_row = 0);

/* The rows of an adopted buffer (afet_base_submit_device_buffer) into the
 * history the usual way, before any other rows: copied, their read
 * marked, the buffer given back. */
static GstFlowReturn
context_unadopt (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  if (!p->adopted)
    return GST_FLOW_OK;
  GstBuffer *buf = p->adopted;
  p->adopted = nullptr;
  const gint64 m = (gint64) p->history.received ();
  p->history.unadopt ();
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GstMapInfo map;
  GstFlowReturn ret = GST_FLOW_ERROR;
  afet::Status st = afet::Status (afet::Status::OPENCL,
      "cannot map the input device memory");
  if (gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ |
              GST_MAP_AFET_CL))) {
    ret = context_push_rows (self, nullptr, (cl_mem) map.data, m, 0);
    st = ret == GST_FLOW_OK ? afet_base_mark_completion (self, mem, nullptr) :
        afet::Status::Ok ();
    gst_memory_unmap (mem, &map);
  }
  gst_buffer_unref (buf);
  if (!st.ok ()) {
    afet_base_post_engine_error (self, st.message ().c_str ());
    return GST_FLOW_ERROR;
  }
  return ret;
}

void
afet_base_forget_adopted (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  p->history.unadopt ();
  if (p->adopted)
    gst_buffer_unref (p->adopted);
  p->adopted = nullptr;
}

/* Context elements: m input rows from the host, or from rows of a device
 * buffer (already synchronised), appended to the history. */
static GstFlowReturn
context_push_rows (GstAfetBase * self, const float *host, cl_mem dev,
    gint64 m, gint64 dev_row)
{
  GstAfetBaseState *p = PRIV (self);
  if (p->adopted) {
    GstFlowReturn ret = context_unadopt (self);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  GST_LOG_OBJECT (self, "context: %" G_GINT64_FORMAT " rows in", m);
  const int row_dims = p->history.extent ().row_dims;
  gint64 src_row = 0;
  while (m > 0) {
    GstFlowReturn ret = context_room (self, 1);
    if (ret != GST_FLOW_OK)
      return ret;
    gint64 take = MIN (m, p->history.space ());
    afet::Status st = host ?
        p->history.append_host (host + src_row * row_dims, take,
        p->stats.get ()) : p->history.append_device (dev, (size_t) (dev_row +
            src_row), take);
    if (!st.ok ()) {
      afet_base_post_engine_error (self, st.message ().c_str ());
      return GST_FLOW_ERROR;
    }
    src_row += take;
    m -= take;
    ret = context_emit (self, false, false);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  return GST_FLOW_OK;
}

/* Context elements: computes the output frames whose look-ahead has arrived
 * (all of them when draining), in batches; then drops the rows no later
 * frame needs. force: compute even a small batch (the history is full). */
static GstFlowReturn
context_emit (GstAfetBase * self, bool drain, bool force)
{
  GstAfetBaseState *p = PRIV (self);
  const gint64 max_batch = p->in.max_batch;
  for (;;) {
    gint64 ready = p->history.ready (p->frames_out, drain);
    gint64 threshold = (drain || force || p->live) ? 1 : max_batch;
    if (ready <= 0 || ready < threshold)
      break;
    gint64 k = MIN (ready, max_batch);
    GST_LOG_OBJECT (self, "context: %" G_GINT64_FORMAT " rows received, "
        "computing %" G_GINT64_FORMAT " from %" G_GUINT64_FORMAT "%s",
        (gint64) p->history.received (), k, p->frames_out,
        drain ? " (end)" : "");
    GstAfetBatch batch;
    batch.block = p->history.block (drain);
    batch.device = batch.block.rows;
    batch.out_first = (gint64) p->frames_out;
    GstBuffer *buf = nullptr;
    GstFlowReturn ret = afet_base_compute (self, k, &batch, nullptr, &buf);
    if (ret != GST_FLOW_OK)
      return ret;
    afet_base_queue_output (self, buf, k);
    force = false;
    /* at the run's end nothing is dropped: the next run starts afresh
     * (afet_base_drain) */
    if (drain)
      continue;
    afet::Status st = p->history.drop_done (p->frames_out);
    if (!st.ok ()) {
      afet_base_post_engine_error (self, st.message ().c_str ());
      return GST_FLOW_ERROR;
    }
  }
  return GST_FLOW_OK;
}

/* Computes the first n held frames. */
static GstFlowReturn
emit_frames (GstAfetBase * self, gint64 n)
{
  GstAfetBaseState *p = PRIV (self);
  GstBuffer *buf = nullptr;
  GstFlowReturn ret;
  if (p->context_mode) {
    /* audio into history rows; output frames come from context_emit */
    ret = context_pre_process (self, n);
  } else {
    GstAfetBatch batch;
    batch.host = p->stream.at (0);
    batch.out_first = (gint64) p->stream.consumed ();
    ret = afet_base_compute (self, n, &batch, nullptr, &buf);
  }
  if (ret != GST_FLOW_OK)
    return ret;
  p->stream.consume (n);
  if (p->context_mode)
    return context_emit (self, false, false);
  afet_base_queue_output (self, buf, n);
  return GST_FLOW_OK;
}

/* Processes held frames: all of them when draining, otherwise batches of
 * max-batch (or, live, whatever is complete). */
GstFlowReturn
afet_base_process_pending (GstAfetBase * self, bool drain)
{
  GstAfetBaseState *p = PRIV (self);
  if (p->context_mode && !p->in.audio) {
    /* feature input: every whole frame goes to the device history */
    gint64 m = p->stream.frames ();
    GstFlowReturn ret = GST_FLOW_OK;
    if (m > 0) {
      const float *rows = (const float *) p->stream.at (0);
      ret = afet_base_lanes_active (self) ?
          afet_base_lanes_push (self, rows, m, false) :
          context_push_rows (self, rows, nullptr, m);
      p->stream.consume (m);
    }
    return ret;
  }
  for (;;) {
    gint n = p->stream.next_batch (drain || p->live);
    if (n == 0)
      break;
    GstFlowReturn ret = emit_frames (self, n);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  return GST_FLOW_OK;
}

/* Ends the current run of frames (EOS, DISCONT, caps change): computes every
 * complete frame, then the zero-filled tail if pad is set. */
GstFlowReturn
afet_base_drain (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  if (!p->configured)
    return GST_FLOW_OK;
  p->draining = true;
  GstFlowReturn ret = afet_base_process_pending (self, true);
  if (ret == GST_FLOW_OK && p->have_data && p->stream.finish ())
    ret = afet_base_process_pending (self, true);
  if (ret == GST_FLOW_OK && p->context_mode)
    ret = p->combiner ? afet_base_lanes_push (self, nullptr, 0, true) :
        context_emit (self, true, false);
  p->draining = false;
  if (p->context_mode && !p->combiner) {
    /* the run is over: its rows go (an adopted buffer back upstream, its
     * read marked by the launch that computed from it) */
    afet_base_forget_adopted (self);
    p->history.reset ();
  }
  if (ret != GST_FLOW_OK)
    return ret;
  p->stream.reset ();
  p->have_data = false;
  return GST_FLOW_OK;
}

/* Drains and pushes the current run from an event handler (EOS, caps
 * change), where no flow return reaches upstream: a failure downstream is
 * posted as the pipeline's error, as a streaming thread's would be. */
void
afet_base_finish_run (GstAfetBase * self, const char *why)
{
  GstFlowReturn ret = afet_base_drain (self);
  if (ret == GST_FLOW_OK) {
    ret = afet_base_push_queued (self);
    if (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS) {
      GST_DEBUG_OBJECT (self, "pushing at %s: %s", why,
          gst_flow_get_name (ret));
      GST_ELEMENT_FLOW_ERROR (self, ret);
    }
  } else {
    /* drain posted its own error */
    afet_base_clear_queue (PRIV (self));
  }
}

/* ---- the latency budget --------------------------------------------- */

/* A live stream's frames are computed as their buffers come: on a CPU
 * device each launch costs a few wake-ups of the OpenCL driver's threads
 * (about 100 us of CPU on PoCL, while the frame itself takes microseconds),
 * and on a GPU each launch and buffer costs the host's CPU (a thousand live
 * streams on one host), so the budget lets an element hold complete frames (audio input) or rows
 * (feature input) until holding them for one more buffer of the same
 * length would make the oldest wait longer than the budget, all measured
 * in stream time (no timer, nothing blocks: the hold ends with a later
 * buffer, a GAP, a DISCONT or EOS). The frames and their timestamps are
 * those of computing each buffer alone. Input in device memory is not
 * held (its producer, an afet element, has held it already). */

void
afet_base_resolve_budget (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  GST_OBJECT_LOCK (self);
  const gint64 set = p->latency_budget;
  GST_OBJECT_UNLOCK (self);
  if (set >= 0)
    p->budget = (GstClockTime) set;
  else if (!p->device || !p->in.audio)
    p->budget = 0;
  else
    p->budget = p->device->info ().is_cpu ? AUTO_CPU_LATENCY_BUDGET :
        AUTO_GPU_LATENCY_BUDGET;
}

/* the time n units of the run (samples, or frames of S samples) take */
static GstClockTime
units_time (const GstAfetBaseState * p, guint64 n)
{
  return gst_util_uint64_scale (n * (p->in.audio ? 1 : (guint64) p->in.S),
      GST_SECOND, (guint64) p->in.rate);
}

bool
afet_base_due (GstAfetBase * self, guint64 units_before)
{
  GstAfetBaseState *p = PRIV (self);
  if (!p->live || p->budget == 0)
    return true;
  const guint64 end = p->units_in, added = end - units_before;
  const guint64 since = p->held_since >= 0 ? (guint64) p->held_since : end;
  if (added == 0 || units_time (p, end + added - since) > p->budget) {
    p->held_since = -1;
    return true;
  }
  if (p->held_since < 0 && p->stream.frames () > 0) {
    p->held_since = (gint64) end;
    GST_LOG_OBJECT (self, "holding %" G_GINT64_FORMAT " complete frames or "
        "rows (budget %" GST_TIME_FORMAT ")", (gint64) p->stream.frames (),
        GST_TIME_ARGS (p->budget));
  }
  return false;
}

void
afet_base_flush_held (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  if (p->held_since < 0)
    return;
  p->held_since = -1;
  GstFlowReturn ret = afet_base_process_pending (self, false);
  if (ret == GST_FLOW_OK) {
    /* an event handler: a failure downstream becomes the pipeline's
     * error, as in afet_base_finish_run */
    ret = afet_base_push_queued (self);
    if (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS)
      GST_ELEMENT_FLOW_ERROR (self, ret);
  } else {
    afet_base_clear_queue (p);
  }
}

gboolean
afet_base_answer_latency (GstAfetBase * self, GstQuery * query)
{
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  GstAfetBaseState *p = PRIV (self);
  if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), query))
    return FALSE;
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency (query, &live, &min, &max);
  GstClockTime ours = 0;
  if (p->configured && p->in.audio && klass->takes_audio)
    ours = gst_util_uint64_scale ((guint64) p->in.W, GST_SECOND,
        (guint64) p->in.rate);
  if (p->configured && p->context_mode)
    ours += gst_util_uint64_scale ((guint64) p->extent.ahead * p->in.S,
        GST_SECOND, (guint64) p->in.rate);
  /* what the budget may hold (before the caps, only an explicit one is
   * known; set_caps posts a LATENCY message) */
  GST_OBJECT_LOCK (self);
  const gint64 set = p->latency_budget;
  GST_OBJECT_UNLOCK (self);
  ours += p->configured ? p->budget : (GstClockTime) MAX (set, 0);
  GST_DEBUG_OBJECT (self, "latency: ours %" GST_TIME_FORMAT
      ", upstream min %" GST_TIME_FORMAT, GST_TIME_ARGS (ours),
      GST_TIME_ARGS (min));
  min += ours;
  if (GST_CLOCK_TIME_IS_VALID (max))
    max += ours;
  gst_query_set_latency (query, live, min, max);
  return TRUE;
}

void
afet_base_check_live (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  if (p->live_checked)
    return;
  p->live_checked = true;
  GstQuery *q = gst_query_new_latency ();
  gboolean live = FALSE;
  if (gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), q))
    gst_query_parse_latency (q, &live, nullptr, nullptr);
  gst_query_unref (q);
  p->live = live;
  GST_DEBUG_OBJECT (self, "upstream is %slive: %s", live ? "" : "not ",
      live ? "computing each buffer as it comes" : "batching");
}

/* max-batch 0: AUTO_BATCH_GPU frames on a GPU for a stream that is not
 * live (whole files: fewer, larger launches; on an H100 10 h of 5-minute
 * files to HTK files took 0.31-0.33 s in steady state at 4096 and 0.25 s
 * at 16384), else AUTO_BATCH_CPU (a live stream computes frames as they
 * fall due, and every buffer is sized by the batch: a thousand live
 * streams should not hold four times the memory); no more than the
 * stream's frames, to the next power of two, when upstream knows its
 * duration (a pipeline built for each short file allocates for its frames,
 * not for 16384). 0 when max-batch is set. */
gint
afet_base_wanted_batch (GstAfetBase * self, gint rate, gint S,
    int known_live)
{
  GstAfetBaseState *p = PRIV (self);
  GST_OBJECT_LOCK (self);
  const bool automatic = p->max_batch == 0;
  GST_OBJECT_UNLOCK (self);
  if (!automatic)
    return 0;
  GstPad *sink = GST_BASE_TRANSFORM_SINK_PAD (self);
  gint size = AUTO_BATCH_CPU;
  if (p->device && !p->device->info ().is_cpu) {
    gboolean live = known_live > 0;
    if (known_live < 0) {
      GstQuery *q = gst_query_new_latency ();
      live = TRUE;              /* unknown: as if live */
      if (gst_pad_peer_query (sink, q))
        gst_query_parse_latency (q, &live, nullptr, nullptr);
      gst_query_unref (q);
    }
    if (!live)
      size = AUTO_BATCH_GPU;
  }
  gint64 duration = -1;
  if (rate > 0 && S > 0 && gst_pad_peer_query_duration (sink,
          GST_FORMAT_TIME, &duration) && duration > 0) {
    const guint64 frames = gst_util_uint64_scale (duration, (guint64) rate,
        GST_SECOND) / (guint64) S + 2;
    size = (gint) MIN ((guint64) size, MAX ((guint64) MIN_BATCH,
            (guint64) afet::next_pow2 ((int) MIN (frames, (guint64)
                    AUTO_BATCH_GPU))));
  }
  return size;
}

void
afet_base_auto_batch (GstAfetBase * self, GstAfetInput * in, gint out_dims)
{
  GstAfetBaseState *p = PRIV (self);
  p->built_batch = afet_base_wanted_batch (self, in->rate, in->S);
  if (p->built_batch > 0) {
    in->max_batch = p->built_batch;
    GST_INFO_OBJECT (self, "max-batch 0: batches of %d frames",
        p->built_batch);
  }
  /* every buffer of a batch must fit one device allocation */
  size_t row_floats = (size_t) MAX (in->in_dims, out_dims);
  if (GST_AFET_BASE_GET_CLASS (self)->takes_audio)
    row_floats = MAX (row_floats, (size_t) MAX (in->S,
            afet::next_pow2 (in->W) + 2));
  int limit = p->device->info ().batch_limit (2 * row_floats *
      sizeof (float), in->max_batch);
  if (limit < in->max_batch) {
    GST_INFO_OBJECT (self, "max-batch %d clamped to %d: the device "
        "allocates at most %" G_GSIZE_FORMAT " bytes at once", in->max_batch,
        limit, p->device->info ().max_alloc_bytes);
    in->max_batch = limit;
  }
}

/* The engine, built or kept, takes these caps: the budget, and the
 * window, look-ahead and budget in the latency, are known now. */
void
afet_base_engine_ready (GstAfetBase * self)
{
  afet_base_resolve_budget (self);
  GST_OBJECT_LOCK (self);
  PRIV (self)->last_refusal.clear ();
  GST_OBJECT_UNLOCK (self);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_latency (GST_OBJECT (self)));
}

/* What the engine warned of while building (a program cache it does not
 * trust, ...): on the bus, where a user sees it, not only in the debug
 * log. */
void
afet_base_post_engine_warnings (GstAfetBase * self)
{
  for (const auto & w:afet::take_warnings ())
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("%s", w.c_str ()),
        (nullptr));
}


/* The largest float sample magnitude taken, in 16-bit units: 2^31, the
 * range of S32 (65536 times full scale for float formats). Beyond it the
 * power spectrum of a long frame overflows float. */
static const float kMaxSample = 2147483648.0f;

/* Non-finite input (NaN, +-Inf, or float samples beyond kMaxSample) would
 * spread through the FFT, the statistics and every later
 * frame: such values are taken as 0, and the application is warned once a
 * run, with the stream time of the first one. */
static void
replace_nonfinite (GstAfetBase * self, float *x, size_t n, guint64 first_unit,
    float limit)
{
  GstAfetBaseState *p = PRIV (self);
  size_t bad = 0, first_bad = 0;
  for (size_t i = 0; i < n; i++) {
    /* written so that NaN fails it too */
    if (G_UNLIKELY (!(std::fabs (x[i]) <= limit))) {
      if (bad++ == 0)
        first_bad = i;
      x[i] = 0.0f;
    }
  }
  if (G_LIKELY (bad == 0) || p->warned_nonfinite)
    return;
  p->warned_nonfinite = true;
  guint64 sample = p->in.audio ? first_unit + first_bad :
      (first_unit + first_bad / (size_t) p->in.in_dims) * (guint64) p->in.S;
  GstClockTime at = p->t0 + gst_util_uint64_scale (sample, GST_SECOND,
      (guint64) p->in.rate);
  GST_ELEMENT_WARNING (self, STREAM, FORMAT,
      ("%s: the input holds NaN or infinite values (first at %"
          GST_TIME_FORMAT "); they are taken as 0. Told once per run.",
          GST_ELEMENT_NAME (self), GST_TIME_ARGS (at)),
      ("%" G_GSIZE_FORMAT " non-finite values in one buffer", bad));
}

/* Appends an input buffer to the stream, as floats in 16-bit integer
 * scale. */
gboolean
afet_base_append_input (GstAfetBase * self, GstBuffer * buf)
{
  GstAfetBaseState *p = PRIV (self);
  GstMapInfo map;
  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    return FALSE;

  if (p->in.audio) {
    const GstAudioInfo *ai = &p->in.audio_info;
    const size_t bpf = (size_t) GST_AUDIO_INFO_BPF (ai);
    /* a buffer may end inside a sample: its bytes wait for the next one
     * (joined in an aligned copy) */
    const guint8 *data = map.data;
    size_t size = map.size;
    std::vector<guint8> joined;
    if (!p->partial_sample.empty () || (uintptr_t) data % bpf != 0) {
      joined.swap (p->partial_sample);
      joined.insert (joined.end (), data, data + size);
      data = joined.data ();
      size = joined.size ();
    }
    size_t n = size / bpf;
    p->partial_sample.assign (data + n * bpf, data + size);
    void *raw = p->stream.append_samples (n);
    float *dst = (float *) raw;
    switch (GST_AUDIO_INFO_FORMAT (ai)) {
      case GST_AUDIO_FORMAT_S16LE:{
        /* held as they came (p->in.samples is S16): converted on the
         * device */
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
        /* a plain copy: the element-wise loop, not vectorised at -O2, was
         * a quarter of afet-extract's time on long files */
        if (n > 0)              /* raw is null for none */
          memcpy (raw, data, n * sizeof (gint16));
#else
        const gint16 *s = (const gint16 *) data;
        gint16 *d = (gint16 *) raw;
        for (size_t i = 0; i < n; i++)
          d[i] = GINT16_FROM_LE (s[i]);
#endif
        break;
      }
      case GST_AUDIO_FORMAT_S32LE:{
        const gint32 *s = (const gint32 *) data;
        for (size_t i = 0; i < n; i++)
          dst[i] = (float) ((double) GINT32_FROM_LE (s[i]) / 65536.0);
        break;
      }
      case GST_AUDIO_FORMAT_F32LE:{
        const float *s = (const float *) data;
        for (size_t i = 0; i < n; i++)
          dst[i] = s[i] * 32768.0f;
        break;
      }
      case GST_AUDIO_FORMAT_F64LE:{
        const double *s = (const double *) data;
        for (size_t i = 0; i < n; i++)
          dst[i] = (float) (s[i] * 32768.0);
        break;
      }
      default:
        gst_buffer_unmap (buf, &map);
        return FALSE;
    }
    if (GST_AUDIO_INFO_IS_FLOAT (ai))
      replace_nonfinite (self, dst, n, p->units_in, kMaxSample);
    p->units_in += n;
  } else {
    /* whole frames of in_dims floats; a trailing partial frame waits */
    float *fresh;
    size_t floats;
    p->stream.append_row_bytes (map.data, map.size, &fresh, &floats);
    replace_nonfinite (self, fresh, floats, p->units_in, FLT_MAX);
    p->units_in += floats / (size_t) p->in.in_dims;
  }
  gst_buffer_unmap (buf, &map);
  return TRUE;
}

/* A buffer of whole frames in device memory of our device: computed as it
 * is, without a copy to the host (upstream has batched it already). */
bool
afet_base_take_on_device (GstAfetBase * self, GstBuffer * input)
{
  GstAfetBaseState *p = PRIV (self);
  if (p->in.audio || !p->stream.empty () || gst_buffer_n_memory (input) != 1)
    return false;
  GstMemory *mem = gst_buffer_peek_memory (input, 0);
  const gsize row_bytes = (gsize) p->in.in_dims * sizeof (float);
  return gst_is_afet_cl_memory (mem) && mem->offset == 0 &&
      gst_afet_cl_memory_get_device (mem) == p->device.get () &&
      mem->size % row_bytes == 0 &&
      gst_afet_cl_memory_get_origin (mem) % row_bytes == 0;
}

/* A buffer take_on_device accepted (consumed): computed from its device
 * rows, or (context elements) its rows copied into the history. */
GstFlowReturn
afet_base_submit_device_buffer (GstAfetBase * self, GstBuffer * input)
{
  GstAfetBaseState *p = PRIV (self);
  GstMemory *mem = gst_buffer_peek_memory (input, 0);
  gint64 n = (gint64) (mem->size / ((gsize) p->in.in_dims *
          sizeof (float)));
  p->units_in += (guint64) n;
  GstFlowReturn ret = GST_FLOW_OK;
  afet::Status st;
  if (p->context_mode && afet_base_lanes_active (self)) {
    /* live: the rows go into this stream's lane from where they are */
    ret = afet_base_lanes_push_device (self, mem, n);
    gst_buffer_unref (input);
    return ret;
  }
  st = afet_base_sync_memory (self, mem, FALSE);
  if (st.ok () && p->context_mode && !p->live && !p->adopted &&
      p->history.received () == 0 && p->stream.empty () &&
      gst_afet_cl_memory_get_origin (mem) == 0 &&
      afet::RowHistory::ready_of (p->history.extent (), n, 0, false) <
      (gint64) p->in.max_batch) {
    /* the run's first rows, of which no batch is due before more come or
     * the run ends: read where they are (a short input's one buffer is
     * computed at its end without a copy into the history) */
    GstMapInfo map;
    if (gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ |
                GST_MAP_AFET_CL))) {
      p->history.adopt ((cl_mem) map.data, n);
      gst_memory_unmap (mem, &map);
      p->adopted = input;
      return GST_FLOW_OK;
    }
  }
  if (st.ok () && p->context_mode) {
    GstMapInfo map;
    if (gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ |
                GST_MAP_AFET_CL))) {
      ret = context_push_rows (self, nullptr, (cl_mem) map.data, n,
          gst_afet_cl_memory_get_origin (mem) / (gsize) (p->in.in_dims *
              sizeof (float)));
      if (ret == GST_FLOW_OK)
        st = afet_base_mark_completion (self, mem, nullptr);
      gst_memory_unmap (mem, &map);
    } else {
      st = afet::Status (afet::Status::OPENCL,
          "cannot map the input device memory");
    }
  } else if (st.ok () && n > 0) {
    GstAfetBatch batch;
    GstBuffer *out = nullptr;
    ret = afet_base_compute (self, n, &batch, mem, &out);
    if (ret == GST_FLOW_OK)
      afet_base_queue_output (self, out, n);
  }
  gst_buffer_unref (input);
  if (!st.ok ()) {
    afet_base_post_engine_error (self, st.message ().c_str ());
    return GST_FLOW_ERROR;
  }
  return ret;
}
