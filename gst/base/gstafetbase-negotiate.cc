/* GstAfetBase's negotiation: input caps parsed into GstAfetInput, the exact
 * output caps (device memory first), caps transforms and fixation, and the
 * refusals posted as errors naming the cause and the fix.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetbase-private.h"

#include <cstring>

#define GST_CAT_DEFAULT gst_afet_base_debug

/* Parses fixed sink caps into an input description; FALSE with a reason. */
static gboolean
parse_input (GstAfetBase * self, GstCaps * caps, GstAfetInput * in,
    gchar ** why)
{
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  GstAfetBaseState *p = PRIV (self);
  GstStructure *s = gst_caps_get_structure (caps, 0);
  /* defined for audio too: the subclasses' describe may read it before
   * they look at in->audio (an optimised build did, under valgrind) */
  afet_features_info_init (&in->features);

  if (gst_structure_has_name (s, "audio/x-raw") &&
      !afet_base_apply_htk_config (self, in, why))
    return FALSE;
  GST_OBJECT_LOCK (self);
  double frame_length = 0, frame_shift = 0;
  afet_base_effective_framing (p, in, &frame_length, &frame_shift);
  /* 0: sized to the device at set_caps (afet_base_auto_batch); the
   * format does not depend on it */
  in->max_batch = p->max_batch ? MAX ((int) p->max_batch, MIN_BATCH) :
      AUTO_BATCH_CPU;
  GST_OBJECT_UNLOCK (self);

  if (gst_structure_has_name (s, "audio/x-raw")) {
    if (!gst_audio_info_from_caps (&in->audio_info, caps)) {
      *why = g_strdup ("cannot parse the audio caps");
      return FALSE;
    }
    if (GST_AUDIO_INFO_CHANNELS (&in->audio_info) != 1) {
      *why = g_strdup_printf ("%s takes mono audio, got %d channels: put "
          "audioconvert before it", GST_ELEMENT_NAME (self),
          GST_AUDIO_INFO_CHANNELS (&in->audio_info));
      return FALSE;
    }
    in->audio = true;
    in->samples = GST_AUDIO_INFO_FORMAT (&in->audio_info) ==
        GST_AUDIO_FORMAT_S16LE ? afet::SampleFormat::S16 :
        afet::SampleFormat::F32;
    in->rate = GST_AUDIO_INFO_RATE (&in->audio_info);
    in->W = afet::frame_samples (frame_length, in->rate);
    in->S = afet::frame_samples (frame_shift, in->rate);
    in->in_dims = 1;
    if (in->W < 2 || in->S < 1) {
      *why = g_strdup_printf ("frame-length %.3f ms / frame-shift %.3f ms "
          "give %d / %d samples at %d Hz: each must be at least 2 / 1",
          frame_length, frame_shift, in->W, in->S, in->rate);
      return FALSE;
    }
    if (in->edges != afet::Edges::SNIP && (in->S > in->W || in->pad)) {
      *why = g_strdup_printf ("snip-edges=false makes frames over the "
          "run's edges, which needs frame-shift <= frame-length and "
          "pad=false (%s)", in->pad ? "pad is set" : "the shift is longer");
      return FALSE;
    }
    if (!klass->takes_audio) {
      *why = g_strdup_printf ("%s takes feature streams, not audio",
          GST_ELEMENT_NAME (self));
      return FALSE;
    }
    return TRUE;
  }

  afet_features_info_init (&in->features);
  if (!afet_features_info_from_caps (&in->features, caps)) {
    *why = g_strdup ("invalid application/x-afet-features caps (see the "
        "afetfeatures debug log for the field)");
    return FALSE;
  }
  in->audio = false;
  /* afetcmvn's role in an HCopy chain depends on its input */
  if (!afet_base_apply_htk_config (self, in, why))
    return FALSE;
  in->rate = in->features.rate;
  in->W = in->features.frame_length;
  in->S = in->features.frame_shift;
  in->in_dims = in->features.dims;
  in->window = afet_base_window_from_caps (in->features.window);
  const gchar *splice = gst_structure_get_string (s, "splice");
  in->splice = splice ? splice : "";
  const gchar *transform = gst_structure_get_string (s, "transform");
  in->transform = transform ? transform : "";
  return TRUE;
}

gboolean
afet_base_describe (GstAfetBase * self, GstCaps * caps, GstAfetInput * in,
    AfetFeaturesInfo * out, gchar ** why)
{
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  if (!parse_input (self, caps, in, why))
    return FALSE;
  afet_features_info_init (out);
  return klass->describe (self, in, out, why);
}

gboolean
afet_base_caps_have_cl_feature (const GstCaps * caps, guint idx)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, idx);
  return f && !gst_caps_features_is_any (f) &&
      gst_caps_features_contains (f, AFET_CAPS_FEATURE_MEMORY_CL);
}

static gboolean
caps_name_cl_feature (const GstCaps * caps)
{
  if (!caps || gst_caps_is_any (caps))
    return FALSE;
  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    if (afet_base_caps_have_cl_feature (caps, i))
      return TRUE;
  return FALSE;
}

/* device-memory not set: device memory between afet elements for input
 * that is not live (whole files: the rows stay on the device from element
 * to element), system memory for live input, where many streams' small
 * batches combine into shared launches at every element (on an H200, 1000
 * live streams of afetmfcc ! afetdelta ! afetcmvn kept 0.92-0.95x real
 * time in system memory and 0.35x in device memory: docs/benchmarks.md).
 * Decided when the first fixed input caps come, from the upstream latency
 * query, so that no renegotiation follows; what the element accepts on its
 * sink pad is not narrowed (an upstream element set to device memory is
 * still read there). */
gboolean
afet_base_output_device_memory (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  GST_OBJECT_LOCK (self);
  const gboolean device_memory = p->device_memory;
  const bool set = p->device_memory_set;
  GST_OBJECT_UNLOCK (self);
  if (set)
    return device_memory;
  if (p->live_checked)
    return !p->live;
  /* a source may answer the latency query only once its own caps are set
   * (audiotestsrc): unanswered, both memories are offered and nothing is
   * remembered; by our caps event upstream knows */
  GstQuery *q = gst_query_new_latency ();
  gboolean live = FALSE;
  const gboolean known = gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD
      (self), q);
  if (known)
    gst_query_parse_latency (q, &live, nullptr, nullptr);
  gst_query_unref (q);
  if (!known)
    return TRUE;
  p->live = live;
  p->live_checked = true;
  GST_DEBUG_OBJECT (self, "upstream is %slive: output in %s memory "
      "(device-memory not set)", live ? "" : "not ", live ? "system" :
      "device");
  return !live;
}

/* The exact output caps for fixed input caps, device memory first when
 * offered, then system memory. */
static GstCaps *
make_output_caps (GstAfetBase * self, GstCaps * caps, gboolean device_memory)
{
  GstAfetInput in;
  AfetFeaturesInfo out;
  gchar *why = nullptr;
  if (!afet_base_describe (self, caps, &in, &out, &why)) {
    GST_DEBUG_OBJECT (self, "no output for %" GST_PTR_FORMAT ": %s", caps,
        why);
    g_free (why);
    return nullptr;
  }
  GstCaps *sys = afet_features_info_to_caps (&out);
  if (!sys) {
    /* describe() made a format the caps API does not take: a bug here,
     * not a property of the input */
    GST_ERROR_OBJECT (self, "the output format of %" GST_PTR_FORMAT " is not "
        "valid (see the afetfeatures debug category)", caps);
    return nullptr;
  }
  /* how the numbers were made: this element's settings, then its input's */
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  GstStructure *s = gst_caps_get_structure (sys, 0);
  if (klass->describe_analysis)
    klass->describe_analysis (self, &in, s);
  if (in.audio)
    afet_base_write_framing_analysis (&in, s);
  else
    afet_features_copy_analysis (s, gst_caps_get_structure (caps, 0));
  if (!device_memory)
    return sys;
  GstCaps *dev = gst_caps_copy (sys);
  gst_caps_set_features (dev, 0,
      gst_caps_features_new (AFET_CAPS_FEATURE_MEMORY_CL, nullptr));
  gst_caps_append (dev, sys);
  return dev;
}

/* make_output_caps, remembered: every run of a pipeline reused from file
 * to file asks the same questions (a dozen caps and accept-caps queries a
 * run for each element), and the answer depends only on the input and the
 * settings. */
static GstCaps *
output_caps (GstAfetBase * self, GstCaps * caps)
{
  GstAfetBaseState *p = PRIV (self);
  const guint settings = p->settings_changes.load ();
  const gboolean device = afet_base_output_device_memory (self);
  {
    std::lock_guard<std::mutex> l (p->memo_lock);
    for (const auto &m : p->output_memo)
      if (m.settings == settings && m.device == device &&
          gst_caps_is_equal (m.in, caps))
        return m.out ? gst_caps_ref (m.out) : nullptr;
  }
  GstCaps *out = make_output_caps (self, caps, device);
  std::lock_guard<std::mutex> l (p->memo_lock);
  if (p->output_memo.size () >= 8)
    afet_base_forget_output_caps (p, 1);
  GstAfetBaseState::OutputMemo m;
  m.in = gst_caps_ref (caps);
  m.out = out ? gst_caps_ref (out) : nullptr;
  m.settings = settings;
  m.device = device;
  p->output_memo.push_back (m);
  return out;
}

/* Drops the oldest n remembered outputs (all: n = 0); memo_lock held. */
void
afet_base_forget_output_caps (GstAfetBaseState * p, size_t n)
{
  if (n == 0 || n > p->output_memo.size ())
    n = p->output_memo.size ();
  for (size_t i = 0; i < n; i++) {
    gst_caps_unref (p->output_memo[i].in);
    if (p->output_memo[i].out)
      gst_caps_unref (p->output_memo[i].out);
  }
  p->output_memo.erase (p->output_memo.begin (), p->output_memo.begin () +
      (long) n);
}

/* Drops the device-memory structures of caps if device-memory=false was
 * set (not set, both stay: make_output_caps decides for fixed caps). */
static GstCaps *
filter_memory (GstAfetBase * self, GstCaps * caps)
{
  GST_OBJECT_LOCK (self);
  gboolean device_memory = PRIV (self)->device_memory;
  GST_OBJECT_UNLOCK (self);
  if (device_memory)
    return caps;
  GstCaps *res = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    if (!afet_base_caps_have_cl_feature (caps, i))
      gst_caps_append_structure_full (res,
          gst_structure_copy (gst_caps_get_structure (caps, i)),
          gst_caps_features_copy (gst_caps_get_features (caps, i)));
  gst_caps_unref (caps);
  return res;
}

GstCaps *
gst_afet_base_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  GstPad *other = direction == GST_PAD_SINK ?
      GST_BASE_TRANSFORM_SRC_PAD (trans) : GST_BASE_TRANSFORM_SINK_PAD (trans);
  GstCaps *result = nullptr;

  if (direction == GST_PAD_SINK && gst_caps_is_fixed (caps))
    result = output_caps (self, caps);
  if (!result)
    result = filter_memory (self, gst_pad_get_pad_template_caps (other));

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, result,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = tmp;
  }
  GST_LOG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

/* Device memory only when downstream names our memory feature explicitly:
 * a peer that takes ANY caps (fakesink, filesink, appsink) would otherwise
 * be handed the first structure, device memory it cannot read directly. */
GstCaps *
gst_afet_base_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  if (direction == GST_PAD_SINK && gst_caps_is_fixed (caps)) {
    GstCaps *exact = output_caps (self, caps);
    if (exact) {
      GstCaps *peer = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD
          (trans), nullptr);
      gboolean device = caps_name_cl_feature (peer) &&
          caps_name_cl_feature (exact);
      if (peer)
        gst_caps_unref (peer);
      GstCaps *res = gst_caps_copy_nth (exact, device ? 0 :
          gst_caps_get_size (exact) - 1);
      gst_caps_unref (exact);
      gst_caps_unref (othercaps);
      GST_DEBUG_OBJECT (self, "output in %s memory: %" GST_PTR_FORMAT,
          device ? "device" : "system", res);
      return res;
    }
  }
  return GST_BASE_TRANSFORM_CLASS (g_type_class_peek
      (GST_TYPE_BASE_TRANSFORM))->fixate_caps
      (trans, direction, caps, othercaps);
}

/* Posts why an input format cannot be taken, as the pipeline's error (the
 * not-negotiated that follows says only that it failed); once for the same
 * reason, however often GstBaseTransform or the pads ask again. */
void
afet_base_post_refusal (GstAfetBase * self, GstCaps * caps, const gchar * reason)
{
  GstAfetBaseState *p = PRIV (self);
  GST_OBJECT_LOCK (self);
  bool again = p->last_refusal == reason;
  p->last_refusal = reason;
  p->refusals++;
  GST_OBJECT_UNLOCK (self);
  if (again)
    return;
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", reason),
      ("input caps %" GST_PTR_FORMAT, caps));
}

/* The input was fine but no output could be agreed with downstream (which
 * GstBaseTransform does not explain): says what we would make and what the
 * element after us takes. */
void
afet_base_explain_output_refusal (GstAfetBase * self, GstCaps * caps)
{
  GstCaps *exact = output_caps (self, caps);
  if (!exact)
    return;
  GstCaps *ours = gst_caps_copy_nth (exact, gst_caps_get_size (exact) - 1);
  GstPad *src = GST_BASE_TRANSFORM_SRC_PAD (self);
  GstCaps *theirs = gst_pad_peer_query_caps (src, nullptr);
  GstPad *peer = gst_pad_get_peer (src);
  GstElement *next = peer ? gst_pad_get_parent_element (peer) : nullptr;
  gchar *ours_s = gst_caps_to_string (ours);
  gchar *theirs_s = theirs ? gst_caps_to_string (theirs) : g_strdup ("none");
  gchar *diff = theirs ? afet_features_caps_explain_mismatch (ours, theirs) :
      nullptr;
  gchar *msg = g_strdup_printf ("%s's output does not fit %s%s%s; it makes "
      "%s from this input, and %s takes %s", GST_ELEMENT_NAME (self),
      next ? GST_ELEMENT_NAME (next) : "the next element", diff ? ": " : "",
      diff ? diff : "", ours_s, next ? GST_ELEMENT_NAME (next) : "that",
      theirs_s);
  g_free (diff);
  afet_base_post_refusal (self, caps, msg);
  g_free (msg);
  g_free (ours_s);
  g_free (theirs_s);
  if (next)
    gst_object_unref (next);
  if (peer)
    gst_object_unref (peer);
  if (theirs)
    gst_caps_unref (theirs);
  gst_caps_unref (ours);
  gst_caps_unref (exact);
}

/* Whether caps are the ones upstream is sending us now (its sticky CAPS
 * event), rather than a format it is only asking about. Through ghost
 * pads, the event waits on the pad outside the bin while the bin's pad
 * asks us. */
static gboolean
caps_being_sent (GstAfetBase * self, GstCaps * caps)
{
  GstPad *peer = gst_pad_get_peer (GST_BASE_TRANSFORM_SINK_PAD (self));
  gboolean same = FALSE;
  for (int depth = 0; peer && !same && depth < 8; depth++) {
    GstEvent *ev = gst_pad_get_sticky_event (peer, GST_EVENT_CAPS, 0);
    if (ev) {
      GstCaps *sent;
      gst_event_parse_caps (ev, &sent);
      same = gst_caps_is_equal (sent, caps);
      gst_event_unref (ev);
    }
    /* the inside of a ghost pad: go on with what feeds the ghost pad */
    GstPad *ghost = GST_IS_PROXY_PAD (peer) ?
        GST_PAD (gst_proxy_pad_get_internal (GST_PROXY_PAD (peer))) : nullptr;
    gst_object_unref (peer);
    peer = nullptr;
    if (ghost) {
      if (GST_IS_GHOST_PAD (ghost))
        peer = gst_pad_get_peer (ghost);
      gst_object_unref (ghost);
    }
  }
  if (peer)
    gst_object_unref (peer);
  return same;
}

/* Explains, on the bus, why fixed caps are refused: the template rejects
 * them before any of our code runs, and "not-negotiated" alone says little. */
void
afet_base_explain_refusal (GstAfetBase * self, GstCaps * caps)
{
  if (!caps_being_sent (self, caps)) {
    GST_DEBUG_OBJECT (self, "would refuse %" GST_PTR_FORMAT, caps);
    return;
  }
  GstStructure *s = gst_caps_get_structure (caps, 0);
  gchar *reason = nullptr;
  if (gst_structure_has_name (s, "audio/x-raw")) {
    gint channels = 0, rate = 0;
    const gchar *format = gst_structure_get_string (s, "format");
    gst_structure_get_int (s, "channels", &channels);
    gst_structure_get_int (s, "rate", &rate);
    if (channels != 1)
      reason = g_strdup_printf ("it takes mono audio, got %d channels: put "
          "audioconvert before it", channels);
    else if (!format || (strcmp (format, "S16LE") && strcmp (format, "S32LE")
            && strcmp (format, "F32LE") && strcmp (format, "F64LE")))
      reason = g_strdup_printf ("it takes S16LE, S32LE, F32LE or F64LE "
          "samples, got %s: put audioconvert before it",
          format ? format : "none");
    else if (rate < 8000 || rate > 192000)
      reason = g_strdup_printf ("it takes 8000 to 192000 Hz, got %d: put "
          "audioresample before it", rate);
    else
      reason = g_strdup ("interleaved layout only");
  } else if (gst_structure_has_name (s, AFET_FEATURES_MEDIA_TYPE)) {
    const gchar *kind = gst_structure_get_string (s, "kind");
    reason = g_strdup_printf ("it does not take kind=%s feature streams",
        kind ? kind : "(none)");
  } else {
    reason = g_strdup_printf ("it does not take %s",
        gst_structure_get_name (s));
  }
  gchar *msg = g_strdup_printf ("%s refused the input format: %s",
      GST_ELEMENT_NAME (self), reason);
  afet_base_post_refusal (self, caps, msg);
  g_free (msg);
  g_free (reason);
}

void
gst_afet_base_class_set_element (GstElementClass * klass,
    const gchar * sink_caps, const gchar * src_caps, const gchar * longname,
    const gchar * description)
{
  const struct
  {
    const gchar *name;
    GstPadDirection direction;
    const gchar *caps;
  } pads[] = {
    {"sink", GST_PAD_SINK, sink_caps},
    {"src", GST_PAD_SRC, src_caps},
  };
  for (const auto &pad : pads) {
    GstCaps *caps = gst_caps_from_string (pad.caps);
    g_assert (caps != nullptr);
    gst_element_class_add_pad_template (klass,
        gst_pad_template_new (pad.name, pad.direction, GST_PAD_ALWAYS, caps));
    gst_caps_unref (caps);
  }
  gst_element_class_set_static_metadata (klass, longname,
      "Filter/Analyzer/Audio", description, "the afet authors");
  /* every element computes; the hold is the base class'
   * (gstafetbase-streaming.cc), the value goes through the framing handlers */
  g_object_class_install_property (G_OBJECT_CLASS (klass),
      PROP_LATENCY_BUDGET, g_param_spec_int64 ("latency-budget",
          "Latency budget", "Live input: how long (ns of stream time) "
          "complete frames may be held so that several buffers' frames "
          "share one launch (the latency query includes it); 0: each buffer "
          "computed as it comes; -1: automatic, for live audio 50 ms on a "
          "CPU device (where a launch costs far more than its frames) and "
          "20 ms on other devices (each buffer's launch costs the host's "
          "CPU), 0 for feature input", -1, 10 * GST_SECOND,
          DEFAULT_LATENCY_BUDGET, (GParamFlags) (G_PARAM_READWRITE |
              G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
}
