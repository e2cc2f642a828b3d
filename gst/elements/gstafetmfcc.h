/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstafetbase.h"

G_BEGIN_DECLS

#define GST_TYPE_AFET_MFCC (gst_afet_mfcc_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetMfcc, gst_afet_mfcc, GST, AFET_MFCC,
    GstAfetBase);
GST_ELEMENT_REGISTER_DECLARE (afetmfcc);

#define GST_TYPE_AFET_DCT_METHOD (gst_afet_dct_method_get_type ())
GType gst_afet_dct_method_get_type (void);

typedef enum
{
  GST_AFET_DCT_FUSED = 0,
  GST_AFET_DCT_GEMM,
} GstAfetDctMethod;

G_END_DECLS
