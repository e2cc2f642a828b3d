/* The streaming state of one element, without GStreamer: buffers of any size
 * cut into whole frames in batches (FrameStream), and the input rows that
 * context elements keep on the device (RowHistory).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "clhandle.h"
#include "status.h"
#include "transfer.h"
#include "context.h"
#include "params.h"

#include <CL/cl.h>

#include <cstdint>
#include <atomic>
#include <vector>

/* A run of frames ends at EOS, a DISCONT or a
 * format change (reset); the element feeds these and computes each batch
 * they declare ready. */

namespace afet {

/* Host input cut into frames across buffers: audio samples (frame t covers
 * samples t S .. t S + W - 1 of the run) of `unit` bytes each (floats, or
 * 16-bit integers kept as they came, for a half-size upload), or rows of
 * `row` floats, one frame each (a row may arrive split over buffers). */
class FrameStream
{
public:
  struct Shape
  {
    bool audio = true;
    int W = 400;                /* samples a frame (audio) */
    int S = 160;                /* samples between frames (audio) */
    int row = 1;                /* floats a frame (rows) */
    int max_batch = 4096;
    bool pad = false;           /* audio: zero-fill the last partial frame */
    int unit = 4;               /* bytes a sample (audio: 2 or 4) */
    /* audio: frames at the run's edges (see afet::Edges; not SNIP needs
     * S <= W). The samples before the run's start are made as soon as
     * enough have arrived, those after its end by finish (). */
    Edges edges = Edges::SNIP;
  };

  void configure (const Shape &shape);
  const Shape &shape () const { return shape_; }
  /* A run ends: drops everything held. */
  void reset ();

  /* Audio: room for n more samples (of unit bytes) at the end, for the
   * caller to fill; valid until the next call. */
  void *append_samples (size_t n);
  /* Rows: appends bytes; whole rows become frames, a partial row waits for
   * the rest. Returns the floats of the rows completed by this call (for
   * the caller to inspect) through fresh / fresh_floats. */
  void append_row_bytes (const uint8_t *data, size_t bytes, float **fresh,
      size_t *fresh_floats);

  /* Complete frames held. */
  long long frames () const;
  /* Frames in the next batch: a whole batch of max_batch, or (any: live
   * input, the end of a run) every complete frame up to max_batch; 0 when
   * none is due. */
  int next_batch (bool any) const;
  /* The input of held frame i (0: the first); frames follow every
   * step_bytes () bytes. */
  const void *at (long long i) const
  {
    settle ();
    return held_.data () + start_ + (size_t) i * step_bytes ();
  }
  size_t step_bytes () const;
  /* The first n held frames were computed: drop their input (audio keeps
   * the overlap of the next frame). */
  void consume (long long n);
  /* At the end of a run: with pad set, if samples remain that no frame of
   * the run covered, zero-fills them into one whole frame; with mirrored or
   * reflected edges, makes the samples past the end that the run's last
   * frames need. True if frames were added. */
  bool finish ();
  /* Anything held, partial rows included. */
  bool empty () const
  {
    return held_.size () == start_ && partial_.empty ();
  }
  /* Frames consumed since the run started. */
  unsigned long long consumed () const { return consumed_; }

private:
  Shape shape_;
  unsigned long long consumed_ = 0;
  size_t units () const;
  /* Drops the samples a consume () could not drop yet (see skip_), and
   * puts the samples before the run's start ahead of the run once enough
   * have arrived. */
  void settle () const;
  bool pad_tail ();
  bool finish_edges ();
  int lead_ = 0;                        /* samples before the run's start */
  mutable bool head_done_ = true;       /* they are in held_ */
  long long run_samples_ = 0;           /* samples of the run so far */

  /* floats or 16-bit samples; mutable for settle () */
  mutable std::vector<uint8_t> held_;
  /* bytes at held_'s start already consumed, erased by compact () before
   * anything is appended */
  mutable size_t start_ = 0;
  void compact () const;
  /* samples or row floats held past start_, as they stand (units ()
   * settles first) */
  size_t held_units () const
  {
    return (held_.size () - start_) / (size_t) shape_.unit;
  }
  /* audio with S > W: the samples between the last computed frame and the
   * next frame's start that had not arrived when the frame was consumed;
   * they are dropped as they come */
  mutable size_t skip_ = 0;
  std::vector<uint8_t> partial_;
};

/* Input rows kept on the device for elements whose output frame t reads
 * rows t - back .. t + ahead (deltas, TRAPS, sliding CMVN) or the whole
 * run (whole-run statistics). Rows carry their index in the run; what no
 * later frame needs is dropped, and the history grows when nothing can be
 * dropped. */
class RowHistory
{
public:
  /* What an element needs: output frame t reads rows t - back .. t + ahead
   * (clamped to the run); no output before start_need rows have arrived
   * (-1: none before the run ends); rows of row_dims floats. */
  struct Extent
  {
    int back = 0;
    int ahead = 0;
    int start_need = 0;
    int row_dims = 0;
  };

  /* Two buffers of 2 max_batch + back + ahead rows each. */
  Status init (cl_context context, cl_command_queue queue,
      const Extent &extent, int max_batch);
  void release ();
  const Extent &extent () const { return extent_; }
  /* A new run. */
  void reset ();

  /* Whether m more rows fit without dropping or growing. */
  bool fits (long long m) const { return rows_ + m <= cap_; }
  long long space () const { return cap_ - rows_; }
  /* Makes room for m more rows by growing (copies what is held); the
   * message names the element's way out when the device has no room. */
  Status grow (long long m);

  /* Where the next rows go (the buffer, and its first free row), for a
   * stage that writes them itself; then commit (m). */
  cl_mem tail () const { return buf_[cur_].get (); }
  size_t tail_row () const { return (size_t) rows_; }
  void commit (long long m);
  /* Appends m rows from the host, or from rows src_row.. of a device
   * buffer; at most space () rows. */
  Status append_host (const float *rows, long long m, TransferStats *stats);
  Status append_device (cl_mem src, size_t src_row, long long m);

  /* Output frames that can be computed now, from frame frames_out on: every
   * frame of the run when draining (its end is known), otherwise those
   * whose look-ahead has arrived (none before start_need rows). */
  long long ready (unsigned long long frames_out, bool drain) const
  {
    return ready_of (extent_, received_, frames_out, drain);
  }
  /* The same rule for rows kept elsewhere (a lane, see lanes.h): received
   * rows of the run so far. */
  static long long ready_of (const Extent &extent, long long received,
      unsigned long long frames_out, bool drain);
  /* The rows held, as a stage reads them. */
  ContextBlock block (bool drain) const;
  /* Frames before frames_out are computed: drops the rows no later frame
   * needs (a device copy into the other buffer). */
  Status drop_done (unsigned long long frames_out);

  long long received () const { return received_; }

  /* A run's first rows read where they are: frames 0 .. m - 1 at rows
   * 0 .. m - 1 of the caller's device buffer rows, without the copy into
   * the history (a short input arrives as one buffer and drains at once).
   * block () then reads rows; the caller keeps it alive and, before any
   * other row comes, calls unadopt () and appends the rows the usual way.
   * Only into an empty history. */
  void adopt (cl_mem rows, long long m);
  /* device-to-device copies of rows made so far (appended from a device
   * buffer, kept rows moved, a grown history), over every run */
  unsigned long long copies () const { return copies_.load (); }
  bool adopted () const { return adopted_ != nullptr; }
  /* back to the empty history, the adopted rows forgotten */
  void unadopt ();

private:
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  Extent extent_;
  cl_mem adopted_ = nullptr;    /* adopt (): the caller's buffer, not ours */
  std::atomic<unsigned long long> copies_ { 0 };
  ClMem buf_[2];
  int cur_ = 0;
  long long cap_ = 0;           /* rows a buffer holds */
  long long first_ = 0;         /* run index of the first row held */
  long long rows_ = 0;          /* rows held */
  long long received_ = 0;      /* rows of the run so far */
};

}  /* namespace afet */
