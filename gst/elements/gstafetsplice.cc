/* afetsplice: Kaldi's splice-feats as an element, any list of offsets, on
 * the device.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afetsplice
 * @title: afetsplice
 *
 * Splices frames: each output frame holds the input frames at a list of
 * offsets around it, side by side (Kaldi's splice-feats, before an LDA or
 * an nnet's input). By default the offsets are -left-context ..
 * right-context (splice-feats' --left-context and --right-context, 4 and
 * 4); offsets= overrides them with any list: "-2,-1,0,1,2", ranges
 * "-3..3", asymmetric "-6..0", gaps "-3,0,3". The output frame's blocks
 * follow the list's order (nnet3's Append takes its offsets in any order
 * too); an offset listed twice is refused. Frames outside the run are
 * clamped to its first or last frame, as Kaldi's SpliceFrames does.
 *
 * Output: dims x (number of offsets) values a frame, with statics = dims,
 * no dynamic blocks and no c0 or energy column; the caps' splice field
 * lists the offsets of the input frames in the frame's order (composed
 * when the input was spliced already), so that a consumer can refuse a
 * stream spliced otherwise.
 *
 * Streaming: frame t is computed once frame t + (the largest offset) has
 * arrived; the element reports that look-ahead in the latency query. At EOS
 * or a DISCONT it computes the remaining frames with the run's end known.
 * Live, with rows in system memory, all such streams of one configuration
 * in the process share launches (combine-streams; results unchanged).
 *
 * ## Example launch lines (splice-feats --left-context=3 --right-context=3)
 * |[
 * gst-launch-1.0 filesrc location=feats.ark ! afetparse ! \
 *     afetsplice left-context=3 right-context=3 ! afetenc format=kaldi ! \
 *     filesink location=spliced.ark
 * gst-launch-1.0 filesrc location=speech.wav ! wavparse ! \
 *     afetmfcc preset=kaldi ! afetcmvn ! afetsplice offsets=-3,0,3 ! \
 *     fakesink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetsplice.h"
#include "splice.h"

#include <string>
#include <vector>

GST_DEBUG_CATEGORY_STATIC (gst_afet_splice_debug);
#define GST_CAT_DEFAULT gst_afet_splice_debug

#define DEFAULT_LEFT_CONTEXT 4
#define DEFAULT_RIGHT_CONTEXT 4
#define DEFAULT_OFFSETS nullptr

enum
{
  PROP_0,
  PROP_LEFT_CONTEXT,
  PROP_RIGHT_CONTEXT,
  PROP_OFFSETS,
};

/* *INDENT-OFF* */
struct GstAfetSplicePrivate
{
  guint left_context = DEFAULT_LEFT_CONTEXT;
  guint right_context = DEFAULT_RIGHT_CONTEXT;
  std::string offsets;          /* "": from left and right */
  std::unique_ptr<afet::SpliceStage> stage;
};
/* *INDENT-ON* */

struct _GstAfetSplice
{
  GstAfetBase parent;
  GstAfetSplicePrivate *priv;
};

G_DEFINE_TYPE (GstAfetSplice, gst_afet_splice, GST_TYPE_AFET_BASE);
GST_ELEMENT_REGISTER_DEFINE (afetsplice, "afetsplice", GST_RANK_NONE,
    GST_TYPE_AFET_SPLICE);

/* The stage's config for an input, validated. */
static afet::Status
make_config (GstAfetSplice * self, const GstAfetInput * in,
    afet::SpliceConfig * c)
{
  GST_OBJECT_LOCK (self);
  int left = (int) self->priv->left_context;
  int right = (int) self->priv->right_context;
  std::string text = self->priv->offsets;
  GST_OBJECT_UNLOCK (self);
  c->offsets.clear ();
  if (!text.empty ()) {
    AFET_RETURN_IF_ERROR (afet::parse_splice_offsets (text, &c->offsets));
  } else {
    for (int o = -left; o <= right; o++)
      c->offsets.push_back (o);
  }
  c->dims = in->in_dims;
  c->row_stride = in->in_dims;
  c->max_batch = in->max_batch;
  return c->validate ();
}

/* Whether the input's normalisation covers every column, so that the
 * spliced frame's does too (no caps value names a subset of each block). */
static gboolean
normalised_everywhere (const AfetFeaturesInfo * f)
{
  if (f->normalization == AFET_FEATURES_NORM_NONE ||
      f->norm_columns == AFET_FEATURES_NORM_COLUMNS_ALL)
    return TRUE;
  if (f->delta_order != 0)
    return FALSE;
  return f->norm_columns == AFET_FEATURES_NORM_COLUMNS_STATICS ||
      (f->norm_columns == AFET_FEATURES_NORM_COLUMNS_HTK &&
      f->energy_index < 0);
}

static gboolean
gst_afet_splice_describe (GstAfetBase * base, const GstAfetInput * in,
    AfetFeaturesInfo * out, gchar ** why)
{
  GstAfetSplice *self = GST_AFET_SPLICE (base);
  afet::SpliceConfig c;
  afet::Status st = make_config (self, in, &c);
  if (st.ok () && !in->splice.empty ()) {
    /* the composed list must be one the caps can say */
    std::vector<int> inner;
    st = afet::parse_splice_offsets (in->splice, &inner);
    if (st.ok () && c.dims % (int) inner.size () != 0)
      st = afet::Status (afet::Status::BAD_CONFIG, "the input's splice "
          "field lists " + std::to_string (inner.size ()) + " offsets, which "
          "do not divide its " + std::to_string (c.dims) + " columns");
    if (!st.ok ())
      st = afet::Status (afet::Status::BAD_CONFIG, "the input's splice "
          "field \"" + in->splice + "\" is not a list of offsets: " +
          st.message ());
  }
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  if (!normalised_everywhere (&in->features)) {
    *why = g_strdup_printf ("the input's normalization covers only some of "
        "its columns (normalization-columns=%s), which no caps field can "
        "say of a spliced frame: normalise every column before afetsplice",
        afet_features_norm_columns_to_string (in->features.norm_columns));
    return FALSE;
  }
  *out = in->features;
  out->dims = c.out_dims ();
  out->statics = out->dims;
  out->delta_order = 0;
  out->c0_index = -1;
  out->energy_index = -1;
  if (out->normalization != AFET_FEATURES_NORM_NONE)
    out->norm_columns = AFET_FEATURES_NORM_COLUMNS_ALL;
  return TRUE;
}

/* The caps' splice field (docs/caps.md): the offset of each block's input
 * frame; over a spliced input, each of this splice's offsets plus each of
 * the input's, in the frame's order. */
static void
gst_afet_splice_describe_analysis (GstAfetBase * base,
    const GstAfetInput * in, GstStructure * s)
{
  GstAfetSplice *self = GST_AFET_SPLICE (base);
  afet::SpliceConfig c;
  if (!make_config (self, in, &c).ok ())
    return;                     /* describe refused it */
  std::vector<int> inner = { 0 };
  if (!in->splice.empty () &&
      !afet::parse_splice_offsets (in->splice, &inner).ok ())
    return;
  std::vector<int> all;
  for (int o : c.offsets)
    for (int i : inner)
      all.push_back (o + i);
  gst_structure_set (s, "splice", G_TYPE_STRING,
      afet::splice_offsets_string (all).c_str (), nullptr);
}

static gboolean
gst_afet_splice_configure (GstAfetBase * base, const GstAfetEnv * env,
    const GstAfetInput * in, const AfetFeaturesInfo * out,
    GstAfetNeeds * needs, gchar ** why)
{
  GstAfetSplice *self = GST_AFET_SPLICE (base);
  afet::SpliceConfig c;
  afet::Status st = make_config (self, in, &c);
  auto stage = std::make_unique<afet::SpliceStage> ();
  if (st.ok ())
    st = stage->init (env->device, c, env->queue);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  gst_afet_needs_context (needs, c.back (), c.ahead (), in->in_dims);
  gst_afet_needs_lanes (needs, stage.get ());
  self->priv->stage = std::move (stage);
  GST_DEBUG_OBJECT (self, "%d columns at offsets %s: look-back %d, "
      "look-ahead %d frames", c.dims,
      afet::splice_offsets_string (c.offsets).c_str (), c.back (),
      c.ahead ());
  return TRUE;
}

static gboolean
gst_afet_splice_process (GstAfetBase * base, const GstAfetBatch * in, gint n,
    cl_mem out, gsize out_row, gchar ** why)
{
  GstAfetSplice *self = GST_AFET_SPLICE (base);
  afet::Status st = self->priv->stage->enqueue (in->block, in->out_first, n,
      out, out_row);
  if (!st.ok ()) {
    *why = g_strdup (st.message ().c_str ());
    return FALSE;
  }
  return TRUE;
}

static void
gst_afet_splice_release (GstAfetBase * base)
{
  GST_AFET_SPLICE (base)->priv->stage.reset ();
}

static void
gst_afet_splice_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  if (gst_afet_base_set_framing_property (object, prop_id, value))
    return;                     /* latency-budget, combine-streams */
  GstAfetSplice *self = GST_AFET_SPLICE (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LEFT_CONTEXT:
      self->priv->left_context = g_value_get_uint (value);
      break;
    case PROP_RIGHT_CONTEXT:
      self->priv->right_context = g_value_get_uint (value);
      break;
    case PROP_OFFSETS:{
      const gchar *s = g_value_get_string (value);
      self->priv->offsets = s ? s : "";
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_splice_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  if (gst_afet_base_get_framing_property (object, prop_id, value))
    return;
  GstAfetSplice *self = GST_AFET_SPLICE (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LEFT_CONTEXT:
      g_value_set_uint (value, self->priv->left_context);
      break;
    case PROP_RIGHT_CONTEXT:
      g_value_set_uint (value, self->priv->right_context);
      break;
    case PROP_OFFSETS:
      g_value_set_string (value, self->priv->offsets.empty () ? nullptr :
          self->priv->offsets.c_str ());
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_splice_finalize (GObject * object)
{
  delete GST_AFET_SPLICE (object)->priv;
  G_OBJECT_CLASS (gst_afet_splice_parent_class)->finalize (object);
}

static void
gst_afet_splice_class_init (GstAfetSpliceClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAfetBaseClass *base_class = GST_AFET_BASE_CLASS (klass);
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_DEBUG_CATEGORY_INIT (gst_afet_splice_debug, "afetsplice", 0,
      "afet splicing");

  gobject_class->set_property = gst_afet_splice_set_property;
  gobject_class->get_property = gst_afet_splice_get_property;
  gobject_class->finalize = gst_afet_splice_finalize;

  g_object_class_install_property (gobject_class, PROP_LEFT_CONTEXT,
      g_param_spec_uint ("left-context", "Left context",
          "Frames before each frame spliced in (Kaldi's --left-context); "
          "offsets overrides it", 0, afet::SpliceConfig::max_offset,
          DEFAULT_LEFT_CONTEXT, flags));
  g_object_class_install_property (gobject_class, PROP_RIGHT_CONTEXT,
      g_param_spec_uint ("right-context", "Right context",
          "Frames after each frame spliced in (Kaldi's --right-context; the "
          "look-ahead); offsets overrides it", 0,
          afet::SpliceConfig::max_offset, DEFAULT_RIGHT_CONTEXT, flags));
  g_object_class_install_property (gobject_class, PROP_OFFSETS,
      g_param_spec_string ("offsets", "Offsets",
          "The frames spliced, as offsets from each frame in the output's "
          "order, comma-separated, ranges lo..hi allowed (\"-3..3\", "
          "\"-3,0,3\", \"0,-1,1\"); each at most once, within +-1000 "
          "(unset: -left-context..right-context)", DEFAULT_OFFSETS, flags));

  gst_afet_base_class_install_combine (gobject_class);
  gst_afet_base_class_set_element (element_class,
      GST_AFET_FEATURES_CAPS (AFET_FEATURES_KINDS_ALL),
      GST_AFET_FEATURES_CAPS (AFET_FEATURES_KINDS_ALL), "afet splicing",
      "Splices the frames around each frame into one (Kaldi's splice-feats) "
      "on an OpenCL device");

  base_class->describe = gst_afet_splice_describe;
  base_class->describe_analysis = gst_afet_splice_describe_analysis;
  base_class->configure = gst_afet_splice_configure;
  base_class->process = gst_afet_splice_process;
  base_class->release = gst_afet_splice_release;
}

static void
gst_afet_splice_init (GstAfetSplice * self)
{
  self->priv = new GstAfetSplicePrivate ();
}
