/* The GObject type of afetpitch, Kaldi's pitch features of audio.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_AFET_PITCH (gst_afet_pitch_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetPitch, gst_afet_pitch, GST, AFET_PITCH,
    GstElement);
GST_ELEMENT_REGISTER_DECLARE (afetpitch);

G_END_DECLS
