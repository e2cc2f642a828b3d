/* afet-extract's own reader of plain PCM WAV files (mono, 16-bit or float,
 * at the rate wanted), which skips decodebin for them.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gst/gst.h>

#include <string>

namespace afetx
{

/* A plain PCM WAV file: mono, 16-bit integer or 32-bit float samples, at
 * the rate wanted (or any, without --rate), its data chunk whole. Such a
 * file needs no decoding, mixing or resampling, and afet-extract reads it
 * itself into one buffer for appsrc: filesrc ! decodebin ! audioconvert !
 * audioresample would find its type, plug a parser and cut it into 2 KB
 * buffers, which costs more per file than afet's work on a short one
 * (about 1 ms a file, and 10 ms of a 5-minute one). The samples are the
 * same (tests/extract compares the two byte for byte); anything else goes
 * through decodebin (--no-wav-reader: everything). */
struct PlainWav
{
  const char *format = nullptr; /* S16LE or F32LE */
  int rate = 0;
  GstBuffer *data = nullptr;    /* its samples, PTS 0 and duration set */
  ~PlainWav ()
  {
    if (data)
      gst_buffer_unref (data);
  }
};

/* false: not such a file, or unreadable (decodebin then says why) */
bool read_plain_wav (const std::string & path, int want_rate, PlainWav * w);

}  /* namespace afetx */
