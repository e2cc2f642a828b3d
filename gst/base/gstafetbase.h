/* GstAfetBase's interface for the elements: the class and its virtual methods
 * (describe, configure, process, release...), the shared enums, and what an
 * element is given (input, environment, batches) and states it needs.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/base/gstbasetransform.h>

#include "afetfeatures.h"
#include "combine.h"
#include "device.h"
#include "params.h"
#include "transfer.h"
#include "spectral.h"
#include "stream.h"

#include <memory>
#include <string>

G_BEGIN_DECLS

#define GST_TYPE_AFET_BASE (gst_afet_base_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstAfetBase, gst_afet_base, GST, AFET_BASE,
    GstBaseTransform);

/* the window property: the engine's afet::Window */
#define GST_TYPE_AFET_WINDOW (gst_afet_window_get_type ())
GType gst_afet_window_get_type (void);

#define GST_TYPE_AFET_PRESET (gst_afet_preset_get_type ())
GType gst_afet_preset_get_type (void);

/* the values of the caps' AfetFeaturesPreset */
typedef enum
{
  GST_AFET_PRESET_HTK = AFET_FEATURES_PRESET_HTK,
  GST_AFET_PRESET_KALDI = AFET_FEATURES_PRESET_KALDI,
  GST_AFET_PRESET_WHISPER = AFET_FEATURES_PRESET_WHISPER,
  GST_AFET_PRESET_LHOTSE = AFET_FEATURES_PRESET_LHOTSE,
} GstAfetPreset;

/* the sample-range property: the scale samples are taken in */
#define GST_TYPE_AFET_SAMPLE_RANGE (gst_afet_sample_range_get_type ())
GType gst_afet_sample_range_get_type (void);

typedef enum
{
  GST_AFET_SAMPLE_RANGE_INT16 = 0,      /* -32768 .. 32767 (HTK, Kaldi) */
  GST_AFET_SAMPLE_RANGE_UNIT,           /* -1 .. 1 (lhotse, Whisper) */
} GstAfetSampleRange;

G_END_DECLS

/* What an afet element is fed, as the base class has parsed it from fixed
 * sink caps. For audio, W and S come from the framing properties; for a
 * feature stream, from its caps. */
struct GstAfetInput
{
  bool audio = true;
  GstAudioInfo audio_info;          /* audio only */
  AfetFeaturesInfo features;        /* feature streams only */
  int rate = 0;
  int W = 0;
  int S = 0;
  int in_dims = 0;                  /* floats a frame (feature input) */
  afet::Window window = afet::Window::HAMMING;
  float preemph = 0.97f;
  /* the preset's and the framing properties' (audio) */
  GstAfetPreset preset = GST_AFET_PRESET_HTK;
  bool remove_dc = false;
  float scale = 1.0f;
  float dither = 0.0f;
  guint64 dither_seed = 0;
  afet::Edges edges = afet::Edges::SNIP;
  /* how the audio is held and uploaded: 16-bit input as it came (half the
   * bytes), anything else as floats in 16-bit scale */
  afet::SampleFormat samples = afet::SampleFormat::F32;
  bool pad = false;
  int max_batch = 4096;
  /* feature input: its caps' splice field (afetsplice), "" if none */
  std::string splice;
  /* feature input: its caps' transform field (afettransform's), or "" */
  std::string transform;
};

/* What configure is given: the device the element runs on, its own
 * in-order queue and the transfer counters its properties report. */
struct GstAfetEnv
{
  std::shared_ptr<afet::Device> device;
  cl_command_queue queue = nullptr;
  afet::TransferStats *stats = nullptr;
};

/* What configure declares (see gst_afet_needs_context). */
struct GstAfetNeeds
{
  bool context = false;
  afet::RowHistory::Extent extent;
  const afet::ContextStage *stage = nullptr;
};

/* One batch of input for GstAfetBaseClass::process: host data (audio
 * samples, or frames of in_dims floats), or rows of a device buffer. */
struct GstAfetBatch
{
  const void *host = nullptr;   /* audio: in->samples' format; rows: floats */
  cl_mem device = nullptr;
  size_t in_row = 0;
  /* context elements (see gst_afet_needs_context): block holds the input
   * rows with global frame indices block.first_row .. (device == block.rows,
   * rows of the row_dims they declared); the stream has block.total
   * frames (-1 while unknown, so only the start clamps); the batch computes
   * output frames out_first .. out_first + n - 1 */
  afet::ContextBlock block;
  gint64 out_first = 0;
};

/**
 * GstAfetBaseClass:
 * @describe: computes the output format for a fixed input; returns FALSE
 *   with a reason (owned by the caller) if this input cannot be taken.
 * @configure: builds the engine stage for the input (streaming thread, at
 *   caps time, before any buffer) on @env's device: its work goes on the
 *   queue, its transfers are counted in the stats. A context element
 *   declares its context in @needs.
 * @process: enqueues @n <= max-batch frames: @in holds (n - 1) S + W samples
 *   or n frames; writes n rows of dims floats to @out from row @out_row.
 *   Enqueue only: the base class synchronises and transfers.
 * @release: drops the engine stage (stop, caps change).
 */
struct _GstAfetBaseClass
{
  GstBaseTransformClass parent_class;

  gboolean (*describe) (GstAfetBase * self, const GstAfetInput * in,
      AfetFeaturesInfo * out, gchar ** why);
  gboolean (*configure) (GstAfetBase * self, const GstAfetEnv * env,
      const GstAfetInput * in, const AfetFeaturesInfo * out,
      GstAfetNeeds * needs, gchar ** why);
  gboolean (*process) (GstAfetBase * self, const GstAfetBatch * in, gint n,
      cl_mem out, gsize out_row, gchar ** why);
  void (*release) (GstAfetBase * self);
  /* context elements with audio input: n frames of audio (as for process)
   * into rows out_row.. of out, row_dims floats each */
  gboolean (*pre_process) (GstAfetBase * self, const GstAfetBatch * in,
      gint n, cl_mem out, gsize out_row, gchar ** why);
  /* optional, system-memory output: may compute the n frames of a host
   * batch straight into out (n rows of dims floats), e.g. together with
   * other streams' frames; sets *handled, or leaves it FALSE for
   * process () and a download to do it */
  gboolean (*process_host) (GstAfetBase * self, const GstAfetBatch * in,
      gint n, float *out, gboolean * handled, gchar ** why);
  /* optional, device-memory output: the same for a host batch whose rows
   * stay on the device: sets *out to their place in a block of the
   * launch (the caller's references, afet::DeviceRows), which the base
   * class makes the output buffer's memory */
  gboolean (*process_host_device) (GstAfetBase * self,
      const GstAfetBatch * in, gint n, afet::DeviceRows * out,
      gboolean * handled, gchar ** why);
  /* optional, live audio: the process' combiner that computes this
   * element's small host batches with other streams' (*front), and the n
   * frames of in laid out for it (*frames: whole frames one after the
   * other, *bytes of them), so that a live chain after the element can be
   * computed in the same pass (gstafetbase-chain.cc); FALSE when the
   * element does not combine this batch */
  gboolean (*combined_front) (GstAfetBase * self, const GstAfetBatch * in,
      gint n, std::shared_ptr<afet::SpectralCombiner> * front,
      const void **frames, gsize * bytes);

  /* optional: writes the analysis fields (AFET_FEATURES_ANALYSIS_FIELDS)
   * this element's own settings decide for an input into its output
   * caps' structure s; the base class writes the framing ones for audio
   * input and passes on an input stream's for the rest */
  void (*describe_analysis) (GstAfetBase * self, const GstAfetInput * in,
      GstStructure * s);

  /* optional: a run of frames begins (its first buffer, after the run
   * before it was drained and pushed: a DISCONT or the stream's start), or
   * the stream ends (EOS, after its last run was drained and pushed,
   * before EOS goes downstream), so that the subclass can switch what it
   * applies to the run's frames: afetcmvn takes the statistics of the
   * entry's key and writes what it summed, afettransform the matrix of the
   * entry's key. FALSE, with an error posted, fails the stream (each later
   * buffer of the run fails alike). */
  gboolean (*run_start) (GstAfetBase * self);
  gboolean (*stream_end) (GstAfetBase * self);

  /* set in class_init: the element frames audio itself (latency W / rate,
   * framing properties apply) */
  gboolean takes_audio;
};

/* Installs frame-length, frame-shift, window, preemphasis, pad,
 * remove-dc, snip-edges, dither, dither-seed, sample-range and preset on an
 * element class that frames audio. They are owned by the subclass, which
 * forwards them from its set/get_property to the two functions below
 * (they return FALSE for other properties). */
void gst_afet_base_class_install_framing_properties (GObjectClass * klass);
gboolean gst_afet_base_set_framing_property (GObject * object, guint prop_id,
    const GValue * value);
gboolean gst_afet_base_get_framing_property (GObject * object, guint prop_id,
    GValue * value);

/* Installs htk-config on an element class that does not frame audio
 * (afetdelta, afetcmvn; the framing elements get it with the framing
 * properties); its set/get_property forward to the two functions above. */
void gst_afet_base_class_install_htk_config (GObjectClass * klass);

/* Every afet element's pad templates (always pads with these caps) and
 * metadata (Filter/Analyzer/Audio, by the afet authors); strings static. */
void gst_afet_base_class_set_element (GstElementClass * klass,
    const gchar * sink_caps, const gchar * src_caps, const gchar * longname,
    const gchar * description);

/* Audio every afet element that frames audio takes: mono, 16/32-bit
 * integer or float samples, 8 to 192 kHz (narrow, so that audioconvert and
 * audioresample adapt by themselves). */
#define GST_AFET_AUDIO_CAPS \
    "audio/x-raw, format = (string) { S16LE, S32LE, F32LE, F64LE }, " \
    "layout = (string) interleaved, rate = (int) [ 8000, 192000 ], " \
    "channels = (int) 1"

/* Feature caps of the given kinds in device memory, then system memory. */
#define GST_AFET_FEATURES_CAPS(kinds) \
    AFET_FEATURES_CAPS_MAKE_WITH_FEATURES (AFET_CAPS_FEATURE_MEMORY_CL, \
        kinds) "; " AFET_FEATURES_CAPS_MAKE (kinds)

/* The preset in effect (elements that frame audio). */
GstAfetPreset gst_afet_base_get_preset (GstAfetBase * self);

/* Whether the application set the framing property prop_name (otherwise it
 * follows the preset). */
gboolean gst_afet_base_framing_is_set (GstAfetBase * self,
    const gchar * prop_name);

/* The engine's framing for an input (rate, W, S, window, pre-emphasis, and
 * the preset's conventions). */
afet::FramingConfig gst_afet_base_framing_config (const GstAfetInput * in);

/* For elements that take audio or afetframer's frames: FALSE with a reason
 * if a feature input is not a frames stream of at least W values. */
gboolean gst_afet_base_check_frames_input (GstAfetBase * self,
    const GstAfetInput * in, gchar ** why);

/* The caps' name for an engine window. */
AfetFeaturesWindow gst_afet_base_caps_window (afet::Window w);

/* Context elements, from configure: output frame t needs input rows
 * t - back .. t + ahead of row_dims floats (clamped to the stream: edge
 * frames repeat). The base class then keeps those rows on the device across
 * buffers, waits for the look-ahead (and reports it as latency), and hands
 * process() a device block of rows with their global indices
 * (GstAfetBatch). With audio input, the subclass' @pre_process first turns
 * audio into input rows. start_need: no output before that many rows have
 * arrived (or the stream ended), e.g. Kaldi's min-window; -1: none before
 * the stream ends (whole-stream statistics: refused on a live source, the
 * history grows with the stream). */
void gst_afet_needs_context (GstAfetNeeds * needs, gint back, gint ahead,
    gint row_dims, gint start_need = 0);
/* Context elements whose stage has lanes (afet::ContextStage::has_lanes):
 * live streams with rows in system memory go through a lane of the
 * process' afet::ContextCombiner for the stage's configuration (results
 * unchanged); the stage lives until release. */
void gst_afet_needs_lanes (GstAfetNeeds * needs,
    const afet::ContextStage * stage);

/* combine-streams and merged-batches, on the elements that combine live
 * streams: installed by their class_init, forwarded as the framing
 * properties are; the first tells whether to combine, the second counts a
 * batch that shared its launch. */
void gst_afet_base_class_install_combine (GObjectClass * klass);
gboolean gst_afet_base_combine_streams (GstAfetBase * self);
void gst_afet_base_count_combined (GstAfetBase * self);

