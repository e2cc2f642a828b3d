/* The GObject type of afetsplice, the splicing element.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The afetsplice element: input frames around each frame side by side. */
#pragma once

#include "gstafetbase.h"

G_BEGIN_DECLS

#define GST_TYPE_AFET_SPLICE (gst_afet_splice_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetSplice, gst_afet_splice, GST, AFET_SPLICE,
    GstAfetBase);
GST_ELEMENT_REGISTER_DECLARE (afetsplice);

G_END_DECLS
