/* GstAfetBase's private state and the helpers its files share; not installed
 * (elements use gstafetbase.h only).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* Its files:
 * gstafetbase.cc (type, properties, start/stop, caps, buffers, events,
 * queries), gstafetbase-framing.cc (framing properties and the enums),
 * gstafetbase-negotiate.cc (input parsing, output caps, refusals),
 * gstafetbase-output.cc (output buffers, completion events, timestamps) and
 * gstafetbase-streaming.cc (input to batches through the engine's FrameStream
 * and RowHistory). */

#include "gstafetbase.h"
#include "gstafetdevice.h"

#include "chain.h"
#include "clhandle.h"
#include "lanes.h"
#include "presets.h"
#include "stream.h"

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY_EXTERN (gst_afet_base_debug);
GST_DEBUG_CATEGORY_EXTERN (afet_transfer_debug);

#define DEFAULT_DEVICE "auto"
/* max-batch 0: sized to the device (afet_base_auto_batch) */
#define DEFAULT_MAX_BATCH 0
#define AUTO_BATCH_GPU 16384
#define AUTO_BATCH_CPU 4096
#define MIN_BATCH 8
#define DEFAULT_PAD FALSE
#define DEFAULT_DEVICE_MEMORY TRUE
#define DEFAULT_DITHER_SEED 0
/* the framing properties' defaults are this preset's (presets.h) */
#define DEFAULT_FRAMING_PRESET GST_AFET_PRESET_HTK
#define DEFAULT_COMBINE_STREAMS TRUE
/* latency-budget: -1 = automatic (afet_base_resolve_budget) */
#define DEFAULT_LATENCY_BUDGET (-1)
/* the automatic budget of elements fed live audio on CPU devices, where a
 * launch costs far more than its frames (gstafetbase-streaming.cc) */
#define AUTO_CPU_LATENCY_BUDGET (50 * GST_MSECOND)
/* the same on other devices (GPUs): there each stream's launches and
 * buffers cost the host's CPU, not the device's time; on an H100, 1000 live
 * streams of afetmfcc ! afetdelta ! afetcmvn in system memory took 7.0
 * cores at 20 ms against 9.4-11.2 at 0, p99 added latency 4.3 ms against
 * 73-91 (issue 29) */
#define AUTO_GPU_LATENCY_BUDGET (20 * GST_MSECOND)

/* the framing properties (gstafetbase-framing.cc), numbered apart from the base
 * class' own */
enum
{
  PROP_FRAMING_FIRST = 0x1000,
  PROP_FRAME_LENGTH = PROP_FRAMING_FIRST,
  PROP_FRAME_SHIFT,
  PROP_WINDOW,
  PROP_PREEMPHASIS,
  PROP_PAD,
  PROP_REMOVE_DC,
  PROP_SNIP_EDGES,
  PROP_DITHER,
  PROP_DITHER_SEED,
  PROP_SAMPLE_RANGE,
  PROP_PRESET,
  PROP_FRAMING_LAST = PROP_PRESET,
  /* every afet element that takes part in an HCopy chain */
  PROP_HTK_CONFIG = 0x1800,
  /* the elements that combine live streams (gstafetbase-lanes.cc) */
  PROP_COMBINE_STREAMS,
  PROP_MERGED_BATCHES,
  PROP_CHAINED_BATCHES,
  /* every element (gst_afet_base_class_set_element) */
  PROP_LATENCY_BUDGET,
};

/* *INDENT-OFF* */
struct GstAfetBaseState
{
  /* properties, guarded by the object lock */
  std::string device_request = DEFAULT_DEVICE;
  bool device_explicit = false;      /* device set to other than auto */
  guint max_batch = DEFAULT_MAX_BATCH;
  gboolean device_memory = DEFAULT_DEVICE_MEMORY;
  /* device-memory set by the application (either value); not set, the
   * input's liveness chooses (afet_base_output_device_memory) */
  bool device_memory_set = false;
  /* the framing properties as set: read only where framing_set says so,
   * the others are the preset's (afet_base_effective_framing) */
  gdouble frame_length = 0, frame_shift = 0;
  afet::Window window = afet::Window::HAMMING;
  gdouble preemphasis = 0;
  gboolean pad = DEFAULT_PAD;
  GstAfetPreset preset = DEFAULT_FRAMING_PRESET;
  gboolean remove_dc = FALSE, snip_edges = FALSE;
  GstAfetSampleRange sample_range = GST_AFET_SAMPLE_RANGE_INT16;
  gdouble dither = 0;
  guint64 dither_seed = DEFAULT_DITHER_SEED;
  /* 1 << (prop - PROP_FRAMING_FIRST): set by the application; the others
   * follow the preset */
  guint framing_set = 0;
  std::string htk_config;            /* an HCopy configuration file */
  gboolean combine_streams = DEFAULT_COMBINE_STREAMS;
  guint64 merged_batches = 0;
  guint64 chained_batches = 0;
  gint64 latency_budget = DEFAULT_LATENCY_BUDGET;

  /* the engine built for these caps, kept from run to run while no
   * writable property changes (gstafetbase-reuse.cc) */
  GstCaps *built_in = nullptr, *built_out = nullptr;
  std::atomic<guint> settings_changes {0};
  std::atomic<GThread *> config_thread {nullptr}; /* applying htk-config */
  guint built_settings = 0;
  gint built_batch = 0;              /* max-batch 0: the batch built for */
  guint64 engine_builds = 0;         /* object lock */
  bool engine_failed = false;        /* an OpenCL error posted: not kept */
  /* output_caps remembered for the last inputs asked about, with the
   * settings_changes they were made under (gstafetbase-negotiate.cc) */
  struct OutputMemo
  {
    GstCaps *in = nullptr, *out = nullptr;
    guint settings = 0;
    gboolean device = FALSE;         /* device memory offered */
  };
  std::vector<OutputMemo> output_memo;
  std::mutex memo_lock;

  /* the shared device (set by the application, found through a neighbour,
   * or made in start), object lock */
  GstAfetDevice *shared_device = nullptr;

  /* from start to stop (kept after it with the engine) */
  std::shared_ptr<afet::Device> device;
  std::string device_name;
  afet::ClQueue queue;               /* the element's queue
                                      * (Device::element_queue, or the
                                      * one of the afet element before
                                      * that hands it device memory:
                                      * afet_base_take_queue; taken at
                                      * the first caps, kept with the
                                      * engine; set and reset under the
                                      * object lock) */
  bool queue_shared_up = false;      /* queue is the element before's */
  std::atomic<bool> queue_shared_down { false };  /* the element after
                                      * took this one's queue (it asked in
                                      * this streaming thread) */
  bool draining = false;             /* afet_base_drain runs: no flush
                                      * after a launch (the run's last
                                      * reader blocks or flushes) */
  guint64 device_waits = 0;          /* barriers for another queue's
                                      * work (device-waits) */
  std::shared_ptr<afet::TransferStats> stats =
      std::make_shared<afet::TransferStats> ();

  /* negotiated */
  bool configured = false;
  GstAfetInput in;
  AfetFeaturesInfo out;
  GstClockTime budget = 0;           /* latency-budget in effect */
  bool in_device = false;            /* input caps: memory:AfetCLMemory */
  bool out_device = false;           /* output caps: memory:AfetCLMemory */
  GstBufferPool *pool = nullptr;     /* device output */
  afet::ClMem staging;               /* system output: max_batch x dims */

  /* context elements: what they declared in configure, and their input
   * rows on the device */
  bool context_mode = false;
  afet::RowHistory::Extent extent;
  afet::RowHistory history;
  /* the run's rows read from upstream's device buffer itself, not copied
   * into the history (RowHistory::adopt): a buffer that makes no batch
   * due before the run ends, as a short input's one buffer; given back
   * (its rows copied the usual way) when more rows come */
  GstBuffer *adopted = nullptr;
  /* live, rows in system memory: a lane of the process' combiner for the
   * stage instead (gstafetbase-lanes.cc) */
  const afet::ContextStage *lane_stage = nullptr;
  std::shared_ptr<afet::ContextCombiner> combiner;
  int lane = -1;
  gint64 lane_rows = 0;              /* rows of the run sent to the lane */
  bool lanes_checked = false;
  /* a live spectral element: the context elements after it, each the
   * one before's direct peer, that compute in its combined launch's pass
   * (gstafetbase-chain.cc; references), and that pass */
  std::vector<GstAfetBase *> chain_links;
  std::shared_ptr<afet::ChainCombiner> chain;
  bool chain_checked = false;        /* the chain asked for this run */

  /* streaming state */
  afet::FrameStream stream;          /* input not yet computed */
  std::vector<guint8> partial_sample; /* bytes of a sample split between
                                       * buffers */
  GstClockTime t0 = GST_CLOCK_TIME_NONE;
  guint64 frames_out = 0;
  bool have_data = false;            /* anything taken since t0 */
  guint64 units_in = 0;              /* samples (audio) or frames taken
                                      * since t0 */
  GstClockTime run_end = 0;          /* where a run without timestamps
                                      * starts: the previous run's end */
  bool warned_nonfinite = false;     /* once per run */
  std::string last_refusal;          /* the negotiation error last posted */
  guint refusals = 0;                /* refusals made (posted or not) */
  std::deque<GstBuffer *> outq;
  /* Serialized events that must stay among the frames they came between
   * (TAG, custom downstream: afetparse's key of each archive entry), held
   * while frames before them are still held, each with the output frame it
   * goes before; frames counted across runs (serial), with the serial of
   * each queued buffer's first frame beside outq (gstafetbase-output.cc) */
  struct HeldEvent
  {
    guint64 before;
    GstEvent *event;
  };
  std::deque<HeldEvent> held_events;
  std::deque<guint64> outq_serial;
  guint64 serial_out = 0;            /* frames queued, all runs */
  guint64 serial_pushed = 0;         /* frames pushed (or dropped) */
  bool live = false;
  bool live_checked = false;
  /* live input held for the latency budget: where in the run (units_in)
   * the oldest complete frame or row held arrived; -1: none held */
  gint64 held_since = -1;
};
/* *INDENT-ON* */

GstAfetBaseState *afet_base_state (GstAfetBase * self);

static inline GstAfetBaseState *
PRIV (GstAfetBase * self)
{
  return afet_base_state (self);
}

/* gstafetbase-framing.cc */
afet::Window afet_base_window_from_caps (AfetFeaturesWindow w);
/* The framing properties in effect (set, or the preset's), into in;
 * frame-length and frame-shift into *length / *shift (ms). Object lock
 * held. */
void afet_base_effective_framing (GstAfetBaseState * p, GstAfetInput * in,
    double *length, double *shift);
/* Applies the htk-config file's settings for this element's role in the
 * chain (the role of afetcmvn from its input's delta-order); FALSE with the
 * reader's reason. Object lock not held. */
gboolean afet_base_apply_htk_config (GstAfetBase * self,
    const GstAfetInput * in, gchar ** why);
/* The framing's analysis fields (preemphasis, remove-dc, snip-edges,
 * dither, sample-range) of an audio input, into s. */
void afet_base_write_framing_analysis (const GstAfetInput * in,
    GstStructure * s);

/* gstafetbase-negotiate.cc */
/* drops the oldest n remembered output caps (0: all); memo_lock held */
void afet_base_forget_output_caps (GstAfetBaseState * p, size_t n);
gboolean afet_base_describe (GstAfetBase * self, GstCaps * caps,
    GstAfetInput * in, AfetFeaturesInfo * out, gchar ** why);
gboolean afet_base_caps_have_cl_feature (const GstCaps * caps, guint idx);
GstCaps *gst_afet_base_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
GstCaps *gst_afet_base_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps);
void afet_base_post_refusal (GstAfetBase * self, GstCaps * caps,
    const gchar * reason);
/* An ACCEPT_CAPS refusal: posted when the caps are the ones upstream is
 * sending (not a format it only asks about). */
void afet_base_explain_refusal (GstAfetBase * self, GstCaps * caps);
void afet_base_explain_output_refusal (GstAfetBase * self, GstCaps * caps);

/* gstafetbase-streaming.cc: max-batch 0 resolved for the device, the stream's
 * liveness and its duration (set_caps; 0: max-batch is set) */
/* known_live: 0 or 1 when the caller knows whether the input is live (no
 * latency query), -1 to ask upstream */
gint afet_base_wanted_batch (GstAfetBase * self, gint rate, gint S,
    int known_live = -1);
/* ... and clamped to what one device allocation holds */
void afet_base_auto_batch (GstAfetBase * self, GstAfetInput * in,
    gint out_dims);
/* The engine, built or kept, takes the caps: budget and latency known */
void afet_base_engine_ready (GstAfetBase * self);
/* The engine's warnings while building, on the bus */
void afet_base_post_engine_warnings (GstAfetBase * self);

/* gstafetbase-reuse.cc: the engine kept from run to run */
/* dispatch_properties_changed: a writable property set (by the
 * application: not while the element applies its htk-config) */
void afet_base_note_property_changes (GObject * object, guint n,
    GParamSpec ** pspecs);
void afet_base_applying_config (GstAfetBase * self, gboolean on);
/* the engine (stages, pool, staging, history, lane) */
void afet_base_release_engine (GstAfetBase * self);
/* the engine, the queue and the device */
void afet_base_release_all (GstAfetBase * self);
/* GstElement::change_state: READY -> NULL releases all */
GstStateChangeReturn afet_base_change_state (GstElement * element,
    GstStateChange transition);
/* stop: keeps what a next run with the same caps can take back */
void afet_base_park (GstAfetBase * self);
/* start: what was kept for another device goes */
void afet_base_keep_for (GstAfetBase * self,
    const std::shared_ptr<afet::Device> &device);
/* GstBaseTransform's set_caps: the engine built (or kept) for these caps;
 * FALSE with the refusal posted (gstafetbase-reuse.cc) */
gboolean afet_base_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps);
/* at a run's start: the engine built again for larger batches when
 * upstream's duration asks for them (max-batch 0, not live); FALSE when
 * that failed (posted) */
gboolean afet_base_grow_batches (GstAfetBase * self);
/* ends the current run's state (gstafetbase.cc) */
void afet_base_reset_stream (GstAfetBaseState * p);

/* set_caps: TRUE when the kept engine serves these caps */
gboolean afet_base_reuse_engine (GstAfetBase * self, GstCaps * incaps,
    GstCaps * outcaps);
/* set_caps built the engine for these caps, with settings_changes at
 * settings when it read the properties */
void afet_base_note_built (GstAfetBase * self, GstCaps * incaps,
    GstCaps * outcaps, guint settings);

/* gstafetbase-output.cc */
void afet_base_clear_queue (GstAfetBaseState * p);
void afet_base_post_engine_error (GstAfetBase * self, const gchar * what);
afet::Status afet_base_setup_output (GstAfetBase * self, GstCaps * outcaps);
/* The queue query: the element before answers with its queue when it is
 * this element's direct peer on the same device (gstafetbase-reuse.cc). */
bool afet_base_queue_is_query (GstQuery * query);
gboolean afet_base_queue_answer (GstAfetBase * self, GstQuery * query);
void afet_base_queue_taken (GstAfetBase * self);
afet::Status afet_base_sync_memory (GstAfetBase * self, GstMemory * mem,
    gboolean for_write);
afet::Status afet_base_mark_completion (GstAfetBase * self,
    GstMemory * in_mem, GstMemory * out_mem);
GstFlowReturn afet_base_compute (GstAfetBase * self, gint64 n,
    const GstAfetBatch * proto, GstMemory * in_mem, GstBuffer ** out);
void afet_base_queue_output (GstAfetBase * self, GstBuffer * buf, gint64 n);
GstFlowReturn afet_base_push_queued (GstAfetBase * self);
/* The next queued buffer, for GstBaseTransform to push (nullptr: none);
 * the events that go before it are pushed first. */
GstBuffer *afet_base_pop_output (GstAfetBase * self);
/* A TAG or custom downstream event: pushed now when every frame before it
 * has gone, else held until they have (TRUE: taken). */
gboolean afet_base_hold_event (GstAfetBase * self, GstEvent * event);
/* The held events whose frames are all out, or (all) every held event. */
void afet_base_release_events (GstAfetBase * self, bool all);
/* The run ended: held events go before its next frame, whatever the run
 * still owed (a partial frame). */
void afet_base_events_end_run (GstAfetBaseState * p);
/* Every held event unreffed (FLUSH_STOP, stop, finalize). */
void afet_base_drop_held_events (GstAfetBaseState * p);

/* gstafetbase-lanes.cc */
void afet_base_lanes_release (GstAfetBaseState * p);
bool afet_base_lanes_active (GstAfetBase * self);
GstFlowReturn afet_base_lanes_push (GstAfetBase * self, const float *rows,
    gint64 m, bool end);
/* m rows of a device buffer's memory (take_on_device accepted it) into the
 * lane */
GstFlowReturn afet_base_lanes_push_device (GstAfetBase * self,
    GstMemory * in, gint64 m);

/* gstafetbase-chain.cc */
/* The live chain after a spectral element, computed with its batch in one
 * pass: *handled set and *out the element's own buffer when it was. */
GstFlowReturn afet_base_chain_compute (GstAfetBase * self,
    const GstAfetBatch * proto, gint64 n, GstBuffer ** out,
    gboolean * handled);
/* A context element's input buffer whose output rows the chain computed:
 * taken (TRUE) as if computed here, its rows queued. */
bool afet_base_chain_accept (GstAfetBase * self, GstBuffer * input);
/* The chain query on the sink pad (TRUE: answered, this element joined). */
bool afet_base_chain_is_query (GstQuery * query);
gboolean afet_base_chain_answer (GstAfetBase * self, GstQuery * query);
void afet_base_chain_release (GstAfetBaseState * p);
/* chained-batches (gstafetbase-lanes.cc) */
void afet_base_count_chained (GstAfetBase * self);

/* gstafetbase-streaming.cc */
void afet_base_check_live (GstAfetBase * self);
/* Whether the source pad offers device memory: device-memory as set, or
 * (not set) for input that is not live (gstafetbase-negotiate.cc). */
gboolean afet_base_output_device_memory (GstAfetBase * self);
/* The latency budget in effect, from the property, the device and the
 * input (at set_caps). */
void afet_base_resolve_budget (GstAfetBase * self);
/* After units_before .. units_in of live input were appended: whether what
 * is complete is computed now (false: held within the latency budget). */
bool afet_base_due (GstAfetBase * self, guint64 units_before);
/* GAP: what the budget holds goes now, before the gap. */
void afet_base_flush_held (GstAfetBase * self);
/* The latency query's answer on the source pad. */
gboolean afet_base_answer_latency (GstAfetBase * self, GstQuery * query);
gboolean afet_base_append_input (GstAfetBase * self, GstBuffer * buf);
bool afet_base_take_on_device (GstAfetBase * self, GstBuffer * input);
GstFlowReturn afet_base_submit_device_buffer (GstAfetBase * self,
    GstBuffer * input);
GstFlowReturn afet_base_process_pending (GstAfetBase * self, bool drain);
GstFlowReturn afet_base_drain (GstAfetBase * self);
/* drops an adopted buffer (context_unadopt) without computing from it */
void afet_base_forget_adopted (GstAfetBase * self);
void afet_base_finish_run (GstAfetBase * self, const char *why);
