/* The afetframer element's type.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstafetbase.h"

G_BEGIN_DECLS

#define GST_TYPE_AFET_FRAMER (gst_afet_framer_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetFramer, gst_afet_framer, GST, AFET_FRAMER,
    GstAfetBase);
GST_ELEMENT_REGISTER_DECLARE (afetframer);

G_END_DECLS
