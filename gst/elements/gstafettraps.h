/* The afettraps element's type.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstafetbase.h"

G_BEGIN_DECLS

#define GST_TYPE_AFET_TRAPS (gst_afet_traps_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetTraps, gst_afet_traps, GST, AFET_TRAPS,
    GstAfetBase);
GST_ELEMENT_REGISTER_DECLARE (afettraps);

G_END_DECLS
