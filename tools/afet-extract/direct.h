/* afet-extract's inputs pushed straight into a chain that stays playing:
 * a source pad of ours feeds the chain's first element, a sink pad of ours
 * takes afetenc's bytes into the output file (or memory), and a flush
 * between inputs resets the chain instead of a state change.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

#include <string>

namespace afetx
{

/* Whether every element of bin resets itself on a flush and computes in
 * the thread that pushes into it (no queue, no thread of its own), so that
 * DirectPads may run its inputs one after the other without a state
 * change: capsfilter, identity, afet's stream elements (GstAfetBase) and
 * afetenc.  Others keep the state changes: afetpitch, afetpaste, tee,
 * queue, audioconvert and audioresample (a flush keeps their dither and
 * phase) and any element of another plugin. */
bool resets_on_flush (GstBin * bin);

/* The two pads and the output of the input under way.  All calls from
 * the worker's thread; the chain pushes into the sink pad from the same
 * thread (resets_on_flush: no queue). */
class DirectPads
{
public:
  DirectPads () = default;
  DirectPads (const DirectPads &) = delete;
  DirectPads & operator= (const DirectPads &) = delete;
  ~DirectPads ()
  {
    detach ();
  }

  /* links our source pad to first (the chain's sink pad) and last (the
   * encoder's source pad) to our sink pad, and activates them */
  bool attach (GstPad * first, GstPad * last, std::string * why);
  void detach ();
  bool attached () const
  {
    return src_ != nullptr;
  }

  /* The next input's output: bytes written to fd (a file afet-extract
   * created: seekable), or kept in memory (fd < 0: an archive entry). */
  void begin_output (int fd);
  /* stream-start, caps (when they are not those of the input before) and
   * a time segment; duration answers the chain's duration queries */
  bool start_stream (GstCaps * caps, GstClockTime duration);
  /* a buffer of the input (taken); the first of a stream is marked
   * DISCONT, as a source marks it */
  GstFlowReturn push (GstBuffer * buf);
  /* EOS: true when it went through to our sink pad */
  bool end_stream ();
  /* flush-start and flush-stop: the chain ready for the next input */
  void reset ();

  /* what went wrong in our sink pad (a write that failed), or "" */
  const std::string & output_error () const
  {
    return error_;
  }
  /* the bytes of an entry kept in memory */
  std::string take_memory ();

private:
  static GstFlowReturn sink_chain (GstPad *, GstObject *, GstBuffer *);
  static gboolean sink_event (GstPad *, GstObject *, GstEvent *);
  static gboolean sink_query (GstPad *, GstObject *, GstQuery *);
  static gboolean src_query (GstPad *, GstObject *, GstQuery *);
  static gboolean src_event (GstPad *, GstObject *, GstEvent *);

  GstPad *src_ = nullptr;       /* ours, into the chain */
  GstPad *sink_ = nullptr;      /* ours, out of afetenc */
  GstPad *first_ = nullptr, *last_ = nullptr;
  GstCaps *caps_ = nullptr;     /* of the input before */
  GstClockTime duration_ = GST_CLOCK_TIME_NONE;
  bool discont_ = true;
  guint streams_ = 0;
  int fd_ = -1;
  std::string memory_;
  bool eos_ = false;
  std::string error_;
};

}  /* namespace afetx */
