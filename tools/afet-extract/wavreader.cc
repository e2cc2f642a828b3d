/* afet-extract's reader of plain PCM WAV files (wavreader.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "wavreader.h"

#include <algorithm>
#include <cerrno>
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

/* a RIFF WAV file's fmt chunk and the place of its data chunk */
struct Header
{
  int tag = 0, channels = 0, align = 0, bits = 0, rate = 0;
  bool have_fmt = false;
  guint64 data_at = 0;
  guint32 data_len = 0;
};

/* reads the chunks up to the data chunk; false if fd holds no WAV file
 * with both */
bool
parse_header (int fd, guint64 size, Header * hd)
{
  guint8 h[40];
  if (pread (fd, h, 12, 0) != 12 || memcmp (h, "RIFF", 4) != 0 ||
      memcmp (h + 8, "WAVE", 4) != 0)
    return false;
  guint64 at = 12;
  while (at + 8 <= size) {
    if (pread (fd, h, 8, (off_t) at) != 8)
      return false;
    const guint32 len = le32 (h + 4);
    const guint64 body = at + 8;
    if (memcmp (h, "fmt ", 4) == 0) {
      if (len < 16 || pread (fd, h, std::min<guint32> (len, 40),
              (off_t) body) != (ssize_t) std::min<guint32> (len, 40))
        return false;
      hd->tag = le16 (h);
      if (hd->tag == 0xFFFE && len >= 40)       /* WAVE_FORMAT_EXTENSIBLE */
        hd->tag = le16 (h + 24);
      hd->channels = le16 (h + 2);
      hd->align = le16 (h + 12);
      hd->bits = le16 (h + 14);
      hd->rate = (int) le32 (h + 4);
      hd->have_fmt = true;
    } else if (memcmp (h, "data", 4) == 0) {
      hd->data_at = body;
      hd->data_len = len;
      return hd->have_fmt;
    }
    at = body + len + (len & 1);        /* chunks are padded to even sizes */
  }
  return false;
}

/* opens path for reading without blocking (a FIFO's open() would wait for
 * a writer); -1 unless it is a regular file */
int
open_regular (const std::string & path, guint64 * size)
{
  int fd = open (path.c_str (), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return -1;
  struct stat st;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)) {
    close (fd);
    return -1;
  }
  *size = (guint64) st.st_size;
  return fd;
}

/* the length of a data chunk a writer that could not seek back left */
constexpr guint32 kUnknownLength = 0xFFFFFFFFu;

/* h's data chunk claims more than the file's size holds */
bool
is_truncated (const Header & h, guint64 size)
{
  return h.data_len != kUnknownLength && h.data_at + h.data_len > size;
}

}  /* namespace */

bool
read_plain_wav (const std::string & path, int want_rate, bool keep_truncated,
    PlainWav * w)
{
  guint64 size = 0;
  int fd = open_regular (path, &size);
  if (fd < 0)
    return false;
  Header h;
  if (!parse_header (fd, size, &h)) {
    close (fd);
    return false;
  }
  w->format = h.channels != 1 ? nullptr : h.tag == 1 && h.bits == 16 &&
      h.align == 2 ? "S16LE" : h.tag == 3 && h.bits == 32 && h.align == 4 ?
      "F32LE" : h.tag == 1 && h.bits == 8 && h.align == 1 ? "S16LE" : nullptr;
  w->width = h.bits / 8;
  /* truncated and kept: the whole samples the file holds */
  if (w->format && keep_truncated && is_truncated (h, size) && h.data_len > 0)
    h.data_len = (guint32) ((size - std::min (size, h.data_at)) / w->width *
        w->width);
  /* a length that is not the file's (streamed, truncated) and odd sample
   * counts: decodebin's rules */
  if (!w->format || h.data_len == 0 || h.data_at + h.data_len > size ||
      h.data_len % w->width != 0 || h.rate <= 0 ||
      (want_rate > 0 && h.rate != want_rate)) {
    close (fd);
    return false;
  }
  w->rate = h.rate;
  w->fd = fd;
  w->offset = h.data_at;
  w->frames = h.data_len / w->width;
  w->done = 0;
  return true;
}

bool
read_wav_block (PlainWav * w, GstBuffer ** buf, std::string * why)
{
  *buf = nullptr;
  if (w->done >= w->frames)
    return true;
  /* 8-bit samples are handed on as 16-bit ones */
  const size_t out_width = w->width == 1 ? 2 : w->width;
  const guint64 n = std::min<guint64> (w->frames - w->done,
      kWavBlockBytes / out_width);
  const size_t bytes = (size_t) n * w->width;
  GstBuffer *b = gst_buffer_new_allocate (nullptr, (size_t) n * out_width,
      nullptr);
  GstMapInfo map;
  if (!b || !gst_buffer_map (b, &map, GST_MAP_WRITE)) {
    if (b)
      gst_buffer_unref (b);
    *why = "out of memory";
    return false;
  }
  /* 8-bit samples are read into the buffer's second half, then widened */
  guint8 *to = map.data + (out_width == (size_t) w->width ? 0 : bytes);
  size_t got = 0;
  while (got < bytes) {
    ssize_t r = pread (w->fd, to + got, bytes - got,
        (off_t) (w->offset + w->done * w->width + got));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      *why = r < 0 ? g_strerror (errno) : "the file became shorter";
      gst_buffer_unmap (b, &map);
      gst_buffer_unref (b);
      return false;
    }
    got += (size_t) r;
  }
  if (w->width == 1) {
    /* as audioconvert makes S16 of U8: (x - 128) << 8, little-endian */
    for (size_t i = 0; i < bytes; i++) {
      const guint16 v = (guint16) ((to[i] ^ 0x80) << 8);
      map.data[2 * i] = (guint8) (v & 0xff);
      map.data[2 * i + 1] = (guint8) (v >> 8);
    }
  }
  gst_buffer_unmap (b, &map);
  GST_BUFFER_PTS (b) = gst_util_uint64_scale (w->done, GST_SECOND,
      (guint64) w->rate);
  GST_BUFFER_DURATION (b) = gst_util_uint64_scale (w->done + n, GST_SECOND,
      (guint64) w->rate) - GST_BUFFER_PTS (b);
  w->done += n;
  *buf = b;
  return true;
}

/* path's header and size, when it is a regular RIFF WAV file with a data
 * chunk */
static bool
header_of (const std::string & path, Header * h, guint64 * size)
{
  int fd = open_regular (path, size);
  if (fd < 0)
    return false;
  const bool ok = parse_header (fd, *size, h);
  close (fd);
  return ok;
}

bool
wav_data_chunk (const std::string & path, guint64 * len, int *bits)
{
  guint64 size = 0;
  Header h;
  const bool ok = header_of (path, &h, &size);
  *len = h.data_len;
  *bits = h.bits;
  return ok;
}

bool
wav_truncated (const std::string & path, std::string * why)
{
  guint64 size = 0;
  Header h;
  if (!header_of (path, &h, &size) || !is_truncated (h, size))
    return false;
  const guint64 held = size - std::min (size, h.data_at);
  /* bytes a second, when the header makes sense; else bytes */
  const guint64 per_s = h.rate > 0 && h.align > 0 ? (guint64) h.rate *
      (guint64) h.align : 0;
  auto amount =[&](guint64 bytes) {
    if (!per_s)
      return std::to_string (bytes) + " bytes";
    char t[64];
    g_snprintf (t, sizeof t, "%.3f s", (double) bytes / per_s);
    return std::string (t);
  };
  *why = "truncated WAV file: its header gives " + amount (h.data_len) +
      " of audio, the file holds " + amount (held) + " (" +
      std::to_string (held) + " of " + std::to_string (h.data_len) +
      " bytes); copy it again, or give --keep-truncated to compute what it "
      "holds";
  return true;
}

}  /* namespace afetx */
