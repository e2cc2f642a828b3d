/* GstAfetBase: the base class every afet element derives from (properties,
 * negotiation, buffers in and out); its parts are in gstafetbase-*.cc.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gstafetbase
 * @title: GstAfetBase
 * @short_description: base class of afet's feature elements
 *
 * Owns what every afet element does: choosing the OpenCL device, taking
 * audio or feature streams in, cutting them into whole frames across
 * buffers, batching, timestamps, draining on EOS and DISCONT, negotiation
 * messages and the latency answer. Subclasses only describe their output
 * and compute frames.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetbase-private.h"
#include "gstafetclmemory.h"

#include "cache.h"
#include "clutil.h"
#include "stream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

GST_DEBUG_CATEGORY (gst_afet_base_debug);
GST_DEBUG_CATEGORY (afet_transfer_debug);
#define GST_CAT_DEFAULT gst_afet_base_debug

enum
{
  PROP_0,
  PROP_DEVICE,
  PROP_DEVICE_NAME,
  PROP_MAX_BATCH,
  PROP_DEVICE_MEMORY,
  PROP_UPLOADS,
  PROP_UPLOAD_BYTES,
  PROP_DOWNLOADS,
  PROP_DOWNLOAD_BYTES,
  PROP_ENGINE_BUILDS,
  PROP_DEVICE_COPIES,
  PROP_DEVICE_WAITS,
};

typedef struct
{
  GstAfetBaseState *state;      /* C++ state: new in init, delete in finalize */
} GstAfetBasePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstAfetBase, gst_afet_base,
    GST_TYPE_BASE_TRANSFORM);

GstAfetBaseState *
afet_base_state (GstAfetBase * self)
{
  return ((GstAfetBasePrivate *)
      gst_afet_base_get_instance_private (self))->state;
}

static void gst_afet_base_finalize (GObject * object);
static void gst_afet_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_afet_base_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_afet_base_start (GstBaseTransform * trans);
static gboolean gst_afet_base_stop (GstBaseTransform * trans);
static gboolean gst_afet_base_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_afet_base_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static GstFlowReturn gst_afet_base_submit_input_buffer (GstBaseTransform *
    trans, gboolean is_discont, GstBuffer * input);
static GstFlowReturn gst_afet_base_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf);
static gboolean gst_afet_base_decide_allocation (GstBaseTransform * trans,
    GstQuery * query);
static void gst_afet_base_set_context (GstElement * element,
    GstContext * context);

static void
gst_afet_base_class_init (GstAfetBaseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_afet_base_debug, "afetbase", 0,
      "afet base class");
  GST_DEBUG_CATEGORY_INIT (afet_transfer_debug, "afettransfer", 0,
      "afet host <-> device transfers");

  gobject_class->finalize = gst_afet_base_finalize;
  gobject_class->set_property = gst_afet_base_set_property;
  gobject_class->get_property = gst_afet_base_get_property;
  gobject_class->dispatch_properties_changed =
      afet_base_note_property_changes;

  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "OpenCL device: auto (AFET_DEVICE if set, else the first GPU, else "
          "the first CPU device), gpu, cpu, P:D (platform:device indices as "
          "clinfo -l lists them) or part of a device name",
          DEFAULT_DEVICE, (GParamFlags) (G_PARAM_READWRITE |
              G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          "Name of the OpenCL device in use (empty before READY->PAUSED)",
          "", (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (gobject_class, PROP_MAX_BATCH,
      g_param_spec_uint ("max-batch", "Maximum batch",
          "Most frames computed in one device launch (0: sized to the "
          "device, 16384 on GPUs for a stream that is not live, else 4096, "
          "and no more than a stream of known duration needs; at least 8). "
          "A "
          "live source's frames are computed as they fall due "
          "(latency-budget); otherwise frames are gathered up to this many "
          "before a launch", 0, 1 << 20, DEFAULT_MAX_BATCH,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));

  g_object_class_install_property (gobject_class, PROP_DEVICE_MEMORY,
      g_param_spec_boolean ("device-memory", "Device memory",
          "Hand buffers to other afet elements in OpenCL device memory "
          "(memory:AfetCLMemory) when they take it; false: always system "
          "memory. Not set, the input chooses: device memory when it is not "
          "live (files), system memory when it is (many live streams "
          "combine their launches there); set, true or false holds for "
          "both", DEFAULT_DEVICE_MEMORY, (GParamFlags) (G_PARAM_READWRITE |
              G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_UPLOADS,
      g_param_spec_uint64 ("uploads", "Uploads",
          "Host-to-device copies this element made so far", 0, G_MAXUINT64,
          0, (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (gobject_class, PROP_UPLOAD_BYTES,
      g_param_spec_uint64 ("upload-bytes", "Upload bytes",
          "Bytes copied from host to device so far", 0, G_MAXUINT64, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (gobject_class, PROP_DOWNLOADS,
      g_param_spec_uint64 ("downloads", "Downloads",
          "Device-to-host copies of this element's data so far (its own, "
          "and those made when others map its device memory)", 0,
          G_MAXUINT64, 0, (GParamFlags) (G_PARAM_READABLE |
              G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (gobject_class, PROP_DOWNLOAD_BYTES,
      g_param_spec_uint64 ("download-bytes", "Download bytes",
          "Bytes copied from device to host so far", 0, G_MAXUINT64, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (gobject_class, PROP_ENGINE_BUILDS,
      g_param_spec_uint64 ("engine-builds", "Engine builds",
          "Times this element built its device work (queue, kernels, "
          "buffers, FFT plans) so far: a pipeline set to READY between "
          "inputs builds it again only when the caps, a property or the "
          "device change", 0, G_MAXUINT64, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  g_object_class_install_property (gobject_class, PROP_DEVICE_COPIES,
      g_param_spec_uint64 ("device-copies", "Device copies",
          "Device-to-device copies of input rows this element made so far "
          "(context elements: rows into its frame history, kept rows moved "
          "there; an input that comes as one device buffer and ends before "
          "a batch is due is read where it is, with none)", 0, G_MAXUINT64,
          0, (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (gobject_class, PROP_DEVICE_WAITS,
      g_param_spec_uint64 ("device-waits", "Device waits",
          "Times this element's device queue waited for another queue's "
          "work before using a device-memory buffer so far (none when the "
          "buffer comes from the afet element just before it, which shares "
          "its queue)", 0, G_MAXUINT64, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  GST_ELEMENT_CLASS (klass)->set_context =
      GST_DEBUG_FUNCPTR (gst_afet_base_set_context);
  GST_ELEMENT_CLASS (klass)->change_state =
      GST_DEBUG_FUNCPTR (afet_base_change_state);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_afet_base_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_afet_base_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_afet_base_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_afet_base_fixate_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (afet_base_set_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_afet_base_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_afet_base_query);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_afet_base_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_afet_base_generate_output);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_afet_base_decide_allocation);
  trans_class->passthrough_on_same_caps = FALSE;

  gst_type_mark_as_plugin_api (GST_TYPE_AFET_BASE, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AFET_WINDOW, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AFET_PRESET, (GstPluginAPIFlags) 0);
}

static void
gst_afet_base_init (GstAfetBase * self)
{
  ((GstAfetBasePrivate *) gst_afet_base_get_instance_private (self))->state =
      new GstAfetBaseState ();
}

static void
gst_afet_base_finalize (GObject * object)
{
  GstAfetBase *self = GST_AFET_BASE (object);
  GstAfetBaseState *p = PRIV (self);
  afet_base_clear_queue (p);
  afet_base_drop_held_events (p);
  /* the subclass' stages went with its state already */
  p->configured = false;
  afet_base_release_all (self);
  afet_base_forget_output_caps (p, 0);
  gst_clear_object (&p->shared_device);
  delete p;
  G_OBJECT_CLASS (gst_afet_base_parent_class)->finalize (object);
}

static void
gst_afet_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAfetBase *self = GST_AFET_BASE (object);
  GstAfetBaseState *p = PRIV (self);

  switch (prop_id) {
    case PROP_DEVICE:{
      const gchar *s = g_value_get_string (value);
      GST_OBJECT_LOCK (self);
      p->device_request = s ? s : DEFAULT_DEVICE;
      p->device_explicit = s && *s && g_ascii_strcasecmp (s, "auto") != 0;
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case PROP_MAX_BATCH:
      GST_OBJECT_LOCK (self);
      p->max_batch = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_DEVICE_MEMORY:
      GST_OBJECT_LOCK (self);
      p->device_memory = g_value_get_boolean (value);
      p->device_memory_set = true;
      GST_OBJECT_UNLOCK (self);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_afet_base_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAfetBase *self = GST_AFET_BASE (object);
  GstAfetBaseState *p = PRIV (self);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DEVICE:
      g_value_set_string (value, p->device_request.c_str ());
      break;
    case PROP_DEVICE_NAME:
      g_value_set_string (value, p->device_name.c_str ());
      break;
    case PROP_MAX_BATCH:
      g_value_set_uint (value, p->max_batch);
      break;
    case PROP_DEVICE_MEMORY:
      g_value_set_boolean (value, p->device_memory);
      break;

    case PROP_UPLOADS:
      g_value_set_uint64 (value, p->stats->uploads);
      break;
    case PROP_UPLOAD_BYTES:
      g_value_set_uint64 (value, p->stats->upload_bytes);
      break;
    case PROP_DOWNLOADS:
      g_value_set_uint64 (value, p->stats->downloads);
      break;
    case PROP_DOWNLOAD_BYTES:
      g_value_set_uint64 (value, p->stats->download_bytes);
      break;
    case PROP_ENGINE_BUILDS:
      g_value_set_uint64 (value, p->engine_builds);
      break;
    case PROP_DEVICE_COPIES:
      g_value_set_uint64 (value, p->history.copies ());
      break;
    case PROP_DEVICE_WAITS:
      g_value_set_uint64 (value, p->device_waits);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

void
gst_afet_needs_context (GstAfetNeeds * needs, gint back, gint ahead,
    gint row_dims, gint start_need)
{
  needs->context = true;
  needs->extent.back = back;
  needs->extent.ahead = ahead;
  needs->extent.row_dims = row_dims;
  needs->extent.start_need = start_need;
}


/* Ends the current run's state. A run without timestamps after it starts
 * where this one's input ended. */
void
afet_base_reset_stream (GstAfetBaseState * p)
{
  if (GST_CLOCK_TIME_IS_VALID (p->t0) && p->in.rate > 0) {
    guint64 samples = p->in.audio ? p->units_in :
        p->units_in * (guint64) p->in.S;
    p->run_end = p->t0 + gst_util_uint64_scale (samples, GST_SECOND,
        (guint64) p->in.rate);
  }
  p->units_in = 0;
  p->warned_nonfinite = false;
  p->stream.reset ();
  p->partial_sample.clear ();
  p->history.reset ();
  if (p->adopted)
    gst_buffer_unref (p->adopted);      /* a run ended without its drain */
  p->adopted = nullptr;
  p->lane_rows = 0;
  afet_base_chain_release (p);
  p->t0 = GST_CLOCK_TIME_NONE;
  p->frames_out = 0;
  p->have_data = false;
  p->held_since = -1;
  afet_base_events_end_run (p);
}

static void
gst_afet_base_set_context (GstElement * element, GstContext * context)
{
  GstAfetBase *self = GST_AFET_BASE (element);
  gst_afet_handle_set_context (element, context, &PRIV (self)->shared_device);
  GST_ELEMENT_CLASS (gst_afet_base_parent_class)->set_context (element,
      context);
}

/* Device precedence: an explicit device property, then a device set by the
 * application (or shared by a neighbour), then AFET_DEVICE, then auto. */
static gboolean
gst_afet_base_start (GstBaseTransform * trans)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  GstAfetBaseState *p = PRIV (self);

  GST_OBJECT_LOCK (self);
  std::string request = p->device_request;
  bool explicit_device = p->device_explicit;
  GST_OBJECT_UNLOCK (self);

  if (!gst_afet_acquire_element_device (GST_ELEMENT (self), request,
          explicit_device, &p->shared_device))
    return FALSE;

  std::shared_ptr<afet::Device> device =
      gst_afet_device_get_device (p->shared_device);
  afet_base_keep_for (self, device);
  /* (the element's queue is taken with its first caps: set_caps) */
  GST_DEBUG_OBJECT (self, "running on %s", device->info ().describe ().
      c_str ());
  GST_OBJECT_LOCK (self);
  p->device = device;
  p->device_name = device->info ().device_name;
  GST_OBJECT_UNLOCK (self);
  afet_base_reset_stream (p);
  p->run_end = 0;
  p->last_refusal.clear ();
  p->refusals = 0;
  p->live_checked = false;
  return TRUE;
}

static gboolean
gst_afet_base_stop (GstBaseTransform * trans)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  GstAfetBaseState *p = PRIV (self);

  afet_base_clear_queue (p);
  afet_base_reset_stream (p);
  afet_base_drop_held_events (p);
  afet_base_park (self);
  GST_OBJECT_LOCK (self);
  GstAfetDevice *shared = p->shared_device;
  p->shared_device = nullptr;
  GST_OBJECT_UNLOCK (self);
  /* an application-set device is set again by the application; ours and a
   * neighbour's are found again at the next start */
  if (shared)
    gst_object_unref (shared);
  return TRUE;
}

static gboolean
gst_afet_base_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstAfetBaseState *p = PRIV (GST_AFET_BASE (trans));
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  if (caps && afet_base_caps_have_cl_feature (caps, 0)) {
    /* device buffers come from our own pool (made at set_caps, which runs
     * after this): tell downstream nothing else */
    while (gst_query_get_n_allocation_pools (query) > 0)
      gst_query_remove_nth_allocation_pool (query, 0);
    return TRUE;
  }
  (void) p;
  return GST_BASE_TRANSFORM_CLASS (gst_afet_base_parent_class)->
      decide_allocation (trans, query);
}

static GstFlowReturn
gst_afet_base_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  GstAfetBaseState *p = PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;

  if (!p->configured) {
    /* a refusal already told why; otherwise no format came at all */
    gst_buffer_unref (input);
    GST_OBJECT_LOCK (self);
    bool told = p->refusals > 0;
    GST_OBJECT_UNLOCK (self);
    if (!told)
      afet_base_post_refusal (self, nullptr, "a buffer came before its "
          "format (no caps event)");
    return GST_FLOW_NOT_NEGOTIATED;
  }
  afet_base_check_live (self);
  if (p->context_mode && p->extent.start_need < 0 && p->live) {
    gst_buffer_unref (input);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("%s needs the whole stream before its first output, which a live "
            "source never ends: use a sliding or running scope there "
            "(afetcmvn scope, afetmfcc clamp=running).",
            GST_ELEMENT_NAME (self)), ("live upstream"));
    return GST_FLOW_ERROR;
  }

  /* is_discont is GstBaseTransform's own flag: it stays set until the
   * base class outputs a buffer itself, which we never let it do, so only
   * the buffer's flag counts */
  if (GST_BUFFER_IS_DISCONT (input)) {
    if (p->have_data) {
      /* the old run's last frames go now, as its own: the DISCONT that
       * GstBaseTransform marks on our next output belongs to the new run */
      GST_DEBUG_OBJECT (self, "DISCONT: draining and restarting at %"
          GST_TIME_FORMAT, GST_TIME_ARGS (GST_BUFFER_PTS (input)));
      ret = afet_base_drain (self);
      if (ret == GST_FLOW_OK)
        ret = afet_base_push_queued (self);
      else
        afet_base_clear_queue (p);
    }
    afet_base_reset_stream (p);
  }
  if (!GST_CLOCK_TIME_IS_VALID (p->t0) && ret == GST_FLOW_OK &&
      !afet_base_grow_batches (self))
    ret = GST_FLOW_ERROR;
  if (!GST_CLOCK_TIME_IS_VALID (p->t0)) {
    p->t0 = GST_BUFFER_PTS_IS_VALID (input) ? GST_BUFFER_PTS (input) :
        p->run_end;
    p->frames_out = 0;
    GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
    if (ret == GST_FLOW_OK && klass->run_start && !klass->run_start (self)) {
      /* each buffer of the run fails alike */
      p->t0 = GST_CLOCK_TIME_NONE;
      ret = GST_FLOW_ERROR;
    }
  }
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (input);
    return ret;
  }
  if (gst_buffer_get_size (input) > 0)
    p->have_data = true;

  if (afet_base_chain_accept (self, input)) {
    /* computed in a live chain's pass (gstafetbase-chain.cc) */
    gst_buffer_unref (input);
    return GST_FLOW_OK;
  }
  if (afet_base_take_on_device (self, input))
    return afet_base_submit_device_buffer (self, input);

  const guint64 units_before = p->units_in;
  if (!afet_base_append_input (self, input)) {
    gst_buffer_unref (input);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, (nullptr),
        ("cannot read an input buffer"));
    return GST_FLOW_ERROR;
  }
  gst_buffer_unref (input);
  if (!afet_base_due (self, units_before))
    return GST_FLOW_OK;
  return afet_base_process_pending (self, false);
}

static GstFlowReturn
gst_afet_base_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  *outbuf = afet_base_pop_output (GST_AFET_BASE (trans));
  return GST_FLOW_OK;
}

static gboolean
gst_afet_base_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  GstAfetBaseState *p = PRIV (self);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      GST_DEBUG_OBJECT (self, "EOS: draining");
      afet_base_finish_run (self, "EOS");
      afet_base_reset_stream (p);
      afet_base_release_events (self, true);
      if (GST_AFET_BASE_GET_CLASS (self)->stream_end)
        GST_AFET_BASE_GET_CLASS (self)->stream_end (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      afet_base_clear_queue (p);
      afet_base_reset_stream (p);
      /* what they came among is gone; sticky ones stay on the sink pad */
      afet_base_drop_held_events (p);
      break;
    case GST_EVENT_CUSTOM_DOWNSTREAM:
      if (gst_event_has_name (event, AFET_FEATURES_DRAIN_EVENT)) {
        /* the utterance ends, the stream goes on: its last frames now, as
         * at EOS, then the event after them; what follows starts a new
         * utterance, as after a DISCONT (afetfeatures.h) */
        GST_DEBUG_OBJECT (self, "drain: ending the utterance");
        if (p->have_data)
          afet_base_finish_run (self, "a drain");
        afet_base_reset_stream (p);
        afet_base_release_events (self, true);
        break;
      }
      if (afet_base_hold_event (self, event))
        return TRUE;
      break;
    case GST_EVENT_TAG:
    case GST_EVENT_CUSTOM_DOWNSTREAM_STICKY:
      if (afet_base_hold_event (self, event))
        return TRUE;
      break;
    case GST_EVENT_GAP:
      afet_base_flush_held (self);
      break;
    case GST_EVENT_CAPS:{
      if (p->configured && p->have_data) {
        GstCaps *caps;
        gst_event_parse_caps (event, &caps);
        GstCaps *cur = gst_pad_get_current_caps
            (GST_BASE_TRANSFORM_SINK_PAD (trans));
        if (!cur || !gst_caps_is_equal (cur, caps)) {
          GST_DEBUG_OBJECT (self, "caps change: draining");
          afet_base_finish_run (self, "a format change");
        }
        if (cur)
          gst_caps_unref (cur);
      }
      GstCaps *caps;
      gst_event_parse_caps (event, &caps);
      gst_caps_ref (caps);
      GST_OBJECT_LOCK (self);
      guint posted = p->refusals;
      GST_OBJECT_UNLOCK (self);
      gboolean ok = GST_BASE_TRANSFORM_CLASS
          (gst_afet_base_parent_class)->sink_event (trans, event);
      GST_OBJECT_LOCK (self);
      posted = p->refusals != posted;
      GST_OBJECT_UNLOCK (self);
      if (!ok && posted == 0)
        afet_base_explain_output_refusal (self, caps);
      gst_caps_unref (caps);
      return ok;
    }
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_afet_base_parent_class)->sink_event
      (trans, event);
}

static gboolean
gst_afet_base_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  GstAfetBaseState *p = PRIV (self);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CONTEXT:{
      GST_OBJECT_LOCK (self);
      GstAfetDevice *shared = p->shared_device ? (GstAfetDevice *)
          gst_object_ref (p->shared_device) : nullptr;
      GST_OBJECT_UNLOCK (self);
      gboolean answered = gst_afet_handle_context_query (GST_ELEMENT (self),
          query, shared);
      if (shared)
        gst_object_unref (shared);
      if (answered)
        return TRUE;
      break;
    }
    case GST_QUERY_LATENCY:
      if (direction != GST_PAD_SRC)
        break;
      return afet_base_answer_latency (self, query);
    case GST_QUERY_ACCEPT_CAPS:{
      if (direction != GST_PAD_SINK)
        break;
      gboolean ret = GST_BASE_TRANSFORM_CLASS
          (gst_afet_base_parent_class)->query (trans, direction, query);
      gboolean accepted = FALSE;
      GstCaps *caps;
      gst_query_parse_accept_caps (query, &caps);
      gst_query_parse_accept_caps_result (query, &accepted);
      if (!accepted && caps && gst_caps_is_fixed (caps))
        afet_base_explain_refusal (self, caps);
      return ret;
    }
    case GST_QUERY_CUSTOM:
      if (direction == GST_PAD_SINK && afet_base_chain_is_query (query))
        return afet_base_chain_answer (self, query);
      if (direction == GST_PAD_SRC && afet_base_queue_is_query (query))
        return afet_base_queue_answer (self, query);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_afet_base_parent_class)->query (trans,
      direction, query);
}
