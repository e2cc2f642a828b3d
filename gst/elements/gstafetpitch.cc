/* The afetpitch element: Kaldi's pitch features (compute-kaldi-pitch-feats,
 * process-kaldi-pitch-feats) of each utterance of an audio stream.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afetpitch
 * @title: afetpitch
 *
 * Kaldi's pitch features (Ghahremani et al. 2014) on an OpenCL device:
 * with process=true (the default) what compute-and-process-kaldi-pitch-feats
 * gives (pov feature, normalised log pitch, delta pitch: 3 columns, or the
 * columns the add-* properties select), with process=false what
 * compute-kaldi-pitch-feats gives (nccf, pitch in Hz). Every option of
 * Kaldi's PitchExtractionOptions and ProcessPitchOptions is a property of
 * the same name and default.
 *
 * Offline (frames-per-chunk=0, a source that is not live): an utterance
 * is the audio from the stream's start, or from a DISCONT, to the next
 * DISCONT or EOS; its frames (10 ms each) go out when it ends, computed as
 * Kaldi computes them offline: resampled to resample-frequency with Kaldi's
 * LinearResample, the NCCF of every frame at every lag and the Viterbi
 * forward pass over the lag grid on the device, the backtrace on the
 * device, the processing on the host (double).
 *
 * Online (frames-per-chunk > 0), as Kaldi's OnlinePitchFeature and
 * OnlineProcessPitch: the utterance is taken in chunks of frames-per-chunk
 * frames' samples from its start, whatever the buffer sizes; after each
 * chunk the new frames' NCCF (ballast from the energy of the input so far)
 * is computed on the device (the offline kernels on the chunk), their
 * Viterbi step on the host, and the best path traced back; the early
 * frames are rescaled at recompute-frame or the end. With
 * simulate-first-pass-online=false the element gives Kaldi's final online
 * output (compute-kaldi-pitch-feats --frames-per-chunk): every frame at the
 * end of the utterance, from the final traceback. With
 * simulate-first-pass-online=true each frame is pushed as soon as it is
 * ready (the last max-frames-latency frames wait for the traceback, and
 * processed rows for the normalisation-right-context, less the delay) with
 * the value it has then: Kaldi's first pass; pushed frames never change,
 * so where the final traceback or the recomputation would change a frame,
 * the consumer keeps the first-pass value.
 *
 * A live source always runs online with the first pass (what it pushes
 * cannot change), in chunks of 10 frames when frames-per-chunk is 0: a live
 * consumer gets exactly compute-kaldi-pitch-feats (or
 * compute-and-process-kaldi-pitch-feats) --frames-per-chunk=N
 * --simulate-first-pass-online=true, the frames left at EOS (or DISCONT)
 * from the final traceback. Online frames differ from offline ones as
 * Kaldi's do (docs/kaldi-recipe.md): the final online output in the lag of
 * 0.4 % of the test frames (the ballast's energy is the input's so far),
 * the first pass in 17 % (each frame's lag is the best path's at the end of
 * its chunk; max-frames-latency holds frames back until the paths agree).
 * The latency query adds the look-ahead: the
 * frame's window and longest lag (45.5 ms by default), the resampler's
 * half width, one chunk, max-frames-latency frames and, processed, the
 * normalisation's right context less the delay (750 ms by default).
 *
 * delta-pitch-noise-stddev keeps Kaldi's default, 0.005: Gaussian noise
 * added to the delta pitch as Kaldi adds it for training, drawn from a
 * generator seeded by srand (Kaldi draws from rand (): the values differ
 * from Kaldi's, not their distribution). Set it to 0 for deterministic
 * output equal to Kaldi's with --delta-pitch-noise-stddev=0.
 *
 * Samples are taken in Kaldi's scale: 16-bit values (float input times
 * 32768).
 *
 * The output is `kind=user` with a `pitch-columns` field naming the
 * columns (docs/caps.md), e.g. "pov,normalized-log-pitch,delta-pitch".
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=s.wav ! wavparse ! afetpitch \
 *     delta-pitch-noise-stddev=0 ! afetenc format=kaldi ! \
 *     filesink location=pitch.ark    # compute-and-process-kaldi-pitch-feats
 * gst-launch-1.0 filesrc location=s.wav ! wavparse ! \
 *     afetpitch process=false ! afetenc format=kaldi ! \
 *     filesink location=raw.ark      # compute-kaldi-pitch-feats
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetpitch.h"
#include "gstafetpitch-options.h"
#include "gstafetpitch-private.h"
#include "gstafetbase.h"
#include "gstafetclmemory.h"
#include "gstafetdevice.h"
#include "afetfeatures.h"
#include "pitch.h"
#include "pitch-online.h"

#include <gst/audio/audio.h>

#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY (gst_afet_pitch_debug);
#define GST_CAT_DEFAULT gst_afet_pitch_debug

enum
{
  PROP_0,
  PROP_PROCESS,
  PROP_DEVICE,
  PROP_DEVICE_NAME,
  PROP_DEVICE_MEMORY,
  /* the Kaldi options, numbered from here (gstafetpitch-options.cc) */
  PROP_KALDI_FIRST,
};

G_DEFINE_TYPE (GstAfetPitch, gst_afet_pitch, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (afetpitch, "afetpitch", GST_RANK_NONE,
    GST_TYPE_AFET_PITCH);

/* the caps' pitch-columns field: the output's columns, comma-separated */
static std::string
pitch_columns (gboolean process, const afet::ProcessPitchConfig & c)
{
  if (!process)
    return "nccf,pitch";
  std::string s;
  auto add =[&](bool on, const char *name) {
    if (on)
      s += (s.empty ()? "" : ",") + std::string (name);
  };
  add (c.add_pov_feature, "pov");
  add (c.add_normalized_log_pitch, "normalized-log-pitch");
  add (c.add_delta_pitch, "delta-pitch");
  add (c.add_raw_log_pitch, "raw-log-pitch");
  return s;
}

/* whether upstream is live, asked once a run: a live source gets online
 * pitch, its frames pushed as they are ready */
static void
check_live (GstAfetPitch * self)
{
  GstAfetPitchPrivate *p = self->priv;
  if (p->live_checked)
    return;
  p->live_checked = true;
  GstQuery *q = gst_query_new_latency ();
  gboolean live = FALSE;
  if (gst_pad_peer_query (self->sinkpad, q))
    gst_query_parse_latency (q, &live, nullptr, nullptr);
  gst_query_unref (q);
  p->live = live;
  if (live)
    GST_INFO_OBJECT (self, "live source: online pitch, each frame pushed as "
        "it is first ready (simulate-first-pass-online)");
}

/* the settings as the streaming thread uses them; FALSE with the error
 * posted when they cannot work. A live source with frames-per-chunk=0 runs
 * in Kaldi's chunks of LIVE_FRAMES_PER_CHUNK frames. */
static gboolean
take_settings (GstAfetPitch * self, afet::PitchConfig * pc,
    afet::ProcessPitchConfig * pp, gboolean * process)
{
  GstAfetPitchPrivate *p = self->priv;
  check_live (self);
  GST_OBJECT_LOCK (self);
  *pc = p->pitch;
  *pp = p->proc;
  *process = p->process;
  GST_OBJECT_UNLOCK (self);
  pc->samp_freq = (float) GST_AUDIO_INFO_RATE (&p->info);
  if (p->live && pc->frames_per_chunk == 0)
    pc->frames_per_chunk = LIVE_FRAMES_PER_CHUNK;
  afet::Status st = pc->validate ();
  if (st.ok () && *process)
    st = pp->validate ();
  if (!st.ok ()) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Cannot compute pitch of "
            "%d Hz audio: %s.", GST_AUDIO_INFO_RATE (&p->info),
            st.message ().c_str ()), (nullptr));
    return FALSE;
  }
  return TRUE;
}

static gboolean
set_output_caps (GstAfetPitch * self, const afet::PitchConfig & pc,
    const afet::ProcessPitchConfig & pp, gboolean process)
{
  GstAfetPitchPrivate *p = self->priv;
  int rate = GST_AUDIO_INFO_RATE (&p->info);
  int W = MAX (1, (int) lround (pc.frame_length_ms * rate / 1000.0));
  int S = MAX (1, (int) lround (pc.frame_shift_ms * rate / 1000.0));
  int dims = process ? pp.dims () : 2;
  afet_features_info_set_format (&p->out, AFET_FEATURES_KIND_USER, rate, W,
      S, dims, 0);
  p->out.preset = AFET_FEATURES_PRESET_KALDI;
  GstCaps *caps = afet_features_info_to_caps (&p->out);
  /* which of Kaldi's outputs the frames are (docs/caps.md): offline,
   * online with the final traceback, or the first pass (a live source's) */
  const char *pass = pc.frames_per_chunk == 0 ? "offline" :
      pc.simulate_first_pass_online || p->live ? "first-pass" : "online";
  gst_caps_set_simple (caps, "pitch-columns", G_TYPE_STRING,
      pitch_columns (process, pp).c_str (), "pitch-pass", G_TYPE_STRING,
      pass, "pitch-frames-per-chunk", G_TYPE_INT, pc.frames_per_chunk,
      nullptr);
  GST_OBJECT_LOCK (self);
  gboolean want_device = p->device_memory_set ? p->device_memory :
      !p->live;
  GST_OBJECT_UNLOCK (self);
  p->out_device = false;
  if (want_device) {
    GstCaps *dev = gst_caps_copy (caps);
    gst_caps_set_features (dev, 0,
        gst_caps_features_new (AFET_CAPS_FEATURE_MEMORY_CL, nullptr));
    GstCaps *peer = gst_pad_peer_query_caps (self->srcpad, dev);
    if (peer && !gst_caps_is_empty (peer)) {
      gst_caps_unref (caps);
      caps = dev;
      p->out_device = true;
    } else {
      gst_caps_unref (dev);
    }
    if (peer)
      gst_caps_unref (peer);
  }
  GST_DEBUG_OBJECT (self, "output caps %" GST_PTR_FORMAT, caps);
  gboolean ok = gst_pad_push_event (self->srcpad, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  if (!ok)
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Downstream refused "
            "afetpitch's output (kind=user, %d columns).", dims),
        ("no caps event"));
  return ok;
}

/* whether the utterance holds samples not yet computed */
static bool
has_samples (const GstAfetPitchPrivate * p)
{
  return !p->samples.empty () || !p->samples16.empty ();
}

static void
clear_samples (GstAfetPitchPrivate * p)
{
  p->samples.clear ();
  p->samples16.clear ();
}

/* audio samples of the buffer, in Kaldi's scale, appended to the
 * utterance: 16-bit ones offline as they are (PitchStage widens them on
 * the device) */
static void
append_samples (GstAfetPitchPrivate * p, const guint8 * d, gsize bytes)
{
  gsize n = bytes / GST_AUDIO_INFO_BPF (&p->info);
  if (!p->in_utterance &&
      GST_AUDIO_INFO_FORMAT (&p->info) == GST_AUDIO_FORMAT_S16LE) {
    size_t at = p->samples16.size ();
    p->samples16.resize (at + n);
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
    memcpy (p->samples16.data () + at, d, n * 2);
#else
    for (gsize i = 0; i < n; i++)
      p->samples16[at + i] = (gint16) GST_READ_UINT16_LE (d + 2 * i);
#endif
    return;
  }
  size_t at = p->samples.size ();
  p->samples.resize (at + n);
  float *o = p->samples.data () + at;
  switch (GST_AUDIO_INFO_FORMAT (&p->info)) {
    case GST_AUDIO_FORMAT_S16LE:
      for (gsize i = 0; i < n; i++)
        o[i] = (float) (gint16) GST_READ_UINT16_LE (d + 2 * i);
      break;
    case GST_AUDIO_FORMAT_S32LE:
      for (gsize i = 0; i < n; i++)
        o[i] = (float) ((gint32) GST_READ_UINT32_LE (d + 4 * i) / 65536.0);
      break;
    case GST_AUDIO_FORMAT_F32LE:
      for (gsize i = 0; i < n; i++)
        o[i] = GST_READ_FLOAT_LE (d + 4 * i) * 32768.0f;
      break;
    default:
      for (gsize i = 0; i < n; i++)
        o[i] = (float) (GST_READ_DOUBLE_LE (d + 8 * i) * 32768.0);
      break;
  }
}

/* the stage for pc, built when the rate or the options changed; FALSE
 * with the error posted */
static gboolean
ensure_stage (GstAfetPitch * self, const afet::PitchConfig & pc)
{
  GstAfetPitchPrivate *p = self->priv;
  char key[64];
  g_snprintf (key, sizeof key, "%g", (double) pc.samp_freq);
  std::string k = key + std::string ((const char *) &pc, sizeof pc);
  if (p->stage && p->stage_key == k)
    return TRUE;
  p->stage.reset ();
  p->online.reset ();
  auto stage = std::make_unique<afet::PitchStage> ();
  afet::Status st = stage->init (p->device, pc, p->queue.get ());
  if (!st.ok ()) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Cannot build the pitch "
            "kernels on %s: %s", p->device->info ().device_name.c_str (),
            st.message ().c_str ()), (nullptr));
    return FALSE;
  }
  p->stage = std::move (stage);
  p->stage_key = k;
  return TRUE;
}

/* rows first .. first + n - 1 of the utterance (starting at p->t0) pushed
 * in one buffer; the first has DISCONT */
static GstFlowReturn
push_rows (GstAfetPitch * self, const float *rows, int n, int first)
{
  GstAfetPitchPrivate *p = self->priv;
  int dims = p->out.dims;
  gsize bytes = (gsize) n * dims * sizeof (float);
  GstBuffer *buf;
  if (p->out_device) {
    afet::Status ms;
    GstMemory *m = gst_afet_cl_memory_new (p->device, p->queue.get (),
        p->stats, bytes, &ms);
    GstMapInfo map;
    if (!m || !gst_memory_map (m, &map, (GstMapFlags) (GST_MAP_WRITE |
                GST_MAP_AFET_CL))) {
      if (m)
        gst_memory_unref (m);
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("No device memory for "
              "%d pitch frames: %s", n, ms.message ().c_str ()), (nullptr));
      return GST_FLOW_ERROR;
    }
    cl_int err = clEnqueueWriteBuffer (p->queue.get (), (cl_mem) map.data,
        CL_TRUE, 0, bytes, rows, 0, nullptr, nullptr);
    gst_memory_unmap (m, &map);
    if (err != CL_SUCCESS) {
      gst_memory_unref (m);
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Cannot copy the pitch "
              "frames to the device: OpenCL error %d", err), (nullptr));
      return GST_FLOW_ERROR;
    }
    buf = gst_buffer_new ();
    gst_buffer_append_memory (buf, m);
  } else {
    buf = gst_buffer_new_allocate (nullptr, bytes, nullptr);
    gst_buffer_fill (buf, 0, rows, bytes);
  }
  GST_BUFFER_PTS (buf) = p->t0 + afet_features_info_frames_to_time (&p->out,
      first);
  GST_BUFFER_DURATION (buf) = afet_features_info_frames_to_time (&p->out,
      first + n) - afet_features_info_frames_to_time (&p->out, first);
  /* offsets count the utterance's frames */
  GST_BUFFER_OFFSET (buf) = first;
  GST_BUFFER_OFFSET_END (buf) = first + n;
  if (first == 0)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  return gst_pad_push (self->srcpad, buf);
}

/* raw frames (nccf, pitch) as they are or processed: rows out of T raw
 * frames (T + delay processed) */
static int
output_rows (GstAfetPitch * self, const afet::ProcessPitchConfig & pp,
    gboolean process, std::vector<float> &raw, std::vector<float> &proc,
    const float **rows)
{
  int T = (int) (raw.size () / 2);
  *rows = raw.data ();
  if (!process || T == 0)
    return T;
  proc.resize ((size_t) (T + pp.delay) * self->priv->out.dims);
  afet::process_pitch (pp, raw.data (), T, proc.data ());
  *rows = proc.data ();
  return T + pp.delay;
}

/* The online utterance's chunks the tracker can take: every whole chunk
 * but the last (Kaldi's last chunk is taken with the end of input), with
 * final the rest and the end; in first-pass mode the rows ready after each
 * chunk are pushed, as Kaldi's first pass gets them after each
 * AcceptWaveform; otherwise all rows, from the final traceback, at the
 * end. */
static GstFlowReturn
feed_online (GstAfetPitch * self, bool final)
{
  GstAfetPitchPrivate *p = self->priv;
  afet::OnlinePitch & on = *p->online;
  size_t off = 0;
  afet::Status st;
  GstFlowReturn ret = GST_FLOW_OK;
  while (ret == GST_FLOW_OK) {
    size_t left = p->samples.size () - off;
    bool last = final && left <= (size_t) p->chunk;
    if (!last && left <= (size_t) p->chunk)
      break;
    size_t take = MIN (left, (size_t) p->chunk);
    if (take > 0)
      st = on.accept (p->samples.data () + off, (long long) take);
    if (st.ok () && last)
      st = on.finish ();
    off += take;
    p->utt_samples += (long long) take;
    if (!st.ok ()) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Online pitch failed "
              "after %lld samples: %s", p->utt_samples,
              st.message ().c_str ()), (nullptr));
      ret = GST_FLOW_ERROR;
      break;
    }
    if (p->first_pass) {
      int ready = p->utt_process ? p->online_proc.rows_ready (on) :
          on.frames_ready ();
      if (ready > p->pushed) {
        int n = ready - p->pushed;
        std::vector<float> rows ((size_t) n * p->out.dims);
        if (p->utt_process) {
          p->online_proc.rows (on, p->pushed, ready, rows.data ());
        } else {
          for (int t = p->pushed; t < ready; t++)
            on.frame (t, &rows[2 * (t - p->pushed)],
                &rows[2 * (t - p->pushed) + 1]);
        }
        ret = push_rows (self, rows.data (), n, p->pushed);
        p->pushed = ready;
      }
    } else if (last) {
      int T = on.frames_ready ();
      std::vector<float> raw ((size_t) T * 2), proc;
      for (int t = 0; t < T; t++)
        on.frame (t, &raw[2 * t], &raw[2 * t + 1]);
      const float *rows;
      int n = output_rows (self, p->utt_pp, p->utt_process, raw, proc,
          &rows);
      if (n > 0)
        ret = push_rows (self, rows, n, 0);
    }
    if (last)
      break;
  }
  p->samples.erase (p->samples.begin (), p->samples.begin () + off);
  return ret;
}

/* a new online utterance (frames-per-chunk > 0, or a live source) */
static gboolean
start_online (GstAfetPitch * self, const afet::PitchConfig & pc,
    const afet::ProcessPitchConfig & pp, gboolean process)
{
  GstAfetPitchPrivate *p = self->priv;
  if (!ensure_stage (self, pc))
    return FALSE;
  if (!p->caps_sent) {
    if (!set_output_caps (self, pc, pp, process))
      return FALSE;
    p->caps_sent = true;
  }
  if (!p->online) {
    p->online = std::make_unique<afet::OnlinePitch> ();
    p->online->init (p->stage.get ());
  }
  p->online->reset ();
  p->online_proc.init (pp);
  p->utt_pp = pp;
  p->utt_process = process;
  /* pushed frames cannot change: a live consumer gets the first pass */
  p->first_pass = pc.simulate_first_pass_online || p->live;
  p->chunk = afet::pitch_chunk_samples (pc);
  p->utt_samples = 0;
  p->pushed = 0;
  p->in_utterance = true;
  GST_DEBUG_OBJECT (self, "online utterance: chunks of %lld samples, %s",
      p->chunk, p->first_pass ? "first pass" : "final traceback at the end");
  return TRUE;
}

/* The utterance so far, computed and pushed (nothing if it is empty). */
static GstFlowReturn
finish_utterance (GstAfetPitch * self)
{
  GstAfetPitchPrivate *p = self->priv;
  if (p->in_utterance) {
    p->in_utterance = false;
    GstFlowReturn ret = feed_online (self, true);
    p->samples.clear ();
    p->run_end = p->t0 + gst_util_uint64_scale (p->utt_samples, GST_SECOND,
        p->out.rate);
    return ret;
  }
  if (!has_samples (p) || !p->have_info)
    return GST_FLOW_OK;
  afet::PitchConfig pc;
  afet::ProcessPitchConfig pp;
  gboolean process;
  if (!take_settings (self, &pc, &pp, &process))
    return GST_FLOW_ERROR;
  if (!ensure_stage (self, pc))
    return GST_FLOW_ERROR;
  if (!p->caps_sent) {
    if (!set_output_caps (self, pc, pp, process))
      return GST_FLOW_NOT_NEGOTIATED;
    p->caps_sent = true;
  }
  std::vector<float> raw;
  const bool s16 = !p->samples16.empty ();
  long long n_in = (long long) (s16 ? p->samples16.size () :
      p->samples.size ());
  afet::Status st = s16 ? p->stage->compute (p->samples16.data (), n_in,
      &raw) : p->stage->compute (p->samples.data (), n_in, &raw);
  clear_samples (p);
  if (!st.ok ()) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Pitch of an utterance of "
            "%lld samples failed: %s", n_in, st.message ().c_str ()),
        (nullptr));
    return GST_FLOW_ERROR;
  }
  std::vector<float> proc;
  const float *rows;
  int rows_n = output_rows (self, pp, process, raw, proc, &rows);
  p->run_end = p->t0 + gst_util_uint64_scale_int (GST_SECOND, (int) n_in,
      p->out.rate);
  if (rows_n == 0) {
    GST_DEBUG_OBJECT (self, "an utterance of %lld samples gives no frame",
        n_in);
    return GST_FLOW_OK;
  }
  GST_DEBUG_OBJECT (self, "utterance of %lld samples: %d frames", n_in,
      rows_n);
  return push_rows (self, rows, rows_n, 0);
}

static GstFlowReturn
gst_afet_pitch_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstAfetPitch *self = GST_AFET_PITCH (parent);
  GstAfetPitchPrivate *p = self->priv;
  if (p->failed || !p->have_info) {
    gst_buffer_unref (buf);
    if (!p->have_info)
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("No audio caps before "
              "the first buffer."), (nullptr));
    return GST_FLOW_ERROR;
  }
  GstFlowReturn ret = GST_FLOW_OK;
  if (GST_BUFFER_IS_DISCONT (buf) && (has_samples (p) || p->in_utterance))
    ret = finish_utterance (self);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (buf);
    if (ret == GST_FLOW_ERROR)
      p->failed = true;
    return ret;
  }
  if (!has_samples (p) && !p->in_utterance) {
    /* a new utterance: offline, or online with frames-per-chunk > 0 (a
     * live source's default included) */
    p->t0 = GST_BUFFER_PTS_IS_VALID (buf) ? GST_BUFFER_PTS (buf) :
        p->run_end;
    afet::PitchConfig pc;
    afet::ProcessPitchConfig pp;
    gboolean process;
    if (!take_settings (self, &pc, &pp, &process) ||
        (pc.frames_per_chunk > 0 && !start_online (self, pc, pp, process))) {
      p->failed = true;
      gst_buffer_unref (buf);
      return GST_FLOW_ERROR;
    }
    /* offline, the whole utterance is held: room for what upstream says
     * is left of the stream (up to an hour's), so that it is not copied
     * as it grows (on a GPU host, copying and first touching the memory
     * took longer than reading a ten-minute file) */
    gint64 dur = -1;
    if (pc.frames_per_chunk <= 0 && gst_pad_peer_query_duration
        (self->sinkpad, GST_FORMAT_TIME, &dur) && dur > 0 &&
        GST_CLOCK_TIME_IS_VALID (p->t0) && (GstClockTime) dur > p->t0) {
      guint64 n = gst_util_uint64_scale_ceil ((GstClockTime) dur - p->t0,
          p->out.rate, GST_SECOND);
      n = MIN (n, (guint64) p->out.rate * 3600);
      if (GST_AUDIO_INFO_FORMAT (&p->info) == GST_AUDIO_FORMAT_S16LE)
        p->samples16.reserve ((size_t) n);
      else
        p->samples.reserve ((size_t) n);
    }
  }
  GstMapInfo map;
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map an input buffer."),
        (nullptr));
    return GST_FLOW_ERROR;
  }
  if (map.size % GST_AUDIO_INFO_BPF (&p->info) != 0)
    GST_WARNING_OBJECT (self, "a buffer of %" G_GSIZE_FORMAT " bytes holds "
        "a part of a sample: dropped", map.size);
  append_samples (p, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  if (p->in_utterance) {
    ret = feed_online (self, false);
    if (ret == GST_FLOW_ERROR)
      p->failed = true;
  }
  return ret;
}

static gboolean
gst_afet_pitch_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstAfetPitch *self = GST_AFET_PITCH (parent);
  GstAfetPitchPrivate *p = self->priv;
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      gst_event_parse_caps (event, &caps);
      GstAudioInfo info;
      if (!gst_audio_info_from_caps (&info, caps)) {
        GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("afetpitch cannot take "
                "%" GST_PTR_FORMAT, caps), (nullptr));
        gst_event_unref (event);
        return FALSE;
      }
      if (p->have_info && (has_samples (p) || p->in_utterance))
        finish_utterance (self);
      p->info = info;
      p->have_info = true;
      p->caps_sent = false;
      afet::PitchConfig pc;
      afet::ProcessPitchConfig pp;
      gboolean process;
      gst_event_unref (event);
      /* a bad rate or bad options fail now, before any audio */
      if (!take_settings (self, &pc, &pp, &process)) {
        p->failed = true;
        return FALSE;
      }
      if (!set_output_caps (self, pc, pp, process))
        return FALSE;
      p->caps_sent = true;
      return TRUE;
    }
    case GST_EVENT_EOS:
      if (!p->failed && finish_utterance (self) == GST_FLOW_ERROR)
        p->failed = true;
      break;
    case GST_EVENT_FLUSH_STOP:
      clear_samples (p);
      p->in_utterance = false;
      p->failed = false;
      break;
    case GST_EVENT_SEGMENT:
      /* a new segment: a new utterance */
      if ((has_samples (p) || p->in_utterance) && !p->failed &&
          finish_utterance (self) == GST_FLOW_ERROR)
        p->failed = true;
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

static void
gst_afet_pitch_set_context (GstElement * element, GstContext * context)
{
  GstAfetPitch *self = GST_AFET_PITCH (element);
  gst_afet_handle_set_context (element, context, &self->priv->shared_device);
  GST_ELEMENT_CLASS (gst_afet_pitch_parent_class)->set_context (element,
      context);
}

static gboolean
pitch_start (GstAfetPitch * self)
{
  GstAfetPitchPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  std::string request = p->device_request;
  GST_OBJECT_UNLOCK (self);
  if (!gst_afet_acquire_element_device (GST_ELEMENT (self), request,
          request != "auto", &p->shared_device))
    return FALSE;
  p->device = gst_afet_device_get_device (p->shared_device);
  if (!p->queue) {
    afet::Status st = p->device->element_queue (&p->queue);
    if (!st.ok ()) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Cannot make a queue on "
              "%s: %s", p->device->info ().device_name.c_str (),
              st.message ().c_str ()), (nullptr));
      return FALSE;
    }
  }
  GST_OBJECT_LOCK (self);
  p->device_name = p->device->info ().device_name;
  GST_OBJECT_UNLOCK (self);
  clear_samples (p);
  p->have_info = false;
  p->caps_sent = false;
  p->t0 = GST_CLOCK_TIME_NONE;
  p->run_end = 0;
  p->live_checked = false;
  p->live = false;
  p->in_utterance = false;
  p->failed = false;
  return TRUE;
}

static GstStateChangeReturn
gst_afet_pitch_change_state (GstElement * element, GstStateChange transition)
{
  GstAfetPitch *self = GST_AFET_PITCH (element);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED && !pitch_start (self))
    return GST_STATE_CHANGE_FAILURE;
  GstStateChangeReturn ret =
      GST_ELEMENT_CLASS (gst_afet_pitch_parent_class)->change_state (element,
      transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    clear_samples (self->priv);
    self->priv->samples.shrink_to_fit ();
    self->priv->samples16.shrink_to_fit ();
    self->priv->in_utterance = false;
    self->priv->online.reset ();
  }
  return ret;
}

static void
gst_afet_pitch_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAfetPitch *self = GST_AFET_PITCH (object);
  GstAfetPitchPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  if (prop_id >= PROP_KALDI_FIRST &&
      gst_afet_pitch_set_option (&p->pitch, &p->proc,
          prop_id - PROP_KALDI_FIRST, value)) {
    GST_OBJECT_UNLOCK (self);
    return;
  }
  switch (prop_id) {
    case PROP_PROCESS:
      p->process = g_value_get_boolean (value);
      break;
    case PROP_DEVICE:{
      const gchar *s = g_value_get_string (value);
      p->device_request = s && *s ? s : DEFAULT_DEVICE;
      break;
    }
    case PROP_DEVICE_MEMORY:
      p->device_memory = g_value_get_boolean (value);
      p->device_memory_set = true;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_pitch_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAfetPitch *self = GST_AFET_PITCH (object);
  GstAfetPitchPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  if (prop_id >= PROP_KALDI_FIRST &&
      gst_afet_pitch_get_option (&p->pitch, &p->proc,
          prop_id - PROP_KALDI_FIRST, value)) {
    GST_OBJECT_UNLOCK (self);
    return;
  }
  switch (prop_id) {
    case PROP_PROCESS:
      g_value_set_boolean (value, p->process);
      break;
    case PROP_DEVICE:
      g_value_set_string (value, p->device_request.c_str ());
      break;
    case PROP_DEVICE_NAME:
      g_value_set_string (value, p->device_name.empty ()? nullptr :
          p->device_name.c_str ());
      break;
    case PROP_DEVICE_MEMORY:
      g_value_set_boolean (value, p->device_memory);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_pitch_finalize (GObject * object)
{
  GstAfetPitch *self = GST_AFET_PITCH (object);
  if (self->priv->shared_device)
    gst_object_unref (self->priv->shared_device);
  delete self->priv;
  G_OBJECT_CLASS (gst_afet_pitch_parent_class)->finalize (object);
}

static void
gst_afet_pitch_class_init (GstAfetPitchClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_DEBUG_CATEGORY_INIT (gst_afet_pitch_debug, "afetpitch", 0,
      "afet Kaldi pitch");

  gobject_class->set_property = gst_afet_pitch_set_property;
  gobject_class->get_property = gst_afet_pitch_get_property;
  gobject_class->finalize = gst_afet_pitch_finalize;

  g_object_class_install_property (gobject_class, PROP_PROCESS,
      g_param_spec_boolean ("process", "Process",
          "Output process-kaldi-pitch-feats' features (the add-* columns); "
          "FALSE: compute-kaldi-pitch-feats' (nccf, pitch in Hz)",
          DEFAULT_PROCESS, flags));
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "OpenCL device: auto, gpu, cpu, P:D or a name substring",
          DEFAULT_DEVICE, flags));
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          "The OpenCL device in use (after start)", nullptr,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (gobject_class, PROP_DEVICE_MEMORY,
      g_param_spec_boolean ("device-memory", "Device memory",
          "Output in device memory (memory:AfetCLMemory) when downstream "
          "takes it; not set: live input gets system memory, other input "
          "device memory", DEFAULT_DEVICE_MEMORY, flags));

  /* Kaldi's options, their defaults the configs' (Kaldi's) */
  gst_afet_pitch_install_options (gobject_class, PROP_KALDI_FIRST, flags);

  /* the pads and metadata of every afet element, without the live
   * latency budget gst_afet_base_class_set_element adds (live, afetpitch
   * computes each chunk when it is in: it combines nothing) */
  GstCaps *caps = gst_caps_from_string (GST_AFET_AUDIO_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string (GST_AFET_FEATURES_CAPS ("user"));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  gst_element_class_set_static_metadata (element_class, "afet Kaldi pitch",
      "Filter/Analyzer/Audio", "Kaldi's pitch features "
      "(compute-and-process-kaldi-pitch-feats) on an OpenCL device",
      "the afet authors");
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_afet_pitch_change_state);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_afet_pitch_set_context);
}

static void
gst_afet_pitch_init (GstAfetPitch * self)
{
  self->priv = new GstAfetPitchPrivate ();
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (self);
  self->sinkpad = gst_pad_new_from_template
      (gst_element_class_get_pad_template (klass, "sink"), "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_afet_pitch_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_afet_pitch_sink_event));
  gst_pad_set_query_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_afet_pitch_sink_query));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  self->srcpad = gst_pad_new_from_template
      (gst_element_class_get_pad_template (klass, "src"), "src");
  gst_pad_set_query_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_afet_pitch_src_query));
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}
