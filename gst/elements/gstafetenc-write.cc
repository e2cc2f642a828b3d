/* afetenc's output: bytes at the file position or held in memory, headers
 * rewritten by seeking, Kaldi entries begun and ended (compressed at their
 * end) (gstafetenc-private.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetenc-private.h"

#include <cstring>

#define GST_CAT_DEFAULT gst_afet_enc_debug

/* How bytes reach the output: as they are, or HTK's big-endian floats,
 * converted straight into the buffer that goes on (one pass). */

void
fill_copy (const void *src, size_t n, guint8 * dst)
{
  memcpy (dst, src, n);
}

void
fill_big_endian (const void *src, size_t n, guint8 * dst)
{
  afetfile::to_big_endian ((const float *) src, n / sizeof (float), dst);
}

/* Sends @n bytes at the current file position (or keeps them). */
GstFlowReturn
enc_write (GstAfetEnc * self, const void *data, size_t n, EncFill fill)
{
  GstAfetEncPrivate *p = self->priv;
  if (n == 0)
    return GST_FLOW_OK;
  if (p->hold == 1) {
    GST_OBJECT_LOCK (self);
    guint64 limit = p->max_hold;
    GST_OBJECT_UNLOCK (self);
    if (p->held.size () + n > limit) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Downstream of %s cannot seek, so it keeps the whole %s in "
              "memory to write the frame count at the end, and that has "
              "passed max-hold (%" G_GUINT64_FORMAT " bytes). Write to a "
              "file (filesink), raise max-hold, or use format=raw or "
              "kaldi-text, which need no count.", GST_ELEMENT_NAME (self),
              p->fmt == GST_AFET_ENC_KALDI ? "archive entry" : "file",
              limit), (nullptr));
      return GST_FLOW_ERROR;
    }
    if (p->held.empty ())
      p->held_start = p->offset;
    const size_t at = p->held.size ();
    p->held.resize (at + n);
    fill (data, n, (guint8 *) & p->held[at]);
    p->offset += n;
    return GST_FLOW_OK;
  }
  GstBuffer *buf = gst_buffer_new_allocate (nullptr, n, nullptr);
  GstMapInfo map;
  if (!buf || !gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
    if (buf)
      gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("Out of memory "
            "for %" G_GSIZE_FORMAT " bytes of output.", n), (nullptr));
    return GST_FLOW_ERROR;
  }
  fill (data, n, map.data);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_OFFSET (buf) = p->offset;
  p->offset += n;
  GST_BUFFER_OFFSET_END (buf) = p->offset;
  return gst_pad_push (self->srcpad, buf);
}

/* Sends the held bytes downstream. */
GstFlowReturn
enc_release_held (GstAfetEnc * self)
{
  GstAfetEncPrivate *p = self->priv;
  if (p->held.empty ())
    return GST_FLOW_OK;
  std::string *s = new std::string ();
  s->swap (p->held);
  GstBuffer *buf = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY,
      (gpointer) s->data (), s->size (), 0, s->size (), s,
      [](gpointer d) {
        delete (std::string *) d;
      });
  GST_BUFFER_OFFSET (buf) = p->held_start;
  GST_BUFFER_OFFSET_END (buf) = p->held_start + gst_buffer_get_size (buf);
  return gst_pad_push (self->srcpad, buf);
}

/* Replaces bytes already written at @pos: in memory, or by seeking. */
GstFlowReturn
enc_rewrite (GstAfetEnc * self, guint64 pos, const std::string & bytes)
{
  GstAfetEncPrivate *p = self->priv;
  if (p->hold == 1) {
    g_assert (pos >= p->held_start &&
        pos + bytes.size () <= p->held_start + p->held.size ());
    p->held.replace (pos - p->held_start, bytes.size (), bytes);
    return GST_FLOW_OK;
  }
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_BYTES);
  seg.start = pos;
  seg.time = pos;
  if (!gst_pad_push_event (self->srcpad, gst_event_new_segment (&seg))) {
    GST_ELEMENT_ERROR (self, RESOURCE, SEEK, ("Could not seek back to "
            "write the frame count into the header."), (nullptr));
    return GST_FLOW_ERROR;
  }
  GstBuffer *buf = gst_buffer_new_memdup (bytes.data (), bytes.size ());
  GST_BUFFER_OFFSET (buf) = pos;
  GstFlowReturn ret = gst_pad_push (self->srcpad, buf);
  if (ret != GST_FLOW_OK)
    return ret;
  seg.start = p->offset;
  seg.time = p->offset;
  gst_pad_push_event (self->srcpad, gst_event_new_segment (&seg));
  return GST_FLOW_OK;
}

/* The key of a Kaldi entry: property, tag, or the upstream file name. */
bool
enc_resolve_key (GstAfetEnc * self, std::string * key)
{
  GstAfetEncPrivate *p = self->priv;
  GST_OBJECT_LOCK (self);
  *key = p->key;
  GST_OBJECT_UNLOCK (self);
  std::string from = "the key property";
  if (key->empty () && !p->tag_key.empty ()) {
    *key = p->tag_key;
    from = "the " GST_AFET_TAG_KEY " tag";
  }
  if (key->empty ()) {
    GstQuery *q = gst_query_new_uri ();
    gchar *uri = nullptr;
    if (gst_pad_peer_query (self->sinkpad, q))
      gst_query_parse_uri (q, &uri);
    gst_query_unref (q);
    if (uri) {
      gchar *path = g_filename_from_uri (uri, nullptr, nullptr);
      gchar *base = g_path_get_basename (path ? path : uri);
      gchar *dot = strrchr (base, '.');
      if (dot && dot != base)
        *dot = '\0';
      *key = base;
      from = std::string ("the upstream file name (") + uri + ")";
      g_free (base);
      g_free (path);
      g_free (uri);
    }
  }
  if (key->empty ()) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("A Kaldi archive entry needs "
            "a key: set %s key=..., or feed it from afetparse or a file "
            "source (their keys or file names are used).",
            GST_ELEMENT_NAME (self)), (nullptr));
    return false;
  }
  if (!afetfile::kaldi_key_ok (*key)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("The Kaldi key '%s' from %s "
            "contains white space (space, tab, newline, CR, FF or VT), which "
            "ends a key in an archive: set key=... to one without (any other "
            "bytes, UTF-8 too, are fine).", key->c_str (), from.c_str ()),
        (nullptr));
    return false;
  }
  return true;
}

GstFlowReturn
enc_start_output (GstAfetEnc * self)
{
  GstAfetEncPrivate *p = self->priv;
  if (p->started)
    return GST_FLOW_OK;
  p->started = true;
  GstCaps *caps = gst_caps_new_simple ("application/x-afet-file", "format",
      G_TYPE_STRING, format_names[p->fmt], nullptr);
  gst_pad_push_event (self->srcpad, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_BYTES);
  gst_pad_push_event (self->srcpad, gst_event_new_segment (&seg));

  /* a compressed entry goes out whole at its end: nothing to rewrite */
  if (needs_count (p->fmt) && p->cm == 0) {
    GstQuery *q = gst_query_new_seeking (GST_FORMAT_BYTES);
    gboolean seekable = FALSE;
    if (gst_pad_peer_query (self->srcpad, q))
      gst_query_parse_seeking (q, nullptr, &seekable, nullptr, nullptr);
    gst_query_unref (q);
    p->hold = seekable ? 0 : 1;
    GST_DEBUG_OBJECT (self, "downstream %s seek: %s", seekable ? "can" :
        "cannot", seekable ? "rewriting the header" : "holding the data");
  } else {
    p->hold = 0;
  }
  return GST_FLOW_OK;
}

GstFlowReturn
enc_begin_entry (GstAfetEnc * self)
{
  GstAfetEncPrivate *p = self->priv;
  GstFlowReturn ret = enc_start_output (self);
  if (ret != GST_FLOW_OK)
    return ret;
  p->entry_start = p->offset;
  p->entry_frames = 0;
  p->key_tag_seen = false;
  p->entry_tag_key = p->tag_key;
  const int dims = p->info.dims;
  std::string h;
  switch (p->fmt) {
    case GST_AFET_ENC_HTK:
      h = afetfile::htk_header (0, p->htk_period, dims, p->htk_kind);
      break;
    case GST_AFET_ENC_NPY:
      h = afetfile::npy_header (0, dims);
      break;
    case GST_AFET_ENC_KALDI:
    case GST_AFET_ENC_KALDI_TEXT:
      if (!enc_resolve_key (self, &p->entry_key))
        return GST_FLOW_ERROR;
      if (p->cm != 0)
        p->entry_vals.clear ();
      else
        h = p->fmt == GST_AFET_ENC_KALDI ?
            afetfile::kaldi_entry_header (p->entry_key, 0, dims) :
            afetfile::kaldi_text_open (p->entry_key);
      break;
    case GST_AFET_ENC_RAW:
      break;
  }
  ret = enc_write (self, h.data (), h.size ());
  /* an entry exists once its header is out: only then is there one to end */
  if (ret == GST_FLOW_OK)
    p->in_entry = true;
  return ret;
}

/* Writes the held entry as a Kaldi compressed matrix. */
GstFlowReturn
enc_write_compressed (GstAfetEnc * self)
{
  GstAfetEncPrivate *p = self->priv;
  std::string e = p->entry_key;
  e.append (" \0B", 3);
  std::string why;
  const bool ok = afetfile::kaldi_compress (p->entry_vals.data (),
      (int32_t) p->entry_frames, p->info.dims, p->cm, &e, &why);
  std::vector<float> ().swap (p->entry_vals);
  if (!ok) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s cannot compress entry "
            "'%s' (%" G_GUINT64_FORMAT " x %d) with compression-method=%d "
            "(%s): %s. Write it uncompressed (compression-method=0) or "
            "remove the values first.", GST_ELEMENT_NAME (self),
            p->entry_key.c_str (), p->entry_frames, p->info.dims, p->cm,
            afetfile::kaldi_compression_name (p->cm), why.c_str ()),
        (nullptr));
    return GST_FLOW_ERROR;
  }
  return enc_write (self, e.data (), e.size ());
}

/* Completes the current entry (Kaldi) or the file: the frame count goes
 * into its header (a compressed Kaldi entry is written now, whole). */
GstFlowReturn
enc_end_entry (GstAfetEnc * self)
{
  GstAfetEncPrivate *p = self->priv;
  if (!p->in_entry)
    return GST_FLOW_OK;
  p->in_entry = false;
  GstFlowReturn ret = GST_FLOW_OK;
  switch (p->fmt) {
    case GST_AFET_ENC_HTK:
      ret = enc_rewrite (self, p->entry_start, afetfile::htk_header (
              (uint32_t) p->entry_frames, p->htk_period, p->info.dims,
              p->htk_kind));
      break;
    case GST_AFET_ENC_NPY:
      ret = enc_rewrite (self, p->entry_start,
          afetfile::npy_header (p->entry_frames, p->info.dims));
      break;
    case GST_AFET_ENC_KALDI:{
      if (p->cm != 0) {
        ret = enc_write_compressed (self);
        break;
      }
      uint32_t rows = GUINT32_TO_LE ((uint32_t) p->entry_frames);
      ret = enc_rewrite (self, p->entry_start +
          afetfile::kaldi_rows_offset (p->entry_key),
          std::string ((const char *) &rows, 4));
      break;
    }
    case GST_AFET_ENC_KALDI_TEXT:{
      std::string c = afetfile::kaldi_text_close ();
      ret = enc_write (self, c.data (), c.size ());
      break;
    }
    case GST_AFET_ENC_RAW:
      break;
  }
  if (ret == GST_FLOW_OK && p->hold == 1)
    ret = enc_release_held (self);
  return ret;
}
