/* afettransform's type (gstafettransform.cc).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstafetbase.h"

G_BEGIN_DECLS

#define GST_TYPE_AFET_TRANSFORM (gst_afet_transform_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetTransform, gst_afet_transform, GST,
    AFET_TRANSFORM, GstAfetBase);
GST_ELEMENT_REGISTER_DECLARE (afettransform);

G_END_DECLS
