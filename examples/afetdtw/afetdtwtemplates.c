/* afetdtw's templates (afetdtwtemplates.h): listed, and turned into frames
 * through the same afet elements as the input.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* A template is compared frame by frame
 * with the input, so it must be made of the same numbers: its file goes
 * through the same afet elements with the same settings.  When the
 * element sits behind afet elements, those are copied (factory and every
 * property that differs from its default); otherwise a launch line is
 * used. */

#include "afetdtwtemplates.h"

#include <gst/app/gstappsink.h>
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (gst_afet_dtw_debug);
#define GST_CAT_DEFAULT gst_afet_dtw_debug

/* how long one template file may take through its pipeline */
#define EXTRACT_TIMEOUT (120 * GST_SECOND)

static const gchar *const audio_suffixes[] = {
  ".wav", ".flac", ".ogg", ".oga", ".opus", ".mp3", ".aiff", ".aif", ".au",
  NULL
};

static const gchar *const feature_suffixes[] = {
  ".htk", ".mfc", ".mfcc", ".npy", ".ark", NULL
};

void
afet_dtw_file_free (AfetDtwFile * file)
{
  if (!file)
    return;
  g_free (file->word);
  g_free (file->path);
  g_free (file);
}

static gboolean
has_suffix (const gchar * name, const gchar * const *suffixes)
{
  gchar *lower = g_ascii_strdown (name, -1);
  gboolean found = FALSE;

  for (; *suffixes && !found; suffixes++)
    found = g_str_has_suffix (lower, *suffixes);
  g_free (lower);
  return found;
}

static gint
compare_files (gconstpointer a, gconstpointer b)
{
  const AfetDtwFile *fa = *(const AfetDtwFile * const *) a;
  const AfetDtwFile *fb = *(const AfetDtwFile * const *) b;

  return strcmp (fa->path, fb->path);
}

GPtrArray *
afet_dtw_list_templates (const gchar * dir, GError ** error)
{
  GPtrArray *files;
  const gchar *name;
  GDir *d;

  d = g_dir_open (dir, 0, error);
  if (!d)
    return NULL;
  files = g_ptr_array_new_with_free_func ((GDestroyNotify) afet_dtw_file_free);
  while ((name = g_dir_read_name (d))) {
    gboolean audio = has_suffix (name, audio_suffixes);
    gboolean features = has_suffix (name, feature_suffixes);
    const gchar *dot = strchr (name, '.');
    AfetDtwFile *file;

    if (name[0] == '.' || !dot || (!audio && !features)) {
      GST_DEBUG ("not a template: %s", name);
      continue;
    }
    file = g_new0 (AfetDtwFile, 1);
    file->word = g_strndup (name, dot - name);
    file->path = g_build_filename (dir, name, NULL);
    file->features = features;
    g_ptr_array_add (files, file);
  }
  g_dir_close (d);
  g_ptr_array_sort (files, compare_files);
  return files;
}

/* The element whose source pad feeds @sinkpad, through bins' ghost pads. */
static GstElement *
element_upstream_of (GstPad * sinkpad)
{
  GstPad *pad = gst_pad_get_peer (sinkpad);
  GstElement *element = NULL;
  gint depth;

  for (depth = 0; pad && depth < 32; depth++) {
    GstPad *next = NULL;

    if (GST_IS_GHOST_PAD (pad)) {
      /* a bin's output: go in, to what feeds it */
      next = gst_ghost_pad_get_target (GST_GHOST_PAD (pad));
    } else if (GST_IS_PROXY_PAD (pad)) {
      /* the inside of a bin's input: go out, to what feeds the bin */
      GstProxyPad *ghost = gst_proxy_pad_get_internal (GST_PROXY_PAD (pad));

      if (ghost) {
        next = gst_pad_get_peer (GST_PAD (ghost));
        gst_object_unref (ghost);
      }
    } else {
      element = gst_pad_get_parent_element (pad);
      gst_object_unref (pad);
      return element;
    }
    gst_object_unref (pad);
    pad = next;
  }
  if (pad)
    gst_object_unref (pad);
  return NULL;
}

static gboolean
factory_is (GstElement * element, const gchar * const *names)
{
  GstElementFactory *f = gst_element_get_factory (element);
  const gchar *name = f ? GST_OBJECT_NAME (f) : "";

  for (; *names; names++)
    if (g_str_equal (name, *names))
      return TRUE;
  return FALSE;
}

/* A preset or a configuration file sets other properties: it goes first. */
static gboolean
sets_others (const GParamSpec * spec)
{
  return g_str_equal (spec->name, "preset") ||
      g_str_equal (spec->name, "htk-config");
}

static gboolean
copied (const GParamSpec * spec)
{
  return (spec->flags & G_PARAM_READWRITE) == G_PARAM_READWRITE &&
      !(spec->flags & G_PARAM_CONSTRUCT_ONLY) &&
      !g_str_equal (spec->name, "name") && !g_str_equal (spec->name, "parent");
}

/* The element's settings as " name=value" pairs: those that differ from
 * the defaults, or all of them after a preset (which may have changed one
 * that was then set back to its default); a sliding or running "scope"
 * becomes the default, per file. */
static void
describe_settings (GstElement * element, GString * out, gboolean * changed)
{
  GParamSpec **specs;
  gboolean all = FALSE;
  guint n, i;

  specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (element), &n);
  for (i = 0; i < 2 * n; i++) {
    GParamSpec *spec = specs[i % n];
    GValue v = G_VALUE_INIT;
    gboolean is_default, write;
    gchar *s;

    if (sets_others (spec) != (i < n) || !copied (spec))
      continue;
    g_value_init (&v, spec->value_type);
    g_object_get_property (G_OBJECT (element), spec->name, &v);
    is_default = g_param_value_defaults (spec, &v);
    if (g_str_equal (spec->name, "scope") && G_IS_PARAM_SPEC_ENUM (spec)) {
      /* templates are normalised per file (docs/dtw.md says why) */
      *changed |= !is_default;
      write = FALSE;
    } else {
      all |= sets_others (spec) && !is_default;
      write = !is_default || all;
    }
    s = write ? gst_value_serialize (&v) : NULL;
    if (s)
      g_string_append_printf (out, " %s=%s", spec->name, s);
    g_free (s);
    g_value_unset (&v);
  }
  g_free (specs);
}

gchar *
afet_dtw_chain_from_upstream (GstPad * sinkpad, gboolean * changed)
{
  static const gchar *const transparent[] = { "queue", "queue2", "tee",
    "capsfilter", "identity", "valve", NULL
  };
  static const gchar *const not_chain[] = { "afetparse", "afetenc",
    "afetdtw", NULL
  };
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
  GstElement *element = element_upstream_of (sinkpad);
  GstCaps *audio = gst_caps_new_empty_simple ("audio/x-raw");
  gboolean takes_audio = FALSE;
  GString *line;
  gint depth;

  *changed = FALSE;
  for (depth = 0; element && depth < 64; depth++) {
    GstElementFactory *f = gst_element_get_factory (element);
    const gchar *name = f ? GST_OBJECT_NAME (f) : "";
    GstPad *sink = gst_element_get_static_pad (element, "sink");
    GstElement *next = NULL;

    if (factory_is (element, transparent)) {
      next = sink ? element_upstream_of (sink) : NULL;
    } else if (g_str_has_prefix (name, "afet") &&
        !factory_is (element, not_chain)) {
      GString *part = g_string_new (name);
      GstCaps *caps = sink ? gst_pad_get_current_caps (sink) : NULL;

      describe_settings (element, part, changed);
      g_ptr_array_insert (parts, 0, g_string_free (part, FALSE));
      takes_audio = gst_element_factory_can_sink_any_caps (f, audio);
      /* the front of the chain: it is fed audio */
      if (caps && gst_caps_can_intersect (caps, audio))
        next = NULL;
      else
        next = sink ? element_upstream_of (sink) : NULL;
      if (caps)
        gst_caps_unref (caps);
    }
    if (sink)
      gst_object_unref (sink);
    gst_object_unref (element);
    element = next;
  }
  if (element)
    gst_object_unref (element);
  gst_caps_unref (audio);

  if (parts->len == 0 || !takes_audio) {
    g_ptr_array_free (parts, TRUE);
    return NULL;
  }
  line = g_string_new (NULL);
  for (guint i = 0; i < parts->len; i++)
    g_string_append_printf (line, "%s%s", i ? " ! " : "",
        (const gchar *) g_ptr_array_index (parts, i));
  g_ptr_array_free (parts, TRUE);
  return g_string_free (line, FALSE);
}

/* Appends a buffer's frames to the run under way (a new one at DISCONT). */
static gboolean
take_buffer (GstBuffer * buf, guint dims, GArray ** run, GPtrArray * runs,
    const AfetDtwFile * file, GError ** error)
{
  GstMapInfo map;
  gsize frame_bytes = (gsize) dims * sizeof (gfloat);

  if (GST_BUFFER_IS_DISCONT (buf) && *run && (*run)->len > 0) {
    g_ptr_array_add (runs, afet_dtw_seq_new ((gfloat *) (*run)->data,
            (*run)->len / dims, dims));
    g_array_set_size (*run, 0);
  }
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "Template %s: cannot map a buffer of its features", file->path);
    return FALSE;
  }
  if (map.size % frame_bytes != 0) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "Template %s: a buffer of %" G_GSIZE_FORMAT " bytes is not whole "
        "frames of %u values", file->path, map.size, dims);
    gst_buffer_unmap (buf, &map);
    return FALSE;
  }
  if (!*run)
    *run = g_array_new (FALSE, FALSE, sizeof (gfloat));
  /* F32LE; little-endian hosts read it as it is */
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  g_array_append_vals (*run, map.data, map.size / sizeof (gfloat));
#else
  for (gsize k = 0; k < map.size; k += 4) {
    gfloat v = GST_READ_FLOAT_LE (map.data + k);

    g_array_append_val (*run, v);
  }
#endif
  gst_buffer_unmap (buf, &map);
  return TRUE;
}

gboolean
afet_dtw_extract (const AfetDtwFile * file, const gchar * chain,
    const AfetFeaturesInfo * input, GPtrArray * runs, GstCaps ** caps,
    GError ** error)
{
  GstElement *pipeline, *src, *sink;
  GError *err = NULL;
  GstBus *bus;
  gchar *desc;
  GArray *run = NULL;
  AfetFeaturesInfo info;
  gboolean have_info = FALSE, ok = TRUE;
  GstClockTime waited = 0;

  *caps = NULL;
  if (file->features)
    desc = g_strdup_printf ("filesrc name=src ! afetparse rate=%d "
        "frame-shift=%d frame-length=%d ! appsink name=sink sync=false",
        input->rate, input->frame_shift, input->frame_length);
  else
    desc = g_strdup_printf ("filesrc name=src ! decodebin ! audioconvert ! "
        "audioresample ! audio/x-raw,rate=%d,channels=1 ! %s ! "
        "appsink name=sink sync=false", input->rate, chain);
  GST_DEBUG ("Template %s: %s", file->path, desc);
  pipeline = gst_parse_launch_full (desc, NULL, GST_PARSE_FLAG_FATAL_ERRORS,
      &err);
  g_free (desc);
  if (!pipeline) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_PAD,
        "cannot make the template pipeline with the chain '%s': %s; set "
        "chain to a working launch line such as '" AFET_DTW_DEFAULT_CHAIN
        "'", chain ? chain : "", err->message);
    g_clear_error (&err);
    return FALSE;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_object_set (src, "location", file->path, NULL);
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  while (ok) {
    GstSample *sample;
    GstMessage *msg;

    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      gchar *dbg = NULL;

      gst_message_parse_error (msg, &err, &dbg);
      GST_DEBUG ("Template %s: %s (%s)", file->path, err->message,
          GST_STR_NULL (dbg));
      g_set_error (error, err->domain, err->code, "Template %s could not be "
          "%s: %s", file->path, file->features ? "read as features" :
          "decoded", err->message);
      g_clear_error (&err);
      g_free (dbg);
      gst_message_unref (msg);
      ok = FALSE;
      break;
    }
    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        50 * GST_MSECOND);
    if (!sample) {
      if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
        break;
      waited += 50 * GST_MSECOND;
      if (waited > EXTRACT_TIMEOUT) {
        g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
            "Template %s: no result after %u s", file->path,
            (guint) (EXTRACT_TIMEOUT / GST_SECOND));
        ok = FALSE;
      }
      continue;
    }
    if (!have_info) {
      GstCaps *c = gst_sample_get_caps (sample);

      if (!c || !afet_features_info_from_caps (&info, c)) {
        g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
            "Template %s: the chain does not make a feature stream",
            file->path);
        ok = FALSE;
      } else {
        have_info = TRUE;
        *caps = gst_caps_ref (c);
      }
    }
    if (ok)
      ok = take_buffer (gst_sample_get_buffer (sample), info.dims, &run, runs,
          file, error);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);

  if (ok && run && run->len > 0)
    g_ptr_array_add (runs, afet_dtw_seq_new ((gfloat *) run->data,
            run->len / info.dims, info.dims));
  if (run)
    g_array_free (run, TRUE);
  if (ok && !have_info) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE,
        "Template %s gave no frames (shorter than one frame?)", file->path);
    ok = FALSE;
  }
  if (!ok && *caps)
    gst_caps_replace (caps, NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return ok;
}
