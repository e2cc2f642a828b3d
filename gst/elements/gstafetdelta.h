/* The afetdelta element's type.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstafetbase.h"

G_BEGIN_DECLS

#define GST_TYPE_AFET_DELTA (gst_afet_delta_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetDelta, gst_afet_delta, GST, AFET_DELTA,
    GstAfetBase);
GST_ELEMENT_REGISTER_DECLARE (afetdelta);

G_END_DECLS
