/* afetenc's type, and the tag that carries a Kaldi entry's key along a
 * feature stream.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The tag that carries a Kaldi archive entry's key (utterance id) along a
 * feature stream: afetparse sets it for every entry it reads, afetenc
 * format=kaldi|kaldi-text starts a new entry when it changes. */
#define GST_AFET_TAG_KEY "afet-key"

#define GST_TYPE_AFET_ENC (gst_afet_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetEnc, gst_afet_enc, GST, AFET_ENC, GstElement);
GST_ELEMENT_REGISTER_DECLARE (afetenc);

/* registers GST_AFET_TAG_KEY (once) */
void gst_afet_tag_register (void);

G_END_DECLS
