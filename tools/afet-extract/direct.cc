/* afet-extract's inputs pushed straight into a chain kept playing
 * (direct.h): our two pads, the output they write, the flush between
 * inputs.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "direct.h"

#include <cerrno>
#include <cstring>

#include <unistd.h>

namespace afetx
{

static bool
type_is (GType t, const char *name)
{
  for (; t; t = g_type_parent (t))
    if (g_strcmp0 (g_type_name (t), name) == 0)
      return true;
  return false;
}

bool
resets_on_flush (GstBin * bin)
{
  /* not audioconvert (its dither and noise shaping) nor audioresample
   * (its phase): a flush leaves state of the input before in them */
  static const char *const plain[] = { "capsfilter", "identity", "afetenc" };
  bool all = true;
  GstIterator *it = gst_bin_iterate_recurse (bin);
  GValue v = G_VALUE_INIT;
  while (all && gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement *e = GST_ELEMENT (g_value_get_object (&v));
    GstElementFactory *f = gst_element_get_factory (e);
    bool known = type_is (G_OBJECT_TYPE (e), "GstAfetBase");
    for (const char *name:plain)
      known = known || (f && g_strcmp0 (GST_OBJECT_NAME (f), name) == 0);
    all = known;
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return all;
}

static GstStaticPadTemplate any_src = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate any_sink = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

bool
DirectPads::attach (GstPad * first, GstPad * last, std::string * why)
{
  detach ();
  src_ = gst_pad_new_from_static_template (&any_src, "afetx_push");
  sink_ = gst_pad_new_from_static_template (&any_sink, "afetx_take");
  gst_pad_set_element_private (src_, this);
  gst_pad_set_element_private (sink_, this);
  gst_pad_set_query_function (src_, src_query);
  gst_pad_set_event_function (src_, src_event);
  gst_pad_set_chain_function (sink_, sink_chain);
  gst_pad_set_event_function (sink_, sink_event);
  gst_pad_set_query_function (sink_, sink_query);
  first_ = GST_PAD (gst_object_ref (first));
  last_ = GST_PAD (gst_object_ref (last));
  if (GST_PAD_LINK_FAILED (gst_pad_link (src_, first_)) ||
      GST_PAD_LINK_FAILED (gst_pad_link (last_, sink_))) {
    *why = "cannot link the chain's ends";
    detach ();
    return false;
  }
  gst_pad_set_active (src_, TRUE);
  gst_pad_set_active (sink_, TRUE);
  return true;
}

void
DirectPads::detach ()
{
  if (!src_)
    return;
  gst_pad_set_active (src_, FALSE);
  gst_pad_set_active (sink_, FALSE);
  if (gst_pad_is_linked (src_))
    gst_pad_unlink (src_, first_);
  if (gst_pad_is_linked (sink_))
    gst_pad_unlink (last_, sink_);
  gst_object_unref (src_);
  gst_object_unref (sink_);
  gst_object_unref (first_);
  gst_object_unref (last_);
  src_ = sink_ = first_ = last_ = nullptr;
  gst_clear_caps (&caps_);
}

void
DirectPads::begin_output (int fd)
{
  fd_ = fd;
  memory_.clear ();
  eos_ = false;
  error_.clear ();
}

bool
DirectPads::start_stream (GstCaps * caps, GstClockTime duration)
{
  duration_ = duration;
  discont_ = true;
  gchar *id = g_strdup_printf ("afetx/%u", ++streams_);
  GstEvent *start = gst_event_new_stream_start (id);
  g_free (id);
  gst_event_set_group_id (start, gst_util_group_id_next ());
  if (!gst_pad_push_event (src_, start))
    return false;
  /* the caps stay through a flush: sent again only when they change, so
   * that the chain is negotiated once for inputs of one format */
  if (!caps_ || !gst_caps_is_equal (caps, caps_)) {
    gst_caps_replace (&caps_, caps);
    if (!gst_pad_push_event (src_, gst_event_new_caps (caps))) {
      gst_clear_caps (&caps_);
      return false;
    }
  }
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  return gst_pad_push_event (src_, gst_event_new_segment (&seg));
}

GstFlowReturn
DirectPads::push (GstBuffer * buf)
{
  if (discont_) {
    buf = gst_buffer_make_writable (buf);
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    discont_ = false;
  }
  return gst_pad_push (src_, buf);
}

bool
DirectPads::end_stream ()
{
  return gst_pad_push_event (src_, gst_event_new_eos ()) && eos_;
}

void
DirectPads::reset ()
{
  gst_pad_push_event (src_, gst_event_new_flush_start ());
  gst_pad_push_event (src_, gst_event_new_flush_stop (TRUE));
  /* a failed caps event is not sticky downstream: sent again next time */
  eos_ = false;
}

std::string
DirectPads::take_memory ()
{
  std::string out;
  out.swap (memory_);
  return out;
}

GstFlowReturn
DirectPads::sink_chain (GstPad * pad, GstObject *, GstBuffer * buf)
{
  auto *self = (DirectPads *) gst_pad_get_element_private (pad);
  GstMapInfo map;
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    gst_buffer_unref (buf);
    self->error_ = "cannot read a buffer of the encoder";
    return GST_FLOW_ERROR;
  }
  GstFlowReturn ret = GST_FLOW_OK;
  if (self->fd_ < 0) {
    self->memory_.append ((const char *) map.data, map.size);
  } else {
    for (size_t done = 0; done < map.size;) {
      ssize_t n = write (self->fd_, map.data + done, map.size - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        /* a full disk, a quota, an I/O error: the input fails */
        self->error_ = std::string ("cannot write the output: ") +
            (n < 0 ? g_strerror (errno) : "nothing written");
        ret = GST_FLOW_ERROR;
        break;
      }
      done += (size_t) n;
    }
  }
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  return ret;
}

gboolean
DirectPads::sink_event (GstPad * pad, GstObject *, GstEvent * event)
{
  auto *self = (DirectPads *) gst_pad_get_element_private (pad);
  gboolean ok = TRUE;
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_SEGMENT:{
      /* afetenc's byte segments: where its next bytes go (back to the
       * header to write the frame count, then to the end again) */
      const GstSegment *seg;
      gst_event_parse_segment (event, &seg);
      if (seg->format == GST_FORMAT_BYTES && self->fd_ >= 0 &&
          lseek (self->fd_, (off_t) seg->start, SEEK_SET) < 0) {
        self->error_ = std::string ("cannot seek in the output: ") +
            g_strerror (errno);
        ok = FALSE;
      }
      break;
    }
    case GST_EVENT_EOS:
      self->eos_ = true;
      break;
    case GST_EVENT_FLUSH_STOP:
      self->eos_ = false;
      break;
    default:
      break;
  }
  gst_event_unref (event);
  return ok;
}

gboolean
DirectPads::sink_query (GstPad * pad, GstObject *, GstQuery * query)
{
  auto *self = (DirectPads *) gst_pad_get_element_private (pad);
  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_SEEKING:{
      /* a file can be rewritten (afetenc rewrites its header); memory
       * cannot (afetenc keeps the entry whole and sends it at its end) */
      GstFormat fmt;
      gst_query_parse_seeking (query, &fmt, nullptr, nullptr, nullptr);
      gst_query_set_seeking (query, fmt, fmt == GST_FORMAT_BYTES &&
          self->fd_ >= 0, 0, -1);
      return TRUE;
    }
    case GST_QUERY_CAPS:{
      GstCaps *filter;
      gst_query_parse_caps (query, &filter);
      gst_query_set_caps_result (query, filter ? filter : GST_CAPS_ANY);
      return TRUE;
    }
    case GST_QUERY_ACCEPT_CAPS:
      gst_query_set_accept_caps_result (query, TRUE);
      return TRUE;
    default:
      return FALSE;
  }
}

gboolean
DirectPads::src_query (GstPad * pad, GstObject *, GstQuery * query)
{
  auto *self = (DirectPads *) gst_pad_get_element_private (pad);
  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_DURATION:{
      /* the elements size their batches by it, and afetenc tells lost
       * audio from a short input by it */
      GstFormat fmt;
      gst_query_parse_duration (query, &fmt, nullptr);
      if (fmt != GST_FORMAT_TIME || !GST_CLOCK_TIME_IS_VALID (self->duration_))
        return FALSE;
      gst_query_set_duration (query, fmt, (gint64) self->duration_);
      return TRUE;
    }
    case GST_QUERY_LATENCY:
      /* files, not a live source */
      gst_query_set_latency (query, FALSE, 0, GST_CLOCK_TIME_NONE);
      return TRUE;
    case GST_QUERY_SEEKING:{
      GstFormat fmt;
      gst_query_parse_seeking (query, &fmt, nullptr, nullptr, nullptr);
      gst_query_set_seeking (query, fmt, FALSE, 0, -1);
      return TRUE;
    }
    case GST_QUERY_CAPS:{
      GstCaps *filter;
      gst_query_parse_caps (query, &filter);
      GstCaps *c = self->caps_ ? gst_caps_ref (self->caps_) :
          gst_caps_new_any ();
      if (filter) {
        GstCaps *i = gst_caps_intersect_full (filter, c,
            GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref (c);
        c = i;
      }
      gst_query_set_caps_result (query, c);
      gst_caps_unref (c);
      return TRUE;
    }
    default:
      return FALSE;
  }
}

gboolean
DirectPads::src_event (GstPad *, GstObject *, GstEvent * event)
{
  /* upstream events (reconfigure, QoS): nothing to do for a file */
  gst_event_unref (event);
  return TRUE;
}

}  /* namespace afetx */
