/* afetpitch's pad queries: the latency (the online look-ahead added to
 * upstream's) and the shared device's context, on either pad.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetpitch-private.h"

#include <cmath>

#define GST_CAT_DEFAULT gst_afet_pitch_debug

/* A context query answered with the element's shared device, if it has
 * one (either pad). */
static gboolean
answer_context (GstAfetPitch * self, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return FALSE;
  GST_OBJECT_LOCK (self);
  GstAfetDevice *shared = self->priv->shared_device ? (GstAfetDevice *)
      gst_object_ref (self->priv->shared_device) : nullptr;
  GST_OBJECT_UNLOCK (self);
  gboolean answered = gst_afet_handle_context_query (GST_ELEMENT (self),
      query, shared);
  if (shared)
    gst_object_unref (shared);
  return answered;
}

/* How long after a row's timestamp (its frame's start) it is pushed
 * online, at most: the frame's window and its longest lag at
 * resample-frequency, the resampling filter's half width, a whole chunk of
 * input waiting to be taken (a live source's default chunk when
 * frames-per-chunk is 0), max-frames-latency frames of traceback, and with
 * process the normalisation's right context less the delay. */
static GstClockTime
gst_afet_pitch_online_latency (const afet::PitchConfig * pc,
    const afet::ProcessPitchConfig * pp, gboolean process, int rate)
{
  double rf = pc->resample_freq, half = pc->upsample_filter_width /
      (2.0 * rf);
  int lag1 = (int) std::floor (rf * (1.0 / pc->min_f0 + half));
  int basic = (int) (rf * pc->frame_length_ms / 1000.0),
      shift = (int) (rf * pc->frame_shift_ms / 1000.0), full = basic + lag1;
  /* the window of frame t ends full samples after its start (snip-edges)
   * or half a shift and half the window after (centred) */
  double window = pc->snip_edges ? full / rf : (0.5 * shift + full / 2) / rf;
  double filter = pc->lowpass_filter_width / (2.0 * pc->lowpass_cutoff);
  afet::PitchConfig c = *pc;
  c.samp_freq = (float) rate;
  if (c.frames_per_chunk == 0)
    c.frames_per_chunk = LIVE_FRAMES_PER_CHUNK;
  double chunk = (double) afet::pitch_chunk_samples (c) / rate;
  int frames = pc->max_frames_latency;
  if (process)
    frames += MAX (0, pp->normalization_right_context - pp->delay);
  double s = window + filter + chunk + frames * pc->frame_shift_ms / 1000.0;
  return (GstClockTime) llround (s * GST_SECOND);
}

gboolean
gst_afet_pitch_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstAfetPitch *self = GST_AFET_PITCH (parent);
  GstAfetPitchPrivate *p = self->priv;
  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    if (!gst_pad_peer_query (self->sinkpad, query))
      return FALSE;
    gboolean live;
    GstClockTime min, max;
    gst_query_parse_latency (query, &live, &min, &max);
    GST_OBJECT_LOCK (self);
    afet::PitchConfig pc = p->pitch;
    afet::ProcessPitchConfig pp = p->proc;
    gboolean process = p->process;
    GST_OBJECT_UNLOCK (self);
    if (!live && pc.frames_per_chunk == 0) {
      /* offline: an utterance's frames come at its end, no bound */
      gst_query_set_latency (query, live, min, GST_CLOCK_TIME_NONE);
      return TRUE;
    }
    GstClockTime la = gst_afet_pitch_online_latency (&pc, &pp, process,
        p->have_info ? GST_AUDIO_INFO_RATE (&p->info) : 16000);
    GST_DEBUG_OBJECT (self, "online look-ahead %" GST_TIME_FORMAT,
        GST_TIME_ARGS (la));
    min += la;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += la;
    gst_query_set_latency (query, live, min, max);
    return TRUE;
  }
  if (answer_context (self, query))
    return TRUE;
  return gst_pad_query_default (pad, parent, query);
}

gboolean
gst_afet_pitch_sink_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (answer_context (GST_AFET_PITCH (parent), query))
    return TRUE;
  return gst_pad_query_default (pad, parent, query);
}
