/* The afetpaste element: feature streams of one clock joined frame by frame
 * (Kaldi's paste-feats --length-tolerance).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afetpaste
 * @title: afetpaste
 *
 * Joins two or more feature streams of the same clock (request pads
 * sink_%u) frame by frame, as Kaldi's paste-feats does: output frame n is
 * frame n of sink_0, then frame n of sink_1, ...; its columns are the sum
 * of the inputs'. The streams must have one `rate` and `frame-shift` (the
 * same frames a second; `frame-length` may differ, as MFCC's 25 ms and
 * pitch's): other streams are refused with an error naming both.
 *
 * An utterance is what a stream holds from its start, or a DISCONT, to the
 * next DISCONT or EOS. Frames go out as soon as every input has them (a
 * live MFCC stream joined with a live one waits for neither's end); when
 * the utterance has ended on every input, lengths that differ by at most
 * length-tolerance frames are cut to the shortest (the longer inputs'
 * last frames dropped), as paste-feats --length-tolerance; a larger
 * difference, or an input with no frames, is an error naming the key (the
 * afet-key tag) and the pads, posted as soon as it is certain (a live
 * input past another's end by more than the tolerance fails at once).
 * Kaldi's make_mfcc_pitch.sh pastes with --paste-length-tolerance=2.
 *
 * The output frames take their timestamps from sink_0 (the first pad),
 * whose segment, tags (the afet-key passes through) and stream-start go
 * downstream; the other pads' are dropped.
 *
 * Offline pitch (afetpitch) gives an utterance's frames at its end:
 * afetpaste takes every input buffer at once and keeps the frames not yet
 * joined (an utterance of MFCC while its pitch is computed), so a tee
 * before the branches needs no queue and no queue can fill up and stall
 * the other branch. Input in device memory is read through a map (one
 * download); the sink pads take system memory, so afet elements before
 * them give system memory, and the output is system memory.
 *
 * The output caps are `kind=user` (statics = dims, no c0 or energy index,
 * delta-order 0) with a `blocks` field listing each input's kind and
 * columns, in order (`mfcc:13,pitch:3`; an input with `pitch-columns` is
 * `pitch`, and passes that field, pitch-pass and pitch-frames-per-chunk
 * on; an input with `blocks` gives its
 * blocks), so that a consumer can refuse another layout (docs/caps.md).
 * The analysis fields are sink_0's. Normalised inputs are refused:
 * normalise the joined stream, as Kaldi's recipes apply CMVN after
 * paste-feats.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=s.wav ! wavparse ! tee name=t \
 *     t. ! afetmfcc preset=kaldi ! p.sink_0 \
 *     t. ! afetpitch delta-pitch-noise-stddev=0 ! p.sink_1 \
 *     afetpaste name=p length-tolerance=2 ! afetenc format=kaldi ! \
 *     filesink location=mfcc_pitch.ark     # make_mfcc_pitch.sh
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetpaste.h"
#include "gstafetenc.h"
#include "afetfeatures.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <deque>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY_STATIC (gst_afet_paste_debug);
#define GST_CAT_DEFAULT gst_afet_paste_debug

#define DEFAULT_LENGTH_TOLERANCE 0

enum
{
  PROP_0,
  PROP_LENGTH_TOLERANCE,
};

/* *INDENT-OFF* */
/* one input's utterance: the frames not yet joined */
struct PasteUtt
{
  std::vector<float> frames;
  guint64 got = 0;                  /* frames received in the utterance */
  bool ended = false;
  GstClockTime origin = GST_CLOCK_TIME_NONE;
  std::string key;
  std::vector<GstEvent *> events;   /* sink_0: to push before its frames */
};

struct PastePad
{
  guint index = 0;
  GstPad *pad = nullptr;
  AfetFeaturesInfo info;
  GstCaps *caps = nullptr;
  std::deque<PasteUtt> utts;
  bool open = false;                /* the last utterance takes frames */
  bool eos = false;
  std::vector<GstEvent *> pending;  /* sink_0: events for the next utterance */
};

struct GstAfetPastePrivate
{
  /* property, object lock */
  gint tolerance = DEFAULT_LENGTH_TOLERANCE;

  /* streaming: every pad's thread, under lock */
  std::mutex lock;
  std::map<guint, PastePad *> pads; /* by pad number: sink_0 first */
  /* the pads alone, also under pads_lock (changed under both): a flush
   * finds its pad while a push holds lock */
  std::mutex pads_lock;
  guint next_index = 0;
  bool caps_sent = false;
  bool stream_start_sent = false;
  bool eos_sent = false;
  bool failed = false;
  AfetFeaturesInfo out;
  guint64 joined = 0;               /* frames out of the front utterances */
  guint64 utt_number = 0;           /* utterances done */
  std::string key;                  /* the last afet-key tag seen */
};
/* *INDENT-ON* */

struct _GstAfetPaste
{
  GstElement parent;
  GstPad *srcpad;
  GstAfetPastePrivate *priv;
};

G_DEFINE_TYPE (GstAfetPaste, gst_afet_paste, GST_TYPE_ELEMENT);
/* the afet-key tag passes through */
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (afetpaste, "afetpaste", GST_RANK_NONE,
    GST_TYPE_AFET_PASTE, gst_afet_tag_register ());

static GstStaticPadTemplate sink_template =
GST_STATIC_PAD_TEMPLATE ("sink_%u", GST_PAD_SINK, GST_PAD_REQUEST,
    GST_STATIC_CAPS (AFET_FEATURES_CAPS_MAKE (AFET_FEATURES_KINDS_ALL)));
static GstStaticPadTemplate src_template =
GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (AFET_FEATURES_CAPS_MAKE ("user")));

static void
clear_events (std::vector<GstEvent *> &v)
{
  for (GstEvent * e:v)
    gst_event_unref (e);
  v.clear ();
}

static void
reset_pad (PastePad * ps)
{
  for (auto & u:ps->utts)
    clear_events (u.events);
  ps->utts.clear ();
  clear_events (ps->pending);
  ps->open = false;
  ps->eos = false;
}

static PastePad *
first_pad (GstAfetPastePrivate * p)
{
  return p->pads.empty ()? nullptr : p->pads.begin ()->second;
}

/* "utterance 's01' (number 1)" for errors */
static std::string
utt_name (GstAfetPastePrivate * p)
{
  std::string key;
  for (auto & kv:p->pads)
    if (!kv.second->utts.empty () && !kv.second->utts.front ().key.empty ()) {
      key = kv.second->utts.front ().key;
      break;
    }
  std::string n = "number " + std::to_string (p->utt_number + 1);
  return key.empty ()? "utterance " + n : "utterance '" + key + "' (" + n +
      ")";
}

/* A block of the blocks field for an input: its own blocks, pitch for
 * afetpitch's columns, else its kind, with its columns. */
static std::string
input_blocks (PastePad * ps)
{
  const GstStructure *s = gst_caps_get_structure (ps->caps, 0);
  const gchar *b = gst_structure_get_string (s, "blocks");
  if (b)
    return b;
  const char *kind = gst_structure_has_field (s, "pitch-columns") ? "pitch" :
      afet_features_kind_to_string (ps->info.kind);
  return std::string (kind) + ":" + std::to_string (ps->info.dims);
}

/* Checks that the inputs share one clock and builds and sends the output
 * caps; FALSE with the error posted. */
static gboolean
negotiate (GstAfetPaste * self)
{
  GstAfetPastePrivate *p = self->priv;
  PastePad *first = first_pad (p);
  gint dims = 0;
  std::string blocks;
  const gchar *pitch_columns = nullptr;
  const GstStructure *pitch_s = nullptr;
  AfetFeaturesPreset preset = first->info.preset;
  AfetFeaturesWindow window = first->info.window;
  for (auto & kv:p->pads) {
    PastePad *ps = kv.second;
    const AfetFeaturesInfo & a = first->info, &b = ps->info;
    if (a.rate != b.rate || a.frame_shift != b.frame_shift) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s's frames (rate %d, "
              "frame-shift %d: %d/%d frames a second) are not %s's (rate %d, "
              "frame-shift %d: %d/%d): afetpaste joins streams of one clock "
              "(the same rate and frame-shift).", GST_PAD_NAME (ps->pad),
              b.rate, b.frame_shift, b.fps_n, b.fps_d,
              GST_PAD_NAME (first->pad), a.rate, a.frame_shift, a.fps_n,
              a.fps_d), (nullptr));
      return FALSE;
    }
    if (b.normalization != AFET_FEATURES_NORM_NONE) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s's stream is "
              "normalised (normalization=%s): afetpaste joins unnormalised "
              "streams. Normalise the joined stream after afetpaste, as "
              "Kaldi's recipes apply CMVN after paste-feats.",
              GST_PAD_NAME (ps->pad),
              afet_features_norm_to_string (b.normalization)), (nullptr));
      return FALSE;
    }
    const GstStructure *s = gst_caps_get_structure (ps->caps, 0);
    const gchar *pc = gst_structure_get_string (s, "pitch-columns");
    if (pc && pitch_columns) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Two inputs are pitch "
              "(%s is the second): the joined stream's pitch-columns field "
              "can name one.", GST_PAD_NAME (ps->pad)), (nullptr));
      return FALSE;
    }
    if (pc) {
      pitch_columns = pc;
      pitch_s = s;
    }
    if (b.preset != preset)
      preset = AFET_FEATURES_PRESET_NONE;
    if (b.window != window)
      window = AFET_FEATURES_WINDOW_UNKNOWN;
    dims += b.dims;
    blocks += (blocks.empty ()? "" : ",") + input_blocks (ps);
  }
  AfetFeaturesInfo out = first->info;
  out.kind = AFET_FEATURES_KIND_USER;
  out.dims = out.statics = dims;
  out.delta_order = 0;
  out.c0_index = out.energy_index = -1;
  out.preset = preset;
  out.window = window;
  GstCaps *caps = afet_features_info_to_caps (&out);
  GstStructure *s = gst_caps_get_structure (caps, 0);
  afet_features_copy_analysis (s, gst_caps_get_structure (first->caps, 0));
  gst_structure_set (s, AFET_FEATURES_BLOCKS_FIELD, G_TYPE_STRING,
      blocks.c_str (), nullptr);
  /* the pitch input's own fields (docs/caps.md): its columns, and which
   * of Kaldi's outputs its frames are */
  if (pitch_s)
    for (const char *f : { "pitch-columns", "pitch-pass",
            "pitch-frames-per-chunk" })
      if (const GValue * v = gst_structure_get_value (pitch_s, f))
        gst_structure_set_value (s, f, v);
  GST_DEBUG_OBJECT (self, "output caps %" GST_PTR_FORMAT, caps);
  /* asked first: a refused sticky caps event would only show as a
   * not-negotiated push */
  if (!gst_pad_peer_query_accept_caps (self->srcpad, caps) ||
      !gst_pad_push_event (self->srcpad, gst_event_new_caps (caps))) {
    GstCaps *theirs = gst_pad_peer_query_caps (self->srcpad, nullptr);
    gchar *diff = theirs ? afet_features_caps_explain_mismatch (caps,
        theirs) : nullptr;
    gchar *ours_s = gst_caps_to_string (caps);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s's output does not fit "
            "the next element%s%s; it makes %s", GST_ELEMENT_NAME (self),
            diff ? ": " : "", diff ? diff : "", ours_s), (nullptr));
    g_free (ours_s);
    g_free (diff);
    if (theirs)
      gst_caps_unref (theirs);
    gst_caps_unref (caps);
    return FALSE;
  }
  gst_caps_unref (caps);
  p->out = out;
  p->caps_sent = true;
  return TRUE;
}

/* n frames of every front utterance joined and pushed */
static GstFlowReturn
push_joined (GstAfetPaste * self, guint64 n)
{
  GstAfetPastePrivate *p = self->priv;
  PastePad *first = first_pad (p);
  PasteUtt & u0 = first->utts.front ();
  for (GstEvent * e:u0.events)
    gst_pad_push_event (self->srcpad, e);
  u0.events.clear ();
  const gint D = p->out.dims;
  GstBuffer *buf = gst_buffer_new_allocate (nullptr, n * D * sizeof (float),
      nullptr);
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  float *o = (float *) map.data;
  gint col = 0;
  for (auto & kv:p->pads) {
    PastePad *ps = kv.second;
    const gint d = ps->info.dims;
    std::vector<float> &f = ps->utts.front ().frames;
    for (guint64 t = 0; t < n; t++)
      memcpy (o + t * D + col, f.data () + t * d, d * sizeof (float));
    f.erase (f.begin (), f.begin () + n * d);
    col += d;
  }
  gst_buffer_unmap (buf, &map);
  GstClockTime a = afet_features_info_frames_to_time (&p->out, p->joined),
      b = afet_features_info_frames_to_time (&p->out, p->joined + n);
  if (GST_CLOCK_TIME_IS_VALID (u0.origin))
    GST_BUFFER_PTS (buf) = u0.origin + a;
  GST_BUFFER_DURATION (buf) = b - a;
  GST_BUFFER_OFFSET (buf) = p->joined;
  GST_BUFFER_OFFSET_END (buf) = p->joined + n;
  if (p->joined == 0)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  p->joined += n;
  return gst_pad_push (self->srcpad, buf);
}

/* Joins what every input has, ends the utterances that have ended on every
 * input (lengths within the tolerance) and sends EOS when all inputs have
 * ended.  Under the lock. */
static GstFlowReturn
process (GstAfetPaste * self)
{
  GstAfetPastePrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  const guint64 tol = (guint64) p->tolerance;
  GST_OBJECT_UNLOCK (self);
  for (;;) {
    bool all_fronts = true, all_done = true, any_frames = false;
    for (auto & kv:p->pads) {
      PastePad *ps = kv.second;
      all_fronts = all_fronts && !ps->utts.empty ();
      all_done = all_done && ps->utts.empty () && ps->eos;
      any_frames = any_frames || (!ps->utts.empty ()
          && ps->utts.front ().got > 0);
    }
    if (p->pads.size () < 2 && any_frames) {
      GST_ELEMENT_ERROR (self, CORE, PAD, ("afetpaste has %u sink pad%s: "
              "link two or more streams to join (sink_%%u).",
              (guint) p->pads.size (), p->pads.size () == 1 ? "" : "s"),
          (nullptr));
      return GST_FLOW_NOT_LINKED;
    }
    if (all_done && !p->pads.empty ()) {
      if (!p->eos_sent) {
        PastePad *first = first_pad (p);
        for (GstEvent * e:first->pending)
          gst_pad_push_event (self->srcpad, e);
        first->pending.clear ();
        p->eos_sent = true;
        gst_pad_push_event (self->srcpad, gst_event_new_eos ());
      }
      return GST_FLOW_OK;
    }
    if (!all_fronts) {
      /* an input that ended with no frames of an utterance another has */
      for (auto & kv:p->pads) {
        PastePad *ps = kv.second;
        if (!ps->utts.empty () || !ps->eos)
          continue;
        for (auto & kv2:p->pads)
          if (!kv2.second->utts.empty () && kv2.second->utts.front ().got) {
            GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s ended (EOS) with "
                    "no frames of %s, of which %s has %" G_GUINT64_FORMAT
                    ": paste-feats refuses an empty input.",
                    GST_PAD_NAME (ps->pad), utt_name (p).c_str (),
                    GST_PAD_NAME (kv2.second->pad),
                    kv2.second->utts.front ().got), (nullptr));
            return GST_FLOW_ERROR;
          }
      }
      return GST_FLOW_OK;
    }
    guint64 n = G_MAXUINT64;
    for (auto & kv:p->pads)
      n = MIN (n, kv.second->utts.front ().frames.size () /
          kv.second->info.dims);
    if (n > 0) {
      /* the error is posted: FLOW_ERROR, so that upstream posts no other */
      if (!p->caps_sent && !negotiate (self))
        return GST_FLOW_ERROR;
      GstFlowReturn ret = push_joined (self, n);
      if (ret != GST_FLOW_OK)
        return ret;
    }
    /* the lengths, once known: an input past an ended one by more than the
     * tolerance fails now, live or not */
    bool all_ended = true;
    guint64 lo = G_MAXUINT64, hi = 0;
    PastePad *lo_pad = nullptr, *hi_pad = nullptr;
    for (auto & kv:p->pads) {
      const PasteUtt & u = kv.second->utts.front ();
      all_ended = all_ended && u.ended;
      if (u.ended && u.got < lo) {
        lo = u.got;
        lo_pad = kv.second;
      }
      if (u.got > hi) {
        hi = u.got;
        hi_pad = kv.second;
      }
    }
    if (lo_pad && (hi - lo > tol || (all_ended && lo == 0))) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Length mismatch in %s: "
              "%s has %" G_GUINT64_FORMAT " frames, %s %s%" G_GUINT64_FORMAT
              ", a difference over length-tolerance=%" G_GUINT64_FORMAT
              " (paste-feats --length-tolerance).", utt_name (p).c_str (),
              GST_PAD_NAME (hi_pad->pad), hi, GST_PAD_NAME (lo_pad->pad),
              all_ended ? "" : "ended with ", lo, tol), (nullptr));
      return GST_FLOW_ERROR;
    }
    if (!all_ended)
      return GST_FLOW_OK;
    if (hi > lo)
      GST_INFO_OBJECT (self, "%s: lengths %" G_GUINT64_FORMAT " to %"
          G_GUINT64_FORMAT " cut to the shortest (length-tolerance %"
          G_GUINT64_FORMAT ")", utt_name (p).c_str (), lo, hi, tol);
    for (auto & kv:p->pads) {
      clear_events (kv.second->utts.front ().events);
      kv.second->utts.pop_front ();
    }
    p->joined = 0;
    p->utt_number++;
  }
}

static GstFlowReturn
gst_afet_paste_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstAfetPaste *self = GST_AFET_PASTE (parent);
  GstAfetPastePrivate *p = self->priv;
  std::lock_guard < std::mutex > l (p->lock);
  PastePad *ps = (PastePad *) gst_pad_get_element_private (pad);
  if (p->failed || !ps) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  if (!ps->caps) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("No caps on %s before its "
            "first buffer.", GST_PAD_NAME (pad)), (nullptr));
    p->failed = true;
    return GST_FLOW_NOT_NEGOTIATED;
  }
  GstMapInfo map;
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot map a buffer of %s.",
            GST_PAD_NAME (pad)), (nullptr));
    p->failed = true;
    return GST_FLOW_ERROR;
  }
  const gsize fb = AFET_FEATURES_INFO_FRAME_BYTES (&ps->info);
  if (map.size % fb != 0) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("A buffer of %" G_GSIZE_FORMAT
            " bytes on %s is not whole frames of %d values.", map.size,
            GST_PAD_NAME (pad), ps->info.dims), (nullptr));
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
    p->failed = true;
    return GST_FLOW_ERROR;
  }
  /* a DISCONT after frames, or the first frames after an end, start an
   * utterance */
  if (ps->open && GST_BUFFER_IS_DISCONT (buf) && ps->utts.back ().got > 0) {
    ps->utts.back ().ended = true;
    ps->open = false;
  }
  if (!ps->open) {
    ps->utts.emplace_back ();
    PasteUtt & u = ps->utts.back ();
    u.origin = GST_BUFFER_PTS (buf);
    u.key = p->key;
    if (ps == first_pad (p))
      u.events.swap (ps->pending);
    ps->open = true;
  }
  PasteUtt & u = ps->utts.back ();
  const float *f = (const float *) map.data;
  u.frames.insert (u.frames.end (), f, f + map.size / sizeof (float));
  u.got += map.size / fb;
  GST_LOG_OBJECT (pad, "%" G_GSIZE_FORMAT " frames: %" G_GUINT64_FORMAT
      " in the utterance", map.size / fb, u.got);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  GstFlowReturn ret = process (self);
  if (ret != GST_FLOW_OK && ret != GST_FLOW_FLUSHING)
    p->failed = true;
  return ret;
}

static gboolean
gst_afet_paste_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstAfetPaste *self = GST_AFET_PASTE (parent);
  GstAfetPastePrivate *p = self->priv;
  /* a flush unblocks a push first: no lock */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_START) {
    bool first;
    {
      std::lock_guard < std::mutex > l (p->pads_lock);
      first = gst_pad_get_element_private (pad) == first_pad (p);
    }
    if (first)
      return gst_pad_push_event (self->srcpad, event);
    gst_event_unref (event);
    return TRUE;
  }
  std::lock_guard < std::mutex > l (p->lock);
  PastePad *ps = (PastePad *) gst_pad_get_element_private (pad);
  if (!ps) {
    gst_event_unref (event);
    return FALSE;
  }
  const bool first = ps == first_pad (p);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      gst_event_parse_caps (event, &caps);
      AfetFeaturesInfo info;
      if (!afet_features_info_from_caps (&info, caps)) {
        GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s cannot take %"
                GST_PTR_FORMAT " (GST_DEBUG=afetfeatures:4 says why).",
                GST_PAD_NAME (pad), caps), (nullptr));
        gst_event_unref (event);
        return FALSE;
      }
      if (ps->caps && !ps->utts.empty () && info.dims != ps->info.dims) {
        GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s's caps changed "
                "from %d to %d columns within an utterance.",
                GST_PAD_NAME (pad), ps->info.dims, info.dims), (nullptr));
        gst_event_unref (event);
        return FALSE;
      }
      gst_caps_replace (&ps->caps, caps);
      ps->info = info;
      p->caps_sent = false;
      gst_event_unref (event);
      return TRUE;
    }
    case GST_EVENT_TAG:{
      GstTagList *tags;
      gst_event_parse_tag (event, &tags);
      gchar *key = nullptr;
      if (gst_tag_list_get_string (tags, "afet-key", &key)) {
        p->key = key;
        g_free (key);
      }
      break;
    }
    case GST_EVENT_EOS:{
      if (ps->open)
        ps->utts.back ().ended = true;
      ps->open = false;
      ps->eos = true;
      gst_event_unref (event);
      if (p->failed)
        return TRUE;
      GstFlowReturn ret = process (self);
      if (ret != GST_FLOW_OK && ret != GST_FLOW_FLUSHING)
        p->failed = true;
      /* no upstream element sees a push failed in an EOS handler: say it */
      if (ret != GST_FLOW_ERROR && ret < GST_FLOW_EOS)
        GST_ELEMENT_FLOW_ERROR (self, ret);
      return TRUE;
    }
    case GST_EVENT_FLUSH_STOP:
      reset_pad (ps);
      p->failed = false;
      p->eos_sent = false;
      if (first) {
        for (auto & kv:p->pads)
          for (auto & u:kv.second->utts)
            clear_events (u.events);
        p->joined = 0;
        return gst_pad_push_event (self->srcpad, event);
      }
      gst_event_unref (event);
      return TRUE;
    case GST_EVENT_STREAM_START:
      if (first && !p->stream_start_sent) {
        p->stream_start_sent = true;
        return gst_pad_push_event (self->srcpad, event);
      }
      gst_event_unref (event);
      return TRUE;
    default:
      break;
  }
  /* sink_0's serialised events (segment, tags) go out before its next
   * utterance's frames; the other pads' are dropped */
  if (first && GST_EVENT_IS_SERIALIZED (event)
      && GST_EVENT_TYPE (event) != GST_EVENT_GAP) {
    ps->pending.push_back (event);
    if (ps->open)
      GST_DEBUG_OBJECT (self, "%s within an utterance: sent before the next",
          GST_EVENT_TYPE_NAME (event));
    return TRUE;
  }
  if (first && !GST_EVENT_IS_SERIALIZED (event))
    return gst_pad_push_event (self->srcpad, event);
  gst_event_unref (event);
  return TRUE;
}

static GstPad *
gst_afet_paste_request_new_pad (GstElement * element, GstPadTemplate * templ,
    const gchar * name, const GstCaps *)
{
  GstAfetPaste *self = GST_AFET_PASTE (element);
  GstAfetPastePrivate *p = self->priv;
  guint index;
  {
    std::lock_guard < std::mutex > l (p->lock);
    index = p->next_index;
    if (name && sscanf (name, "sink_%u", &index) != 1) {
      GST_WARNING_OBJECT (self, "pad name %s is not sink_%%u", name);
      return nullptr;
    }
    if (p->pads.count (index)) {
      GST_WARNING_OBJECT (self, "pad sink_%u exists", index);
      return nullptr;
    }
    p->next_index = MAX (p->next_index, index + 1);
  }
  gchar *pad_name = g_strdup_printf ("sink_%u", index);
  GstPad *pad = gst_pad_new_from_template (templ, pad_name);
  g_free (pad_name);
  PastePad *ps = new PastePad ();
  ps->index = index;
  ps->pad = pad;
  afet_features_info_init (&ps->info);
  gst_pad_set_element_private (pad, ps);
  gst_pad_set_chain_function (pad, GST_DEBUG_FUNCPTR (gst_afet_paste_chain));
  gst_pad_set_event_function (pad,
      GST_DEBUG_FUNCPTR (gst_afet_paste_sink_event));
  {
    std::lock_guard < std::mutex > l (p->lock);
    std::lock_guard < std::mutex > lp (p->pads_lock);
    p->pads[index] = ps;
  }
  gst_pad_set_active (pad, TRUE);
  gst_element_add_pad (element, pad);
  return pad;
}

static void
gst_afet_paste_release_pad (GstElement * element, GstPad * pad)
{
  GstAfetPaste *self = GST_AFET_PASTE (element);
  GstAfetPastePrivate *p = self->priv;
  {
    std::lock_guard < std::mutex > l (p->lock);
    std::lock_guard < std::mutex > lp (p->pads_lock);
    PastePad *ps = (PastePad *) gst_pad_get_element_private (pad);
    if (ps) {
      p->pads.erase (ps->index);
      reset_pad (ps);
      if (ps->caps)
        gst_caps_unref (ps->caps);
      delete ps;
    }
    gst_pad_set_element_private (pad, nullptr);
  }
  gst_element_remove_pad (element, pad);
}

static void
reset (GstAfetPastePrivate * p)
{
  std::lock_guard < std::mutex > l (p->lock);
  for (auto & kv:p->pads) {
    reset_pad (kv.second);
    gst_caps_replace (&kv.second->caps, nullptr);
  }
  p->caps_sent = p->stream_start_sent = p->eos_sent = p->failed = false;
  p->joined = p->utt_number = 0;
  p->key.clear ();
}

static GstStateChangeReturn
gst_afet_paste_change_state (GstElement * element, GstStateChange transition)
{
  GstAfetPaste *self = GST_AFET_PASTE (element);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    reset (self->priv);
  GstStateChangeReturn ret =
      GST_ELEMENT_CLASS (gst_afet_paste_parent_class)->change_state (element,
      transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    reset (self->priv);
  return ret;
}

static void
gst_afet_paste_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAfetPaste *self = GST_AFET_PASTE (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LENGTH_TOLERANCE:
      self->priv->tolerance = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_paste_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAfetPaste *self = GST_AFET_PASTE (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LENGTH_TOLERANCE:
      g_value_set_int (value, self->priv->tolerance);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_paste_finalize (GObject * object)
{
  GstAfetPaste *self = GST_AFET_PASTE (object);
  for (auto & kv:self->priv->pads) {
    reset_pad (kv.second);
    if (kv.second->caps)
      gst_caps_unref (kv.second->caps);
    delete kv.second;
  }
  delete self->priv;
  G_OBJECT_CLASS (gst_afet_paste_parent_class)->finalize (object);
}

static void
gst_afet_paste_class_init (GstAfetPasteClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_afet_paste_debug, "afetpaste", 0,
      "afet feature streams joined frame by frame");

  gobject_class->set_property = gst_afet_paste_set_property;
  gobject_class->get_property = gst_afet_paste_get_property;
  gobject_class->finalize = gst_afet_paste_finalize;

  g_object_class_install_property (gobject_class, PROP_LENGTH_TOLERANCE,
      g_param_spec_int ("length-tolerance", "Length tolerance",
          "Utterances whose lengths differ by at most this many frames are "
          "cut to the shortest; more is an error (paste-feats "
          "--length-tolerance; make_mfcc_pitch.sh uses 2)", 0, G_MAXINT,
          DEFAULT_LENGTH_TOLERANCE, (GParamFlags) (G_PARAM_READWRITE |
              G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "afet paste",
      "Filter/Analyzer/Audio", "Joins feature streams of one clock frame by "
      "frame (Kaldi's paste-feats)", "the afet authors");
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_afet_paste_change_state);
  element_class->request_new_pad =
      GST_DEBUG_FUNCPTR (gst_afet_paste_request_new_pad);
  element_class->release_pad = GST_DEBUG_FUNCPTR (gst_afet_paste_release_pad);
}

static void
gst_afet_paste_init (GstAfetPaste * self)
{
  self->priv = new GstAfetPastePrivate ();
  afet_features_info_init (&self->priv->out);
  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}
