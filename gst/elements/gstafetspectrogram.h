/* The afetspectrogram element's type.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstafetbase.h"

G_BEGIN_DECLS

#define GST_TYPE_AFET_SPECTROGRAM (gst_afet_spectrogram_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetSpectrogram, gst_afet_spectrogram, GST,
    AFET_SPECTROGRAM, GstAfetBase);
GST_ELEMENT_REGISTER_DECLARE (afetspectrogram);

G_END_DECLS
