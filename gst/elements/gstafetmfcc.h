/* The afetmfcc element's type.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstafetspectral.h"

G_BEGIN_DECLS

#define GST_TYPE_AFET_MFCC (gst_afet_mfcc_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetMfcc, gst_afet_mfcc, GST, AFET_MFCC,
    GstAfetSpectral);
GST_ELEMENT_REGISTER_DECLARE (afetmfcc);

G_END_DECLS
