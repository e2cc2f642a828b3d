/* afet-extract's own reader of plain PCM WAV files (mono, 16-bit or float,
 * at the rate wanted), which skips decodebin for them.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gst/gst.h>

#include <string>

#include <unistd.h>

namespace afetx
{

/* A plain PCM WAV file: mono, 8-bit unsigned, 16-bit integer or 32-bit
 * float samples, at the rate wanted (or any, without --rate), its data chunk
 * whole. Such a file needs no decoding, mixing or resampling, and
 * afet-extract reads it itself for appsrc: filesrc ! decodebin !
 * audioconvert ! audioresample would find its type, plug a parser and cut
 * it into 2 KB buffers, which costs more per file than afet's work on a
 * short one (about 1 ms a file, and 10 ms of a 5-minute one). The samples
 * are the same (tests/extract compares the two byte for byte); anything
 * else goes through decodebin (--no-wav-reader: everything).
 *
 * The data is read in blocks of kWavBlockBytes as appsrc asks for them
 * (read_wav_block), so that a long file costs a block of memory and not its
 * size; a file shorter than a block is one buffer, as before. */
struct PlainWav
{
  const char *format = nullptr; /* S16LE or F32LE, as handed on */
  int rate = 0;
  int width = 0;                /* bytes a sample in the file: 1 (U8, handed
                                 * on as S16LE), 2 or 4 */
  int fd = -1;                  /* open on the file */
  guint64 offset = 0;           /* of the data chunk's samples */
  guint64 frames = 0;           /* in the data chunk */
  guint64 done = 0;             /* frames read so far */
  ~PlainWav ()
  {
    if (fd >= 0)
      close (fd);
  }
};

/* the most bytes of samples one read_wav_block hands on */
constexpr size_t kWavBlockBytes = 1 << 20;

/* false: not such a file, or unreadable (decodebin then says why); never
 * blocks: a FIFO, a directory or a device is not such a file.  A truncated
 * file (wav_truncated) is read to its last whole sample when
 * keep_truncated, else it is not such a file. */
bool read_plain_wav (const std::string & path, int want_rate,
    bool keep_truncated, PlainWav * w);

/* the next block of w's samples (PTS and duration set), or nullptr at the
 * end; false with *why when the file cannot be read */
bool read_wav_block (PlainWav * w, GstBuffer ** buf, std::string * why);

/* the length of path's WAV data chunk and its sample width in bits, when
 * path is a RIFF WAV file; false otherwise */
bool wav_data_chunk (const std::string & path, guint64 * len, int *bits);

/* A WAV file shorter than its header says: the data chunk's length is
 * more than the bytes after the chunk's start (a copy or a download cut
 * short, a recorder killed before it closed the file).  decodebin reads
 * such a file to its end and says nothing; afet-extract fails it unless
 * --keep-truncated.  0xFFFFFFFF, the length a writer that cannot seek back
 * leaves ("to the end of the file"), is not truncation.  True with the
 * message for the user in *why (the seconds the header gives and the file
 * holds); false for any other file, WAV or not. */
bool wav_truncated (const std::string & path, std::string * why);

}  /* namespace afetx */
