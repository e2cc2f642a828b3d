/* afetenc: a feature stream written as a feature file (HTK, NumPy, Kaldi
 * archive entries, raw float32).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-afetenc
 * @title: afetenc
 *
 * Writes a feature stream (`application/x-afet-features`) as a feature
 * file for filesink: HTK parameter files, NumPy .npy, Kaldi archives
 * (binary or text) or headerless float32.  The file holds the frames
 * exactly as the caps describe them; nothing is reordered or changed.
 *
 * - format=htk: HTK's 12-byte header, then big-endian floats.  The
 *   parameter kind comes from the caps: MFCC, FBANK, PLP (USER for frames,
 *   TRAPS, spectrograms and anything else), _E from energy-index (not for
 *   a spectrogram, whose energy is in column 0), _0 from c0-index,
 *   _D/_A/_T from delta-order, _Z when the mean was removed from HTK's
 *   columns (afetcmvn mode=mean columns=htk).  A stream HTK cannot describe
 *   (say, mean and variance normalised) is refused at negotiation.
 * - format=npy: float32, shape (frames, dims).
 * - format=kaldi: one binary archive entry ("KEY \0BFM ...") per entry of
 *   the stream: an afet-key tag (afetparse sends one per entry) followed by
 *   a DISCONT buffer, or by a buffer under another key, starts the next
 *   one, so that entries with equal keys stay apart.  The key is the key
 *   property, else the afet-key tag, else the upstream file name without
 *   its extension: any bytes but white space and NUL (UTF-8 is common).
 *   format=kaldi-text writes the same as text.
 * - format=kaldi compression-method=N (1 to 7): each entry as one of
 *   Kaldi's compressed matrices (CM, CM2 or CM3), byte for byte what
 *   `copy-feats --compress=true --compression-method=N` writes; N is
 *   Kaldi's CompressionMethod (1 automatic: CM above 8 rows, else CM2; 2
 *   speech features, CM; 3 and 4 two bytes a value, the matrix's range or
 *   -32768..32767; 5, 6 and 7 one byte a value, the matrix's range, 0..255
 *   or 0..1).  The compression needs the whole matrix: afetenc keeps each
 *   entry's frames in memory (up to max-hold bytes) and writes the entry
 *   at its end.  NaN, and with methods 1, 2, 3 and 5 infinities, are
 *   refused as Kaldi refuses them.
 * - format=raw: the frames alone, little-endian float32.
 *
 * HTK, NPY and Kaldi headers hold the frame count, known only at the end:
 * afetenc writes a provisional header and rewrites it by seeking
 * downstream (filesink can).  When downstream cannot seek (a pipe, an
 * appsink) it keeps the file (Kaldi: the entry) in memory, up to max-hold
 * bytes, and sends it whole at the end; beyond that it fails with an
 * error, never with a wrong header.
 *
 * A stream that starts after an EOS (a stream-start event following it,
 * with a flush between or not) is a new output: afetenc starts again from
 * byte 0 with a new header and segment, as after a restart from READY.
 * The caps of the stream before stay until new ones come.  afet-extract
 * keeps its pipelines playing from one input to the next this way.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=s.wav ! wavparse ! audioconvert ! \
 *     afetmfcc ! afetdelta ! afetcmvn columns=htk ! afetenc ! \
 *     filesink location=s.mfc                       # HTK MFCC_0_D_A_Z
 * ... ! afetmfcc num-ceps=0 ! afetenc format=npy ! filesink location=s.npy
 * ... ! afetmfcc ! afetenc format=kaldi key=utt1 ! filesink location=f.ark
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetenc.h"
#include "gstafetenc-private.h"
#include "gstafetdebug.h"
#include "afetfileformat.h"
#include "afetfeatures.h"

#include <cstring>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY (gst_afet_enc_debug);
#define GST_CAT_DEFAULT gst_afet_enc_debug

GST_AFET_DEFINE_ENUM (gst_afet_enc_format_get_type, "GstAfetEncFormat",
    {GST_AFET_ENC_HTK, "HTK parameter file", "htk"},
    {GST_AFET_ENC_NPY, "NumPy .npy, float32 (frames, dims)", "npy"},
    {GST_AFET_ENC_KALDI, "Kaldi binary archive entries", "kaldi"},
    {GST_AFET_ENC_KALDI_TEXT, "Kaldi text archive entries", "kaldi-text"},
    {GST_AFET_ENC_RAW, "Headerless little-endian float32", "raw"});

enum
{
  PROP_0,
  PROP_FORMAT,
  PROP_KEY,
  PROP_MAX_HOLD,
  PROP_COMPRESSION_METHOD,
};


G_DEFINE_TYPE (GstAfetEnc, gst_afet_enc, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (afetenc, "afetenc", GST_RANK_NONE,
    GST_TYPE_AFET_ENC, gst_afet_tag_register ());

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (AFET_FEATURES_CAPS_MAKE (AFET_FEATURES_KINDS_ALL)));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("application/x-afet-file, "
        "format = (string) { htk, npy, kaldi, kaldi-text, raw }"));

void
gst_afet_tag_register (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    gst_tag_register (GST_AFET_TAG_KEY, GST_TAG_FLAG_META, G_TYPE_STRING,
        "afet key", "key (utterance id) of a feature archive entry",
        gst_tag_merge_use_first);
    g_once_init_leave (&done, 1);
  }
}

static GstFlowReturn
gst_afet_enc_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstAfetEnc *self = GST_AFET_ENC (parent);
  GstAfetEncPrivate *p = self->priv;
  if (p->failed) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  if (!p->have_info) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("A buffer came before its "
            "format (no caps event)."), (nullptr));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  const gsize frame_bytes = AFET_FEATURES_INFO_FRAME_BYTES (&p->info);
  const gsize size = gst_buffer_get_size (buf);
  if (size % frame_bytes != 0) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("A buffer of %" G_GSIZE_FORMAT
            " bytes is not a whole number of %d-value frames.", size,
            p->info.dims), (nullptr));
    return GST_FLOW_ERROR;
  }
  const guint64 n = size / frame_bytes;
  GstFlowReturn ret = GST_FLOW_OK;
  if (p->in_entry && p->key_tag_seen && is_kaldi (p->fmt) &&
      (GST_BUFFER_IS_DISCONT (buf) || p->tag_key != p->entry_tag_key))
    ret = enc_end_entry (self);
  if (ret == GST_FLOW_OK && !p->in_entry)
    ret = enc_begin_entry (self);
  if (ret != GST_FLOW_OK || n == 0) {
    if (ret == GST_FLOW_ERROR)
      p->failed = true;
    gst_buffer_unref (buf);
    return ret;
  }
  const guint64 limit = p->fmt == GST_AFET_ENC_HTK ||
      p->fmt == GST_AFET_ENC_KALDI ? (guint64) G_MAXINT32 : G_MAXUINT64;
  if (p->entry_frames + n > limit) {
    p->failed = true;
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s holds at most %d frames "
            "per %s; this stream has more.", format_names[p->fmt], G_MAXINT32,
            p->fmt == GST_AFET_ENC_HTK ? "file" : "entry"), (nullptr));
    return GST_FLOW_ERROR;
  }

  GstMapInfo map;
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not read a buffer."),
        (nullptr));
    return GST_FLOW_ERROR;
  }
  const float *v = (const float *) map.data;
  const size_t vals = n * p->info.dims;
  if (p->cm != 0) {
    GST_OBJECT_LOCK (self);
    const guint64 limit = p->max_hold;
    GST_OBJECT_UNLOCK (self);
    if ((p->entry_vals.size () + vals) * sizeof (float) > limit) {
      gst_buffer_unmap (buf, &map);
      gst_buffer_unref (buf);
      p->failed = true;
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("compression-method="
              "%d keeps each archive entry in memory until it ends (a "
              "compressed matrix needs all of its values), and entry '%s' "
              "has passed max-hold (%" G_GUINT64_FORMAT " bytes). Raise "
              "max-hold or write it uncompressed.", p->cm,
              p->entry_key.c_str (), limit), (nullptr));
      return GST_FLOW_ERROR;
    }
    p->entry_vals.insert (p->entry_vals.end (), v, v + vals);
  } else if (p->fmt == GST_AFET_ENC_HTK) {
    ret = enc_write (self, v, vals * sizeof (float), fill_big_endian);
  } else if (p->fmt == GST_AFET_ENC_KALDI_TEXT) {
    std::string text;
    for (guint64 i = 0; i < n; i++)
      afetfile::kaldi_text_row (v + i * p->info.dims, p->info.dims, &text);
    ret = enc_write (self, text.data (), text.size ());
  } else if (p->hold == 1) {
    ret = enc_write (self, map.data, size);
  } else {
    /* little-endian floats as they came: the same memory goes on */
    gst_buffer_unmap (buf, &map);
    buf = gst_buffer_make_writable (buf);
    GST_BUFFER_OFFSET (buf) = p->offset;
    p->offset += size;
    GST_BUFFER_OFFSET_END (buf) = p->offset;
    GST_BUFFER_PTS (buf) = GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
    p->entry_frames += n;
    p->file_frames += n;
    return gst_pad_push (self->srcpad, buf);
  }
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  p->entry_frames += n;
  p->file_frames += n;
  if (ret == GST_FLOW_ERROR)
    p->failed = true;
  return ret;
}

static gboolean
enc_set_caps (GstAfetEnc * self, GstCaps * caps)
{
  GstAfetEncPrivate *p = self->priv;
  AfetFeaturesInfo info;
  gchar *str = gst_caps_to_string (caps);
  if (!afet_features_info_from_caps (&info, caps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s cannot write these "
            "caps: they are not valid feature caps (GST_DEBUG=afetfeatures:4 "
            "names the field).", GST_ELEMENT_NAME (self)), ("%s", str));
    g_free (str);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  GstAfetEncFormat fmt = p->format;
  int cm = p->compression;
  GST_OBJECT_UNLOCK (self);
  if (p->started && fmt != p->fmt) {
    fmt = p->fmt;
    cm = p->cm;
  }
  if (cm != 0 && fmt != GST_AFET_ENC_KALDI) {
    /* Kaldi compresses binary archive entries only (its text form of a
     * compressed matrix is the plain matrix) */
    if (p->refused != str)
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("compression-method=%d "
              "is for format=kaldi only (Kaldi's compressed matrices exist "
              "in binary archives); this %s is format=%s.", cm,
              GST_ELEMENT_NAME (self), format_names[fmt]), ("%s", str));
    p->refused = str;
    g_free (str);
    return FALSE;
  }
  uint16_t kind = 0;
  int32_t period = 0;
  std::string why;
  /* a spectrogram's column 0 is a bin's place taken by the log energy, not
   * HTK's _E (the last column): USER without qualifiers */
  AfetFeaturesInfo htk_info = info;
  if (info.kind == AFET_FEATURES_KIND_SPECTROGRAM)
    htk_info.energy_index = -1;
  if (fmt == GST_AFET_ENC_HTK &&
      !afetfile::htk_kind_for (htk_info, &kind, &period, &why)) {
    /* GStreamer offers the same caps again after a refusal: one error */
    if (p->refused != str)
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s format=htk cannot "
              "write this stream: %s.", GST_ELEMENT_NAME (self),
              why.c_str ()), ("%s", str));
    p->refused = str;
    g_free (str);
    return FALSE;
  }
  if (p->have_info && p->file_frames > 0 &&
      !afet_features_info_is_equal (&info, &p->info)) {
    /* a Kaldi entry is whole when the layout changes (afetparse and afet's
     * elements send all of a run before new caps): its row count goes
     * into its header first, so that what was written is a valid archive
     * and no entry says 0 rows over the frames it holds */
    if (is_kaldi (p->fmt) && !p->failed)
      enc_end_entry (self);
    p->failed = true;
    /* GStreamer offers the same caps again after a refusal: one error */
    if (p->refused != str)
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("The feature layout "
              "changed after %" G_GUINT64_FORMAT " frames were written; %s: "
              "end the stream first.", p->file_frames, is_kaldi (p->fmt) ?
              "afetenc writes one layout per archive (the entries before "
              "the change are complete)" : "a feature file holds one "
              "layout"), ("%s", str));
    p->refused = str;
    g_free (str);
    return FALSE;
  }
  g_free (str);
  p->info = info;
  p->have_info = true;
  p->fmt = fmt;
  p->cm = cm;
  p->htk_kind = kind;
  p->htk_period = period;
  GST_DEBUG_OBJECT (self, "writing %s%s%s", format_names[fmt],
      fmt == GST_AFET_ENC_HTK ? " " : "", fmt == GST_AFET_ENC_HTK ?
      afetfile::htk_kind_name (kind).c_str () : "");
  return TRUE;
}

/* At an EOS with no frames.  When upstream says the stream lasted at least
 * one frame, its audio was lost on the way: an error, and true.  Otherwise
 * a warning: an empty file is written, but nobody should take it for a
 * stream that was empty without being told (GStreamer 1.22's wavparse,
 * pulling from a file, sends caps and EOS and no audio, and cannot say
 * the duration, for a WAV whose data chunk has an odd length and its pad
 * byte, as sox writes 8-bit mono files). */
#define ENC_LOST_HINT "GStreamer 1.22's wavparse, reading a file, drops " \
    "all of a WAV whose data chunk has an odd length (8-bit mono files from " \
    "sox, say): put a queue before wavparse, or rewrite the file (e.g. as " \
    "16-bit)."

static bool
enc_audio_lost (GstAfetEnc * self)
{
  GstAfetEncPrivate *p = self->priv;
  gint64 duration = -1;
  const GstClockTime frame = p->info.rate > 0 ?
      gst_util_uint64_scale_int (GST_SECOND, MAX (p->info.frame_length, 1),
      p->info.rate) : 0;
  if (frame > 0 && gst_pad_peer_query_duration (self->sinkpad,
          GST_FORMAT_TIME, &duration) && duration > 0 &&
      (GstClockTime) duration >= frame) {
    p->failed = true;
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s got no frames, though "
            "upstream says the stream lasts %.3f s (a frame is %.3f s): the "
            "audio was lost before the features were made. " ENC_LOST_HINT,
            GST_ELEMENT_NAME (self), (double) duration / GST_SECOND,
            (double) frame / GST_SECOND), ("duration %" GST_TIME_FORMAT,
            GST_TIME_ARGS ((GstClockTime) duration)));
    return true;
  }
  GST_ELEMENT_WARNING (self, STREAM, FAILED, ("%s got no frames: the file "
          "it writes holds none. Either the input held less than one frame "
          "of audio (%.3f s), or the audio was lost before the features "
          "were made. " ENC_LOST_HINT, GST_ELEMENT_NAME (self),
          (double) frame / GST_SECOND), ("upstream duration %s",
          duration >= 0 ? "0" : "unknown"));
  return false;
}

static void enc_reset_output (GstAfetEnc * self);

static gboolean
gst_afet_enc_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstAfetEnc *self = GST_AFET_ENC (parent);
  GstAfetEncPrivate *p = self->priv;
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      gst_event_parse_caps (event, &caps);
      gboolean ok = enc_set_caps (self, caps);
      gst_event_unref (event);
      return ok;
    }
    case GST_EVENT_SEGMENT:
      /* ours is a byte stream; the segment goes out with the first data */
      gst_event_unref (event);
      return TRUE;
    case GST_EVENT_TAG:{
      GstTagList *tags;
      gchar *key = nullptr;
      gst_event_parse_tag (event, &tags);
      if (gst_tag_list_get_string (tags, GST_AFET_TAG_KEY, &key)) {
        if (p->in_entry)
          p->key_tag_seen = true;
        p->tag_key = key;
        g_free (key);
      }
      return gst_pad_event_default (pad, parent, event);
    }
    case GST_EVENT_EOS:{
      if (p->failed) {
        /* the error is on the bus; a header now would look complete */
        p->held.clear ();
        gst_event_unref (event);
        return FALSE;
      }
      if (p->have_info && p->file_frames == 0 && enc_audio_lost (self)) {
        gst_event_unref (event);
        return FALSE;
      }
      if (p->have_info && !p->in_entry && p->file_frames == 0 &&
          (p->fmt == GST_AFET_ENC_HTK || p->fmt == GST_AFET_ENC_NPY)) {
        /* no frames at all: still a valid, empty file */
        if (enc_begin_entry (self) != GST_FLOW_OK) {
          gst_event_unref (event);
          return FALSE;
        }
      }
      GstFlowReturn ret = enc_end_entry (self);
      if (ret != GST_FLOW_OK) {
        p->failed = true;
        if (ret != GST_FLOW_FLUSHING && ret != GST_FLOW_ERROR &&
            ret < GST_FLOW_EOS)
          GST_ELEMENT_FLOW_ERROR (self, ret);
        gst_event_unref (event);
        return FALSE;
      }
      p->ended = true;
      return gst_pad_event_default (pad, parent, event);
    }
    case GST_EVENT_STREAM_START:
      if (p->ended) {
        GST_DEBUG_OBJECT (self, "a stream after EOS: a new output");
        enc_reset_output (self);
      }
      return gst_pad_event_default (pad, parent, event);
    default:
      return gst_pad_event_default (pad, parent, event);
  }
}

/* what one output (file) was: cleared at its end for the next stream; the
 * caps' layout stays */
static void
enc_reset_output (GstAfetEnc * self)
{
  GstAfetEncPrivate *p = self->priv;
  p->hold = -1;
  p->started = false;
  p->offset = 0;
  p->in_entry = false;
  p->entry_frames = p->file_frames = 0;
  p->entry_key.clear ();
  p->tag_key.clear ();
  p->key_tag_seen = false;
  p->held.clear ();
  p->held_start = 0;
  std::vector<float> ().swap (p->entry_vals);
  p->failed = false;
  p->ended = false;
}

static void
enc_reset (GstAfetEnc * self)
{
  GstAfetEncPrivate *p = self->priv;
  enc_reset_output (self);
  p->have_info = false;
  p->refused.clear ();
}

static GstStateChangeReturn
gst_afet_enc_change_state (GstElement * element, GstStateChange transition)
{
  GstAfetEnc *self = GST_AFET_ENC (element);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    enc_reset (self);
  GstStateChangeReturn ret =
      GST_ELEMENT_CLASS (gst_afet_enc_parent_class)->change_state (element,
      transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    enc_reset (self);
  return ret;
}

static void
gst_afet_enc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAfetEnc *self = GST_AFET_ENC (object);
  GstAfetEncPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FORMAT:
      p->format = (GstAfetEncFormat) g_value_get_enum (value);
      break;
    case PROP_KEY:{
      const gchar *s = g_value_get_string (value);
      p->key = s ? s : "";
      break;
    }
    case PROP_MAX_HOLD:
      p->max_hold = g_value_get_uint64 (value);
      break;
    case PROP_COMPRESSION_METHOD:
      p->compression = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_enc_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAfetEnc *self = GST_AFET_ENC (object);
  GstAfetEncPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FORMAT:
      g_value_set_enum (value, p->format);
      break;
    case PROP_KEY:
      g_value_set_string (value, p->key.empty ()? nullptr : p->key.c_str ());
      break;
    case PROP_MAX_HOLD:
      g_value_set_uint64 (value, p->max_hold);
      break;
    case PROP_COMPRESSION_METHOD:
      g_value_set_int (value, p->compression);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_afet_enc_finalize (GObject * object)
{
  delete GST_AFET_ENC (object)->priv;
  G_OBJECT_CLASS (gst_afet_enc_parent_class)->finalize (object);
}

static void
gst_afet_enc_class_init (GstAfetEncClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  const GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  GST_DEBUG_CATEGORY_INIT (gst_afet_enc_debug, "afetenc", 0,
      "afet feature file writer");

  gobject_class->set_property = gst_afet_enc_set_property;
  gobject_class->get_property = gst_afet_enc_get_property;
  gobject_class->finalize = gst_afet_enc_finalize;
  element_class->change_state = gst_afet_enc_change_state;

  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_enum ("format", "Format", "File format to write",
          gst_afet_enc_format_get_type (), DEFAULT_FORMAT, flags));
  g_object_class_install_property (gobject_class, PROP_KEY,
      g_param_spec_string ("key", "Key", "Kaldi archive key (utterance id); "
          "unset: the " GST_AFET_TAG_KEY " tag, else the upstream file name "
          "without its extension", DEFAULT_KEY, flags));
  g_object_class_install_property (gobject_class, PROP_MAX_HOLD,
      g_param_spec_uint64 ("max-hold", "Max hold", "Most bytes kept in "
          "memory when downstream cannot seek back to write a header's "
          "frame count (HTK, NPY: the file; Kaldi: one entry), or, with "
          "compression-method, to compress an entry (its float frames)", 1,
          G_MAXUINT64, DEFAULT_MAX_HOLD, flags));
  g_object_class_install_property (gobject_class, PROP_COMPRESSION_METHOD,
      g_param_spec_int ("compression-method", "Compression method",
          "format=kaldi: write each entry as a Kaldi compressed matrix, "
          "byte for byte as copy-feats --compress=true "
          "--compression-method=N does (1 automatic, 2 speech features "
          "(CM), 3 two bytes auto range, 4 two bytes -32768..32767 (CM2), "
          "5 one byte auto range, 6 one byte 0..255, 7 one byte 0..1 (CM3)); "
          "0: uncompressed floats", 0, afetfile::kCompressMax,
          DEFAULT_COMPRESSION_METHOD, flags));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "afet feature file writer", "Codec/Muxer/Audio",
      "Writes a feature stream as an HTK, NumPy or Kaldi feature file",
      "the afet authors");
  gst_type_mark_as_plugin_api (gst_afet_enc_format_get_type (),
      (GstPluginAPIFlags) 0);
}

/* Byte positions and durations upstream are those of its input (a WAV's
 * data chunk), not of the file afetenc writes, which it does not know
 * before the end: not answered (afetparse would take them for its size). */
static gboolean
gst_afet_enc_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstFormat format = GST_FORMAT_UNDEFINED;
  if (GST_QUERY_TYPE (query) == GST_QUERY_DURATION)
    gst_query_parse_duration (query, &format, nullptr);
  else if (GST_QUERY_TYPE (query) == GST_QUERY_POSITION)
    gst_query_parse_position (query, &format, nullptr);
  if (format == GST_FORMAT_BYTES)
    return FALSE;
  return gst_pad_query_default (pad, parent, query);
}

static void
gst_afet_enc_init (GstAfetEnc * self)
{
  self->priv = new GstAfetEncPrivate ();
  afet_features_info_init (&self->priv->info);
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, gst_afet_enc_chain);
  gst_pad_set_event_function (self->sinkpad, gst_afet_enc_sink_event);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_use_fixed_caps (self->srcpad);
  gst_pad_set_query_function (self->srcpad, gst_afet_enc_src_query);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}
