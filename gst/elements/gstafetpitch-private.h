/* afetpitch's insides shared by its files: defaults, the private state,
 * the instance, and the pad query handlers of gstafetpitch-queries.cc.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstafetpitch.h"
#include "gstafetdevice.h"
#include "afetfeatures.h"
#include "pitch.h"
#include "pitch-online.h"
#include "transfer.h"

#include <gst/audio/audio.h>

#include <memory>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY_EXTERN (gst_afet_pitch_debug);

#define DEFAULT_PROCESS TRUE
#define DEFAULT_DEVICE "auto"
#define DEFAULT_DEVICE_MEMORY TRUE
/* frames-per-chunk a live source runs with when the property is 0 */
#define LIVE_FRAMES_PER_CHUNK 10


/* *INDENT-OFF* */
struct GstAfetPitchPrivate
{
  /* properties, object lock */
  gboolean process = DEFAULT_PROCESS;
  std::string device_request = DEFAULT_DEVICE;
  gboolean device_memory = DEFAULT_DEVICE_MEMORY;
  /* set by the application: else live input gets system memory (the
   * afet elements' automatic choice, docs/architecture.md) */
  bool device_memory_set = false;
  afet::PitchConfig pitch;
  afet::ProcessPitchConfig proc;
  GstAfetDevice *shared_device = nullptr;
  std::string device_name;

  /* streaming thread */
  std::shared_ptr<afet::Device> device;
  afet::ClQueue queue;
  std::shared_ptr<afet::TransferStats> stats =
      std::make_shared<afet::TransferStats> ();
  std::unique_ptr<afet::PitchStage> stage;
  std::string stage_key;            /* the rate and options it was built for */
  GstAudioInfo info;
  bool have_info = false;
  bool out_device = false;
  bool caps_sent = false;
  AfetFeaturesInfo out;
  std::vector<float> samples;       /* the utterance so far, 16-bit scale
                                     * (online: what the tracker has not
                                     * taken yet) */
  std::vector<int16_t> samples16;   /* offline from 16-bit input: the
                                     * utterance as it came (uploaded so,
                                     * half the bytes of floats) */
  GstClockTime t0 = GST_CLOCK_TIME_NONE;
  GstClockTime run_end = 0;
  bool live_checked = false;
  bool live = false;
  bool failed = false;

  /* online (frames-per-chunk > 0, or a live source) */
  std::unique_ptr<afet::OnlinePitch> online;
  afet::OnlinePitchProcess online_proc;
  bool in_utterance = false;        /* the online tracker has input */
  bool first_pass = false;          /* push frames as they are ready */
  gboolean utt_process = TRUE;
  afet::ProcessPitchConfig utt_pp;
  long long chunk = 0;              /* samples a chunk */
  long long utt_samples = 0;        /* input of this utterance */
  int pushed = 0;                   /* rows pushed of this utterance */
};
/* *INDENT-ON* */

struct _GstAfetPitch
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;
  GstAfetPitchPrivate *priv;
};

/* the pads' query handlers (gstafetpitch-queries.cc): the latency with the
 * online look-ahead, the shared device's context */
gboolean gst_afet_pitch_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query);
gboolean gst_afet_pitch_sink_query (GstPad * pad, GstObject * parent,
    GstQuery * query);
