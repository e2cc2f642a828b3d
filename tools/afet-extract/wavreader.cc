/* afet-extract's reader of plain PCM WAV files (wavreader.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "wavreader.h"

#include <algorithm>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace afetx
{

namespace
{

guint32
le32 (const guint8 * b)
{
  return (guint32) b[0] | (guint32) b[1] << 8 | (guint32) b[2] << 16 |
      (guint32) b[3] << 24;
}

guint16
le16 (const guint8 * b)
{
  return (guint16) (b[0] | b[1] << 8);
}

}  /* namespace */

bool
read_plain_wav (const std::string & path, int want_rate, PlainWav * w)
{
  int fd = open (path.c_str (), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat st;
  guint8 h[40];
  bool ok = fstat (fd, &st) == 0 && S_ISREG (st.st_mode) &&
      pread (fd, h, 12, 0) == 12 && memcmp (h, "RIFF", 4) == 0 &&
      memcmp (h + 8, "WAVE", 4) == 0;
  const guint64 size = ok ? (guint64) st.st_size : 0;
  guint64 at = 12;
  bool have_fmt = false;
  while (ok && at + 8 <= size) {
    if (pread (fd, h, 8, (off_t) at) != 8)
      break;
    const guint32 len = le32 (h + 4);
    const guint64 body = at + 8;
    if (memcmp (h, "fmt ", 4) == 0) {
      if (len < 16 || pread (fd, h, std::min<guint32> (len, 40),
              (off_t) body) != (ssize_t) std::min<guint32> (len, 40))
        break;
      guint16 tag = le16 (h);
      if (tag == 0xFFFE && len >= 40)   /* WAVE_FORMAT_EXTENSIBLE */
        tag = le16 (h + 24);
      const int channels = le16 (h + 2), align = le16 (h + 12),
          bits = le16 (h + 14);
      w->rate = (int) le32 (h + 4);
      w->format = channels != 1 ? nullptr : tag == 1 && bits == 16 &&
          align == 2 ? "S16LE" : tag == 3 && bits == 32 && align == 4 ?
          "F32LE" : nullptr;
      have_fmt = w->format != nullptr;
      if (!have_fmt)
        break;
    } else if (memcmp (h, "data", 4) == 0) {
      /* a length that is not the file's (streamed, truncated) and odd
       * sample counts: decodebin's rules */
      const guint32 unit = g_str_equal (w->format ? w->format : "", "S16LE")
          ? 2 : 4;
      if (!have_fmt || len == 0 || body + len > size || len % unit != 0 ||
          w->rate <= 0 || (want_rate > 0 && w->rate != want_rate))
        break;
      /* (no memory for it: decodebin streams it instead) */
      w->data = gst_buffer_new_allocate (nullptr, len, nullptr);
      GstMapInfo map;
      if (!w->data || !gst_buffer_map (w->data, &map, GST_MAP_WRITE)) {
        gst_clear_buffer (&w->data);
        break;
      }
      GST_BUFFER_PTS (w->data) = 0;
      GST_BUFFER_DURATION (w->data) = gst_util_uint64_scale (len / unit,
          GST_SECOND, (guint64) w->rate);
      size_t got = 0;
      while (got < len) {
        ssize_t r = pread (fd, map.data + got, len - got,
            (off_t) (body + got));
        if (r <= 0)
          break;
        got += (size_t) r;
      }
      gst_buffer_unmap (w->data, &map);
      close (fd);
      if (got == len)
        return true;
      gst_clear_buffer (&w->data);
      return false;
    }
    at = body + len + (len & 1);        /* chunks are padded to even sizes */
  }
  close (fd);
  return false;
}

}  /* namespace afetx */
