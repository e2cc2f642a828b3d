/* afetparse: feature files (HTK, NumPy, Kaldi archives) read back into a
 * feature stream.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afetparse
 * @title: afetparse
 *
 * Reads feature files back into a feature stream
 * (`application/x-afet-features`), so that features made elsewhere can go
 * through afetdelta, afetcmvn, afetenc or a recogniser: HTK parameter files,
 * NumPy .npy (float32 or float64, shape (frames, dims)), Kaldi archives
 * (binary float or double matrices, or text) and headerless float32.
 *
 * The format is found from the content (NumPy's magic, a Kaldi key
 * followed by "\0B" or "[", otherwise an HTK header that agrees with the
 * file size); format= forces one.  Each Kaldi archive entry becomes its
 * own run: an afet-key tag with its key, then frames whose first buffer
 * is marked DISCONT, timestamped on from where the previous entry ended.
 *
 * What a file does not record comes from the properties: the sample rate
 * (an HTK file records the frame period, so its frame shift follows from
 * rate), the frame shift and length of NPY and Kaldi files, and their kind
 * (default "user"; HTK files say MFCC, FBANK, PLP or another kind, which
 * becomes "user").  Truncated and corrupt files are errors that name the
 * byte offset.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=s.mfc ! afetparse ! afetdelta ! \
 *     afetenc ! filesink location=s_d.mfc
 * gst-launch-1.0 filesrc location=feats.ark ! afetparse ! \
 *     afetcmvn scope=sliding ! afetenc format=kaldi ! filesink location=c.ark
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetparse.h"
#include "gstafetenc.h"
#include "gstafetdebug.h"
#include "afetfileformat.h"
#include "afetfeatures.h"

#include <gst/base/gstadapter.h>

#include <memory>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY_STATIC (gst_afet_parse_debug);
#define GST_CAT_DEFAULT gst_afet_parse_debug

GST_AFET_DEFINE_ENUM (gst_afet_parse_format_get_type, "GstAfetParseFormat",
    {(gint) afetfile::Format::Auto, "From the content", "auto"},
    {(gint) afetfile::Format::Htk, "HTK parameter file", "htk"},
    {(gint) afetfile::Format::Npy, "NumPy .npy", "npy"},
    {(gint) afetfile::Format::Kaldi, "Kaldi binary archive", "kaldi"},
    {(gint) afetfile::Format::KaldiText, "Kaldi text archive", "kaldi-text"},
    {(gint) afetfile::Format::Raw, "Headerless little-endian float32 "
        "(needs dims)", "raw"});

#define DEFAULT_FORMAT afetfile::Format::Auto
#define DEFAULT_RATE 16000
#define DEFAULT_FRAME_SHIFT 0
#define DEFAULT_FRAME_LENGTH 0
#define DEFAULT_DIMS 0
#define DEFAULT_KIND nullptr

enum
{
  PROP_0,
  PROP_FORMAT,
  PROP_RATE,
  PROP_FRAME_SHIFT,
  PROP_FRAME_LENGTH,
  PROP_KIND,
  PROP_DIMS,
};

/* *INDENT-OFF* */
struct GstAfetParsePrivate
{
  /* properties, under the object lock */
  afetfile::Format format = DEFAULT_FORMAT;
  gint rate = DEFAULT_RATE;
  bool rate_set = false;        /* rate= was given, not the default */
  gint frame_shift = DEFAULT_FRAME_SHIFT;
  gint frame_length = DEFAULT_FRAME_LENGTH;
  gint dims = DEFAULT_DIMS;
  std::string kind;

  /* streaming thread */
  GstAdapter *adapter = nullptr;
  std::unique_ptr<afetfile::Reader> reader;
  bool have_caps = false;
  bool segment_sent = false;
  AfetFeaturesInfo info;
  GstClockTime entry_time = 0;   /* where the current entry starts */
  guint64 entry_frames = 0;
  GstClockTime next_entry_time = 0;
  bool discont = true;
  std::vector<float> pending;
  GstFlowReturn flow = GST_FLOW_OK;
  /* the reader failed and the error is posted: reading on from where it
   * stopped (the EOS that follows) would post it again */
  bool failed = false;
};
/* *INDENT-ON* */

struct _GstAfetParse
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;
  GstAfetParsePrivate *priv;
};

G_DEFINE_TYPE (GstAfetParse, gst_afet_parse, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (afetparse, "afetparse",
    GST_RANK_NONE, GST_TYPE_AFET_PARSE, gst_afet_tag_register ());

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (AFET_FEATURES_CAPS_MAKE (AFET_FEATURES_KINDS_ALL)));

/* Pushes the frames read so far as one buffer. */
static GstFlowReturn
parse_push_pending (GstAfetParse * self)
{
  GstAfetParsePrivate *p = self->priv;
  if (p->pending.empty () || p->flow != GST_FLOW_OK)
    return p->flow;
  const guint64 n = p->pending.size () / p->info.dims;
  GstBuffer *buf = gst_buffer_new_memdup (p->pending.data (),
      p->pending.size () * sizeof (float));
  p->pending.clear ();
  GST_BUFFER_PTS (buf) = p->entry_time +
      afet_features_info_frames_to_time (&p->info, p->entry_frames);
  GST_BUFFER_DURATION (buf) = p->entry_time +
      afet_features_info_frames_to_time (&p->info, p->entry_frames + n) -
      GST_BUFFER_PTS (buf);
  GST_BUFFER_OFFSET (buf) = p->entry_frames;
  GST_BUFFER_OFFSET_END (buf) = p->entry_frames + n;
  if (p->discont)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  p->discont = false;
  p->entry_frames += n;
  p->next_entry_time = p->entry_time +
      afet_features_info_frames_to_time (&p->info, p->entry_frames);
  p->flow = gst_pad_push (self->srcpad, buf);
  return p->flow;
}

/* The caps of an entry, from what it records and the properties. */
static bool
parse_entry_info (GstAfetParse * self, const afetfile::Entry & e,
    AfetFeaturesInfo * info, std::string * why)
{
  GstAfetParsePrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  const gint rate = p->rate, shift_prop = p->frame_shift,
      length_prop = p->frame_length;
  const bool rate_set = p->rate_set;
  const std::string kind_prop = p->kind;
  GST_OBJECT_UNLOCK (self);

  AfetFeaturesInfo layout;
  afet_features_info_init (&layout);
  if (e.format == afetfile::Format::Htk) {
    if (!afetfile::info_from_htk_kind (e.htk_kind, e.dims, &layout, why))
      return false;
  } else {
    layout.kind = AFET_FEATURES_KIND_USER;
    layout.statics = e.dims;
  }
  if (!kind_prop.empty ())
    layout.kind = afet_features_kind_from_string (kind_prop.c_str ());

  gint shift = shift_prop;
  if (e.format == afetfile::Format::Htk) {
    /* the file's frame period, in samples at rate (to HTK's 100 ns: 220
     * samples at 22050 Hz are 99773.24 units, written 99773) */
    gint file_shift = 0;
    if (!afetfile::htk_period_samples (e.htk_period, rate, &file_shift)) {
      const double samples = (double) e.htk_period * rate / 1e7;
      gchar *s = g_strdup_printf ("the HTK frame period of %d x 100 ns "
          "(%.4f ms) is %.3f samples at %d Hz, not within HTK's 100 ns of a "
          "whole number of samples", e.htk_period, e.htk_period / 1e4,
          samples, rate);
      *why = s;
      g_free (s);
      if (rate_set)
        *why += ": the file's frame period and rate= do not fit together "
            "(was the file made from audio at another rate?)";
      else
        *why += " (rate= is not set; 16000 Hz is its default): set rate= "
            "to the sample rate of the audio the features came from";
      return false;
    }
    if (shift != 0 && shift != file_shift) {
      *why = "frame-shift=" + std::to_string (shift) + " contradicts the "
          "file's frame period (" + std::to_string (file_shift) +
          " samples at " + std::to_string (rate) + " Hz)";
      return false;
    }
    shift = file_shift;
  }
  if (shift == 0)
    shift = MAX (1, rate / 100);
  const gint length = length_prop ? length_prop : shift;
  afet_features_info_set_format (info, layout.kind, rate, length, shift,
      layout.statics, layout.delta_order);
  info->c0_index = layout.c0_index;
  info->energy_index = layout.energy_index;
  info->normalization = layout.normalization;
  info->norm_columns = layout.norm_columns;
  if (info->dims != e.dims || !afet_features_info_is_valid (info)) {
    *why = "the file's layout gives no valid feature caps";
    return false;
  }
  return true;
}

static bool
parse_on_entry (GstAfetParse * self, const afetfile::Entry & e,
    std::string * why)
{
  GstAfetParsePrivate *p = self->priv;
  if (parse_push_pending (self) != GST_FLOW_OK) {
    *why = "downstream stopped";
    return false;
  }
  AfetFeaturesInfo info;
  if (!parse_entry_info (self, e, &info, why))
    return false;
  if (!p->have_caps || !afet_features_info_is_equal (&info, &p->info)) {
    GstCaps *caps = afet_features_info_to_caps (&info);
    gboolean ok = gst_pad_push_event (self->srcpad, gst_event_new_caps (caps));
    gst_caps_unref (caps);
    if (!ok) {
      p->flow = GST_FLOW_NOT_NEGOTIATED;
      *why = "downstream refused the features' caps";
      return false;
    }
    p->info = info;
    p->have_caps = true;
  }
  if (!p->segment_sent) {
    GstSegment seg;
    gst_segment_init (&seg, GST_FORMAT_TIME);
    gst_pad_push_event (self->srcpad, gst_event_new_segment (&seg));
    p->segment_sent = true;
  }
  if (!e.key.empty ()) {
    GstTagList *tags = gst_tag_list_new (GST_AFET_TAG_KEY, e.key.c_str (),
        nullptr);
    gst_tag_list_set_scope (tags, GST_TAG_SCOPE_STREAM);
    gst_pad_push_event (self->srcpad, gst_event_new_tag (tags));
  }
  p->entry_time = p->next_entry_time;
  p->entry_frames = 0;
  p->discont = true;
  GST_DEBUG_OBJECT (self, "entry '%s': %" G_GINT64_FORMAT " x %d",
      e.key.c_str (), e.rows, e.dims);
  return true;
}

/* Feeds what the adapter holds to the reader and pushes the frames. */
static GstFlowReturn
parse_run (GstAfetParse * self, bool eos)
{
  GstAfetParsePrivate *p = self->priv;
  if (p->failed)
    return p->flow != GST_FLOW_OK ? p->flow : GST_FLOW_ERROR;
  if (!p->reader) {
    afetfile::Reader::Options opt;
    GST_OBJECT_LOCK (self);
    opt.format = p->format;
    opt.raw_dims = p->dims;
    GST_OBJECT_UNLOCK (self);
    gint64 total = -1;
    if (gst_pad_peer_query_duration (self->sinkpad, GST_FORMAT_BYTES, &total))
      opt.total_bytes = total;
    p->reader.reset (new afetfile::Reader (opt));
  }
  const gsize avail = gst_adapter_available (p->adapter);
  const guint8 *data = avail ? (const guint8 *) gst_adapter_map (p->adapter,
      avail) : nullptr;
  std::string why;
  const gsize used = p->reader->feed (data, avail, eos,
      [self] (const afetfile::Entry & e, std::string * w) {
        return parse_on_entry (self, e, w);
      },
      [self] (const float *f, size_t n) {
        GstAfetParsePrivate *q = self->priv;
        q->pending.insert (q->pending.end (), f, f + n * q->info.dims);
        if (q->pending.size () >= 4096u * q->info.dims)
          return parse_push_pending (self) == GST_FLOW_OK;
        return true;
      }, &why);
  if (avail)
    gst_adapter_unmap (p->adapter);
  if (used == (gsize) - 1) {
    p->failed = true;
    if (p->flow != GST_FLOW_OK)
      return p->flow;
    GST_ELEMENT_ERROR (self, STREAM, DEMUX, ("%s could not read the feature "
            "file: %s.", GST_ELEMENT_NAME (self), why.c_str ()), (nullptr));
    return GST_FLOW_ERROR;
  }
  gst_adapter_flush (p->adapter, used);
  return parse_push_pending (self);
}

static GstFlowReturn
gst_afet_parse_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstAfetParse *self = GST_AFET_PARSE (parent);
  gst_adapter_push (self->priv->adapter, buf);
  return parse_run (self, false);
}

static gboolean
gst_afet_parse_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstAfetParse *self = GST_AFET_PARSE (parent);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:
    case GST_EVENT_SEGMENT:
      /* bytes in; the time segment and caps go out with the first entry */
      gst_event_unref (event);
      return TRUE;
    case GST_EVENT_EOS:{
      const bool told = self->priv->failed;
      GstFlowReturn ret = parse_run (self, true);
      if (ret != GST_FLOW_OK) {
        if (!told && ret != GST_FLOW_ERROR && ret != GST_FLOW_FLUSHING)
          GST_ELEMENT_FLOW_ERROR (self, ret);
        gst_event_unref (event);
        return FALSE;
      }
      return gst_pad_event_default (pad, parent, event);
    }
    case GST_EVENT_FLUSH_STOP:
      gst_adapter_clear (self->priv->adapter);
      return gst_pad_event_default (pad, parent, event);
    default:
      return gst_pad_event_default (pad, parent, event);
  }
}

static void
parse_reset (GstAfetParse * self)
{
  GstAfetParsePrivate *p = self->priv;
  gst_adapter_clear (p->adapter);
  p->reader.reset ();
  p->have_caps = false;
  p->segment_sent = false;
  p->entry_time = p->next_entry_time = 0;
  p->entry_frames = 0;
  p->discont = true;
  p->pending.clear ();
  p->flow = GST_FLOW_OK;
  p->failed = false;
}

static GstStateChangeReturn
gst_afet_parse_change_state (GstElement * element, GstStateChange transition)
{
  GstAfetParse *self = GST_AFET_PARSE (element);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    parse_reset (self);
  GstStateChangeReturn ret =
      GST_ELEMENT_CLASS (gst_afet_parse_parent_class)->change_state (element,
      transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    parse_reset (self);
  return ret;
}

static void
gst_afet_parse_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAfetParse *self = GST_AFET_PARSE (object);
  GstAfetParsePrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FORMAT:
      p->format = (afetfile::Format) g_value_get_enum (value);
      break;
    case PROP_RATE:
      p->rate = g_value_get_int (value);
      p->rate_set = true;
      break;
    case PROP_FRAME_SHIFT:
      p->frame_shift = g_value_get_int (value);
      break;
    case PROP_FRAME_LENGTH:
      p->frame_length = g_value_get_int (value);
      break;
    case PROP_DIMS:
      p->dims = g_value_get_int (value);
      break;
    case PROP_KIND:{
      const gchar *s = g_value_get_string (value);
      if (s && *s && afet_features_kind_from_string (s) ==
          AFET_FEATURES_KIND_UNKNOWN) {
        GST_OBJECT_UNLOCK (self);
        g_warning ("%s: kind '%s' is not a feature kind (" AFET_FEATURES_KINDS_ALL
            ")", GST_OBJECT_NAME (self), s);
        return;
      }
      p->kind = s ? s : "";
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_parse_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAfetParse *self = GST_AFET_PARSE (object);
  GstAfetParsePrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FORMAT:
      g_value_set_enum (value, (gint) p->format);
      break;
    case PROP_RATE:
      g_value_set_int (value, p->rate);
      break;
    case PROP_FRAME_SHIFT:
      g_value_set_int (value, p->frame_shift);
      break;
    case PROP_FRAME_LENGTH:
      g_value_set_int (value, p->frame_length);
      break;
    case PROP_DIMS:
      g_value_set_int (value, p->dims);
      break;
    case PROP_KIND:
      g_value_set_string (value, p->kind.empty ()? nullptr : p->kind.c_str ());
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_parse_finalize (GObject * object)
{
  GstAfetParse *self = GST_AFET_PARSE (object);
  g_object_unref (self->priv->adapter);
  delete self->priv;
  G_OBJECT_CLASS (gst_afet_parse_parent_class)->finalize (object);
}

static void
gst_afet_parse_class_init (GstAfetParseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_DEBUG_CATEGORY_INIT (gst_afet_parse_debug, "afetparse", 0,
      "afet feature file reader");

  gobject_class->set_property = gst_afet_parse_set_property;
  gobject_class->get_property = gst_afet_parse_get_property;
  gobject_class->finalize = gst_afet_parse_finalize;
  element_class->change_state = gst_afet_parse_change_state;

  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_enum ("format", "Format", "File format (auto: from the "
          "content)", gst_afet_parse_format_get_type (),
          (gint) DEFAULT_FORMAT, flags));
  g_object_class_install_property (gobject_class, PROP_RATE,
      g_param_spec_int ("rate", "Rate", "Sample rate (Hz) of the audio the "
          "features came from; HTK frame periods are converted with it",
          1, G_MAXINT, DEFAULT_RATE, flags));
  g_object_class_install_property (gobject_class, PROP_FRAME_SHIFT,
      g_param_spec_int ("frame-shift", "Frame shift", "Frame shift in "
          "samples for files that do not record it (0: 10 ms at rate; HTK "
          "files record it)", 0, G_MAXINT, DEFAULT_FRAME_SHIFT, flags));
  g_object_class_install_property (gobject_class, PROP_FRAME_LENGTH,
      g_param_spec_int ("frame-length", "Frame length", "Frame length in "
          "samples, which no format records (0: the frame shift)",
          0, G_MAXINT, DEFAULT_FRAME_LENGTH, flags));
  g_object_class_install_property (gobject_class, PROP_KIND,
      g_param_spec_string ("kind", "Kind", "Feature kind to announce "
          AFET_FEATURES_KINDS_ALL " (unset: what an HTK file says, else "
          "user)", DEFAULT_KIND, flags));
  g_object_class_install_property (gobject_class, PROP_DIMS,
      g_param_spec_int ("dims", "Dims", "Values per frame of format=raw "
          "input (0: not set)", 0, G_MAXINT, DEFAULT_DIMS, flags));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "afet feature file reader", "Codec/Demuxer/Audio",
      "Reads HTK, NumPy and Kaldi feature files into a feature stream",
      "the afet authors");
  gst_type_mark_as_plugin_api (gst_afet_parse_format_get_type (),
      (GstPluginAPIFlags) 0);
}

/* Upstream asking whether it may seek in what it writes (afetenc, to
 * rewrite a header): no, afetparse reads its input once, in order. */
static gboolean
gst_afet_parse_sink_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_SEEKING)
    return gst_pad_query_default (pad, parent, query);
  GstFormat format;
  gst_query_parse_seeking (query, &format, nullptr, nullptr, nullptr);
  gst_query_set_seeking (query, format, FALSE, 0, -1);
  return TRUE;
}

static void
gst_afet_parse_init (GstAfetParse * self)
{
  self->priv = new GstAfetParsePrivate ();
  self->priv->adapter = gst_adapter_new ();
  afet_features_info_init (&self->priv->info);
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, gst_afet_parse_chain);
  gst_pad_set_event_function (self->sinkpad, gst_afet_parse_sink_event);
  gst_pad_set_query_function (self->sinkpad, gst_afet_parse_sink_query);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}
