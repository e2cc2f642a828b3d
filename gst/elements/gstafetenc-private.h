/* afetenc's state and the functions of its two files: the element
 * (gstafetenc.cc) and its output (gstafetenc-write.cc).  Not installed.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstafetenc.h"
#include "afetcompress.h"
#include "afetfileformat.h"
#include "afetfeatures.h"

#include <string>
#include <vector>

GST_DEBUG_CATEGORY_EXTERN (gst_afet_enc_debug);

typedef enum
{
  GST_AFET_ENC_HTK,
  GST_AFET_ENC_NPY,
  GST_AFET_ENC_KALDI,
  GST_AFET_ENC_KALDI_TEXT,
  GST_AFET_ENC_RAW
} GstAfetEncFormat;

#define DEFAULT_FORMAT GST_AFET_ENC_HTK
#define DEFAULT_KEY nullptr
#define DEFAULT_MAX_HOLD (G_GUINT64_CONSTANT (256) << 20)
#define DEFAULT_COMPRESSION_METHOD 0

/* the formats' names, as the format property and the caps say them */
static const char *const format_names[] = {
  "htk", "npy", "kaldi", "kaldi-text", "raw"
};

/* *INDENT-OFF* */
struct GstAfetEncPrivate
{
  /* properties, under the object lock */
  GstAfetEncFormat format = DEFAULT_FORMAT;
  std::string key;
  guint64 max_hold = DEFAULT_MAX_HOLD;
  gint compression = DEFAULT_COMPRESSION_METHOD;

  /* streaming thread */
  GstAfetEncFormat fmt = DEFAULT_FORMAT;   /* latched at the first data */
  int cm = 0;                  /* compression method, latched with fmt */
  std::vector<float> entry_vals;       /* cm: the entry's frames */
  bool have_info = false;
  AfetFeaturesInfo info;
  uint16_t htk_kind = 0;
  int32_t htk_period = 0;
  int hold = -1;               /* -1 undecided, 0 seek back, 1 keep in memory */
  bool started = false;        /* caps and segment sent downstream */
  guint64 offset = 0;          /* file position of the next byte */
  bool in_entry = false;
  guint64 entry_start = 0;
  guint64 entry_frames = 0;
  guint64 file_frames = 0;
  std::string entry_key;
  std::string tag_key;
  /* a key tag came inside the current entry: the next entry starts at the
   * next DISCONT buffer (afetparse marks each archive entry so, and
   * afet's elements start each run so), or at the next buffer when the key
   * differs; entries with equal keys stay apart */
  bool key_tag_seen = false;
  std::string entry_tag_key;    /* tag_key when the current entry began */
  std::string held;            /* hold mode: bytes from held_start */
  guint64 held_start = 0;
  bool failed = false;         /* an error was posted: write nothing more */
  /* the stream's EOS was written out: a stream-start after it begins a
   * new output (its own header, from byte 0) */
  bool ended = false;
  std::string refused;         /* caps refused once (not posted again) */
};
/* *INDENT-ON* */

struct _GstAfetEnc
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;
  GstAfetEncPrivate *priv;
};

static inline bool
needs_count (GstAfetEncFormat f)
{
  return f == GST_AFET_ENC_HTK || f == GST_AFET_ENC_NPY ||
      f == GST_AFET_ENC_KALDI;
}

static inline bool
is_kaldi (GstAfetEncFormat f)
{
  return f == GST_AFET_ENC_KALDI || f == GST_AFET_ENC_KALDI_TEXT;
}

/* How bytes reach the output: as they are, or HTK's big-endian floats,
 * converted straight into the buffer that goes on (one pass). */
typedef void (*EncFill) (const void *src, size_t n, guint8 * dst);
void fill_copy (const void *src, size_t n, guint8 * dst);
void fill_big_endian (const void *src, size_t n, guint8 * dst);

/* gstafetenc-write.cc */
/* Sends @n bytes at the current file position (or keeps them). */
GstFlowReturn enc_write (GstAfetEnc * self, const void *data, size_t n,
    EncFill fill = fill_copy);
GstFlowReturn enc_release_held (GstAfetEnc * self);
GstFlowReturn enc_rewrite (GstAfetEnc * self, guint64 pos,
    const std::string & bytes);
bool enc_resolve_key (GstAfetEnc * self, std::string * key);
GstFlowReturn enc_start_output (GstAfetEnc * self);
GstFlowReturn enc_begin_entry (GstAfetEnc * self);
GstFlowReturn enc_write_compressed (GstAfetEnc * self);
GstFlowReturn enc_end_entry (GstAfetEnc * self);
