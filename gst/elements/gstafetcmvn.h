/* The afetcmvn element's type and its mode and scope enums.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstafetbase.h"

G_BEGIN_DECLS

#define GST_TYPE_AFET_CMVN (gst_afet_cmvn_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetCmvn, gst_afet_cmvn, GST, AFET_CMVN,
    GstAfetBase);
GST_ELEMENT_REGISTER_DECLARE (afetcmvn);

typedef enum
{
  GST_AFET_CMVN_MODE_NONE = 0,
  GST_AFET_CMVN_MODE_MEAN,
  GST_AFET_CMVN_MODE_MEANVAR,
  GST_AFET_CMVN_MODE_MINMAX,
} GstAfetCmvnMode;

typedef enum
{
  GST_AFET_CMVN_SCOPE_UTTERANCE = 0,
  GST_AFET_CMVN_SCOPE_SLIDING,
  GST_AFET_CMVN_SCOPE_RUNNING,
  GST_AFET_CMVN_SCOPE_ARCHIVE,
} GstAfetCmvnScope;

typedef enum
{
  GST_AFET_CMVN_COLUMNS_ALL = 0,
  GST_AFET_CMVN_COLUMNS_STATICS,
  GST_AFET_CMVN_COLUMNS_HTK,
} GstAfetCmvnColumns;

G_END_DECLS
