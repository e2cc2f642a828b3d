/* afet-embed: afet inside an application, a pipeline built in code whose
 * features are pulled through an appsink and read with the caps API.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For each audio file on the command line it builds, in code, the pipeline
 *
 *   filesrc ! decodebin ! audioconvert ! audioresample ! afetmfcc
 *     ! afetdelta ! afetcmvn ! appsink
 *
 * pulls the features through the appsink, reads each frame's layout from
 * the caps with afet's installed caps API (gstreamer-afet-features-1.0:
 * dims, where c0 and the energy are, how many statics and deltas) and
 * prints a summary of every file: frames, layout, the mean of c0 and of
 * the first delta column.
 *
 * The device: --device D (auto, gpu, cpu, P:D or part of a name, as the
 * elements' device property) goes to the first pipeline's afetmfcc; the
 * other afet elements of that pipeline find it through a context query,
 * and the application takes that shared device (a GstContext of type
 * "afet.cl.context") from afetmfcc once the first pipeline has started
 * and sets it on every later pipeline, so every file runs on the same
 * device without naming it again. Errors from the bus (a file that does
 * not decode, a refused format, no OpenCL device) are printed with the
 * element's message and end the program with exit status 1.
 *
 *   afet-embed [--device D] FILE...
 */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/afet/afetfeatures.h>

#include <stdio.h>
#include <string.h>

#define AFET_CONTEXT_TYPE "afet.cl.context"

typedef struct
{
  AfetFeaturesInfo info;
  gboolean have_info;
  guint64 frames;
  gdouble c0_sum, d0_sum;
} Summary;

/* decodebin's audio pad to audioconvert */
static void
on_pad_added (GstElement * decodebin, GstPad * pad, gpointer convert)
{
  GstPad *sink = gst_element_get_static_pad (GST_ELEMENT (convert), "sink");
  if (!gst_pad_is_linked (sink))
    gst_pad_link (pad, sink);
  gst_object_unref (sink);
}

/* The pipeline of one file; the elements the caller needs out of it. */
static GstElement *
build_pipeline (const gchar * path, const gchar * device, GstElement ** mfcc,
    GstElement ** sink)
{
  GstElement *pipe = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("filesrc", NULL);
  GstElement *dec = gst_element_factory_make ("decodebin", NULL);
  GstElement *conv = gst_element_factory_make ("audioconvert", NULL);
  GstElement *res = gst_element_factory_make ("audioresample", NULL);
  *mfcc = gst_element_factory_make ("afetmfcc", NULL);
  GstElement *delta = gst_element_factory_make ("afetdelta", NULL);
  GstElement *cmvn = gst_element_factory_make ("afetcmvn", NULL);
  *sink = gst_element_factory_make ("appsink", NULL);
  if (!src || !dec || !conv || !res || !*mfcc || !delta || !cmvn || !*sink) {
    g_printerr ("afet-embed: an element is missing: is the afet plugin on "
        "GST_PLUGIN_PATH (gst-inspect-1.0 afetmfcc)?\n");
    return NULL;
  }
  g_object_set (src, "location", path, NULL);
  if (device)
    g_object_set (*mfcc, "device", device, NULL);
  /* pull everything, as fast as it comes (no clock sync) */
  g_object_set (*sink, "sync", FALSE, "max-buffers", 0, NULL);
  gst_bin_add_many (GST_BIN (pipe), src, dec, conv, res, *mfcc, delta, cmvn,
      *sink, NULL);
  if (!gst_element_link (src, dec) ||
      !gst_element_link_many (conv, res, *mfcc, delta, cmvn, *sink, NULL)) {
    g_printerr ("afet-embed: cannot link the pipeline\n");
    return NULL;
  }
  g_signal_connect (dec, "pad-added", G_CALLBACK (on_pad_added), conv);
  return pipe;
}

/* The first error on the bus, printed; TRUE if there was one. */
static gboolean
report_error (GstElement * pipe, const gchar * path)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gst_object_unref (bus);
  if (!msg)
    return FALSE;
  GError *err = NULL;
  gchar *dbg = NULL;
  gst_message_parse_error (msg, &err, &dbg);
  g_printerr ("afet-embed: %s: %s: %s\n", path, GST_OBJECT_NAME (msg->src),
      err->message);
  if (dbg)
    g_printerr ("  (%s)\n", dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  return TRUE;
}

/* Adds one buffer of frames to the summary, reading the layout from the
 * caps of its sample. */
static gboolean
take_sample (GstSample * sample, Summary * s)
{
  if (!s->have_info) {
    GstCaps *caps = gst_sample_get_caps (sample);
    if (!caps || !afet_features_info_from_caps (&s->info, caps)) {
      g_printerr ("afet-embed: the appsink's caps are not afet features\n");
      return FALSE;
    }
    s->have_info = TRUE;
  }
  GstBuffer *buf = gst_sample_get_buffer (sample);
  GstMapInfo map;
  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    return FALSE;
  const gfloat *rows = (const gfloat *) map.data;
  const gint dims = s->info.dims;
  const gsize n = map.size / (sizeof (gfloat) * dims);
  for (gsize t = 0; t < n; t++) {
    if (s->info.c0_index >= 0)
      s->c0_sum += rows[t * dims + s->info.c0_index];
    /* the first delta column follows the statics */
    if (s->info.delta_order >= 1)
      s->d0_sum += rows[t * dims + s->info.statics];
  }
  s->frames += n;
  gst_buffer_unmap (buf, &map);
  return TRUE;
}

static void
print_summary (const gchar * path, const Summary * s)
{
  const AfetFeaturesInfo *i = &s->info;
  printf ("%s: %" G_GUINT64_FORMAT " frames of %d (%s, %d statics, c0 in "
      "column %d, energy in column %d, delta order %d, %s normalised), "
      "%.3f s\n", path, s->frames, i->dims,
      afet_features_kind_to_string (i->kind), i->statics, i->c0_index,
      i->energy_index, i->delta_order,
      afet_features_norm_to_string (i->normalization),
      gst_util_guint64_to_gdouble (afet_features_info_frames_to_time (i,
              s->frames)) / GST_SECOND);
  if (s->frames > 0)
    printf ("  mean c0 %.4f, mean first delta %.6f\n", s->c0_sum / s->frames,
        s->d0_sum / s->frames);
}

int
main (int argc, char **argv)
{
  gchar *device = NULL;
  GOptionEntry entries[] = {
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
        "OpenCL device of afetmfcc in the first pipeline: auto, gpu, cpu, "
          "P:D or part of a name (the others share it)", "D"},
    {NULL}
  };
  GError *err = NULL;
  GOptionContext *ctx = g_option_context_new ("FILE... - MFCC, deltas and "
      "normalisation of audio files through an afet pipeline built in code");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err) || argc < 2) {
    g_printerr ("afet-embed: %s\nusage: afet-embed [--device D] FILE...\n",
        err ? err->message : "no input file");
    return 2;
  }
  g_option_context_free (ctx);

  GstContext *shared = NULL;
  int status = 0;
  for (int f = 1; f < argc && status == 0; f++) {
    GstElement *mfcc = NULL, *sink = NULL;
    GstElement *pipe = build_pipeline (argv[f], shared ? NULL : device,
        &mfcc, &sink);
    if (!pipe)
      return 1;
    /* every file after the first on the first one's device */
    if (shared)
      gst_element_set_context (pipe, shared);
    Summary s;
    memset (&s, 0, sizeof s);
    if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE) {
      if (!report_error (pipe, argv[f]))
        g_printerr ("afet-embed: %s: the pipeline did not start\n", argv[f]);
      status = 1;
    }
    GstSample *sample;
    while (status == 0 &&
        (sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
      if (!take_sample (sample, &s))
        status = 1;
      gst_sample_unref (sample);
    }
    /* the appsink ends at EOS, or at an error (then on the bus) */
    if (status == 0 && report_error (pipe, argv[f]))
      status = 1;
    if (status == 0 && !shared) {
      /* the device the first pipeline's afet elements share (GstContext) */
      GstQuery *q = gst_query_new_context (AFET_CONTEXT_TYPE);
      if (gst_element_query (mfcc, q))
        gst_query_parse_context (q, &shared);
      if (shared) {
        gst_context_ref (shared);
        gchar *name = NULL;
        g_object_get (mfcc, "device-name", &name, NULL);
        printf ("device: %s (shared with the following files)\n", name);
        g_free (name);
      }
      gst_query_unref (q);
    }
    if (status == 0)
      print_summary (argv[f], &s);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
  }
  if (shared)
    gst_context_unref (shared);
  g_free (device);
  return status;
}
