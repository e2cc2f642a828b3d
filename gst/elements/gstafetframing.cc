/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* GstAfetBase: the framing properties of elements that frame audio, the
 * window and preset enums and their conversions, and the check of framing
 * properties against an incoming frames stream. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetbase-private.h"

#define GST_CAT_DEFAULT gst_afet_base_debug

GType
gst_afet_window_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {(gint) afet::Window::HAMMING, "Hamming (0.54 - 0.46 cos)", "hamming"},
    {(gint) afet::Window::HANN, "Hann (0.5 - 0.5 cos)", "hann"},
    {(gint) afet::Window::POVEY, "Povey (Hann to the power 0.85, as Kaldi)",
        "povey"},
    {(gint) afet::Window::RECTANGULAR, "Rectangular (no window)",
        "rectangular"},
    {(gint) afet::Window::BLACKMAN, "Blackman (0.42, 0.5, 0.08)", "blackman"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstAfetWindow", values));
  return (GType) id;
}

GType
gst_afet_preset_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_AFET_PRESET_HTK, "HTK 3.4 HCopy conventions and column order",
        "htk"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstAfetPreset", values));
  return (GType) id;
}

void
gst_afet_base_class_install_framing_properties (GObjectClass * klass)
{
  GstAfetBaseClass *base = (GstAfetBaseClass *) klass;
  base->takes_audio = TRUE;

  g_object_class_install_property (klass, PROP_FRAME_LENGTH,
      g_param_spec_double ("frame-length", "Frame length",
          "Analysis window in milliseconds; W = (int) (ms x rate / 1000) "
          "samples, as HTK truncates it", 1.0, 1000.0, DEFAULT_FRAME_LENGTH,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (klass, PROP_FRAME_SHIFT,
      g_param_spec_double ("frame-shift", "Frame shift",
          "Frame period in milliseconds; S = (int) (ms x rate / 1000) "
          "samples", 0.1, 1000.0, DEFAULT_FRAME_SHIFT,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (klass, PROP_WINDOW,
      g_param_spec_enum ("window", "Window", "Window function",
          GST_TYPE_AFET_WINDOW, (gint) DEFAULT_WINDOW,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (klass, PROP_PREEMPHASIS,
      g_param_spec_double ("preemphasis", "Pre-emphasis",
          "Pre-emphasis coefficient k, applied inside each frame as HTK "
          "does: y[i] = x[i] - k x[i-1], y[0] = (1 - k) x[0]; 0 = none",
          0.0, 1.0, DEFAULT_PREEMPHASIS,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (klass, PROP_PAD,
      g_param_spec_boolean ("pad", "Pad",
          "At EOS or DISCONT, zero-fill the incomplete last frame and emit "
          "it (false: drop it, as HTK does)", DEFAULT_PAD,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));
}

gboolean
gst_afet_base_set_framing_property (GObject * object, guint prop_id,
    const GValue * value)
{
  GstAfetBase *self = GST_AFET_BASE (object);
  GstAfetBaseState *p = PRIV (self);
  gboolean handled = TRUE;

  GST_OBJECT_LOCK (self);
  if (prop_id >= PROP_FRAME_LENGTH && prop_id <= PROP_PAD)
    p->framing_set |= 1u << (prop_id - PROP_FRAMING_FIRST);
  switch (prop_id) {
    case PROP_FRAME_LENGTH:
      p->frame_length = g_value_get_double (value);
      break;
    case PROP_FRAME_SHIFT:
      p->frame_shift = g_value_get_double (value);
      break;
    case PROP_WINDOW:
      p->window = (afet::Window) g_value_get_enum (value);
      break;
    case PROP_PREEMPHASIS:
      p->preemphasis = g_value_get_double (value);
      break;
    case PROP_PAD:
      p->pad = g_value_get_boolean (value);
      break;
    default:
      handled = FALSE;
      break;
  }
  GST_OBJECT_UNLOCK (self);
  return handled;
}

gboolean
gst_afet_base_get_framing_property (GObject * object, guint prop_id,
    GValue * value)
{
  GstAfetBase *self = GST_AFET_BASE (object);
  GstAfetBaseState *p = PRIV (self);
  gboolean handled = TRUE;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FRAME_LENGTH:
      g_value_set_double (value, p->frame_length);
      break;
    case PROP_FRAME_SHIFT:
      g_value_set_double (value, p->frame_shift);
      break;
    case PROP_WINDOW:
      g_value_set_enum (value, (gint) p->window);
      break;
    case PROP_PREEMPHASIS:
      g_value_set_double (value, p->preemphasis);
      break;
    case PROP_PAD:
      g_value_set_boolean (value, p->pad);
      break;
    default:
      handled = FALSE;
      break;
  }
  GST_OBJECT_UNLOCK (self);
  return handled;
}

/* The analysis windows: the engine's (and the property's) and the caps'. */
static const struct
{
  afet::Window engine;
  AfetFeaturesWindow caps;
} kWindows[] = {
  {afet::Window::HAMMING, AFET_FEATURES_WINDOW_HAMMING},
  {afet::Window::HANN, AFET_FEATURES_WINDOW_HANN},
  {afet::Window::POVEY, AFET_FEATURES_WINDOW_POVEY},
  {afet::Window::RECTANGULAR, AFET_FEATURES_WINDOW_RECTANGULAR},
  {afet::Window::BLACKMAN, AFET_FEATURES_WINDOW_BLACKMAN},
};

afet::FramingConfig
gst_afet_base_framing_config (const GstAfetInput * in)
{
  afet::FramingConfig f;
  f.rate = in->rate;
  f.W = in->W;
  f.S = in->S;
  f.window = in->window;
  f.preemph = in->preemph;
  f.samples = in->samples;
  return f;
}

/* Framing properties set on an element fed frames: the frames were cut
 * upstream, so a value that differs from theirs (or one the caps do not
 * record) would be silently ignored. NULL if none conflicts. */
static gchar *
framing_conflict (GstAfetBase * self, const GstAfetInput * in)
{
  GstAfetBaseState *p = PRIV (self);
  GST_OBJECT_LOCK (self);
  guint set = p->framing_set;
  double length = p->frame_length, shift = p->frame_shift;
  afet::Window window = p->window;
  GST_OBJECT_UNLOCK (self);
  auto is_set = [set](guint prop) {
    return (set & (1u << (prop - PROP_FRAMING_FIRST))) != 0;
  };
  const char *what = nullptr;
  if (is_set (PROP_FRAME_LENGTH) &&
      afet::frame_samples (length, in->rate) != in->W)
    what = "frame-length";
  else if (is_set (PROP_FRAME_SHIFT) &&
      afet::frame_samples (shift, in->rate) != in->S)
    what = "frame-shift";
  else if (is_set (PROP_WINDOW) && window != in->window)
    what = "window";
  else if (is_set (PROP_PREEMPHASIS))
    what = "preemphasis";
  else if (is_set (PROP_PAD))
    what = "pad";
  if (!what)
    return nullptr;
  return g_strdup_printf ("%s is set on %s, but its input is frames already "
      "cut upstream (%d samples every %d at %d Hz), which it would ignore: "
      "set %s on the element that frames the audio (afetframer), or unset "
      "it here", what, GST_ELEMENT_NAME (self), in->W, in->S, in->rate,
      what);
}

gboolean
gst_afet_base_check_frames_input (GstAfetBase * self, const GstAfetInput * in,
    gchar ** why)
{
  if (in->audio)
    return TRUE;
  if (in->features.kind != AFET_FEATURES_KIND_FRAMES ||
      in->features.statics < in->W || in->features.delta_order != 0) {
    *why = g_strdup_printf ("%s takes audio or afetframer's kind=frames "
        "stream", GST_ELEMENT_NAME (self));
    return FALSE;
  }
  *why = framing_conflict (self, in);
  return *why == nullptr;
}

AfetFeaturesWindow
gst_afet_base_caps_window (afet::Window w)
{
  for (const auto &row : kWindows)
    if (row.engine == w)
      return row.caps;
  return AFET_FEATURES_WINDOW_UNKNOWN;
}

afet::Window
afet_base_window_from_caps (AfetFeaturesWindow w)
{
  for (const auto &row : kWindows)
    if (row.caps == w)
      return row.engine;
  /* unknown or absent: HTK's default */
  return afet::Window::HAMMING;
}
