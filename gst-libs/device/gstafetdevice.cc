/* The device one pipeline's elements share (gstafetdevice.h): the object
 * that holds it, its GstContext, and how elements find, set and answer for
 * it.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetdevice.h"
#include "gstafetdebug.h"

#include <mutex>

GST_AFET_DEBUG_CATEGORY_LAZY (ensure_debug_category, "afetdevice",
    "afet device sharing");
#define GST_CAT_DEFAULT ensure_debug_category ()

enum
{
  PROP_0,
  PROP_DEVICE_NAME,
  PROP_CL_CONTEXT,
};

/* *INDENT-OFF* */
struct GstAfetDeviceState
{
  std::shared_ptr<afet::Device> device;
};
/* *INDENT-ON* */

struct _GstAfetDevice
{
  GstObject parent;
  GstAfetDeviceState *state;
};

G_DEFINE_TYPE (GstAfetDevice, gst_afet_device, GST_TYPE_OBJECT);

static void
gst_afet_device_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstAfetDevice *self = GST_AFET_DEVICE (object);
  auto &device = self->state->device;
  switch (prop_id) {
    case PROP_DEVICE_NAME:
      g_value_set_string (value,
          device ? device->info ().device_name.c_str () : nullptr);
      break;
    case PROP_CL_CONTEXT:
      g_value_set_pointer (value,
          device ? (gpointer) device->context () : nullptr);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_afet_device_finalize (GObject * object)
{
  delete GST_AFET_DEVICE (object)->state;
  G_OBJECT_CLASS (gst_afet_device_parent_class)->finalize (object);
}

static void
gst_afet_device_class_init (GstAfetDeviceClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  gobject_class->get_property = gst_afet_device_get_property;
  gobject_class->finalize = gst_afet_device_finalize;
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          "Name of the OpenCL device", nullptr,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (gobject_class, PROP_CL_CONTEXT,
      g_param_spec_pointer ("cl-context", "OpenCL context",
          "The shared cl_context", (GParamFlags) (G_PARAM_READABLE |
              G_PARAM_STATIC_STRINGS)));
}

static void
gst_afet_device_init (GstAfetDevice * self)
{
  self->state = new GstAfetDeviceState ();
}

GstAfetDevice *
gst_afet_device_new (const std::shared_ptr<afet::Device> &device)
{
  GstAfetDevice *shared = (GstAfetDevice *) g_object_new
      (GST_TYPE_AFET_DEVICE, nullptr);
  gst_object_ref_sink (shared);
  shared->state->device = device;
  return shared;
}

std::shared_ptr<afet::Device>
gst_afet_device_get_device (GstAfetDevice * shared)
{
  return shared->state->device;
}

GstContext *
gst_afet_device_to_gst (GstAfetDevice * shared)
{
  GstContext *context = gst_context_new (GST_AFET_DEVICE_CONTEXT_TYPE, TRUE);
  GstStructure *s = gst_context_writable_structure (context);
  gst_structure_set (s, "context", GST_TYPE_AFET_DEVICE, shared,
      "device-name", G_TYPE_STRING,
      shared->state->device->info ().device_name.c_str (), nullptr);
  return context;
}

static GstAfetDevice *
device_from_gst (GstContext * context)
{
  if (g_strcmp0 (gst_context_get_context_type (context),
          GST_AFET_DEVICE_CONTEXT_TYPE) != 0)
    return nullptr;
  const GstStructure *s = gst_context_get_structure (context);
  GstAfetDevice *shared = nullptr;
  if (!gst_structure_get (s, "context", GST_TYPE_AFET_DEVICE, &shared,
          nullptr))
    return nullptr;
  return shared;                /* a new reference */
}

void
gst_afet_handle_set_context (GstElement * element, GstContext * context,
    GstAfetDevice ** shared)
{
  GstAfetDevice *other = device_from_gst (context);
  if (!other)
    return;
  GST_OBJECT_LOCK (element);
  if (!*shared) {
    GST_DEBUG_OBJECT (element, "using the device set on us (%s)",
        other->state->device->info ().device_name.c_str ());
    *shared = other;
    other = nullptr;
  }
  GST_OBJECT_UNLOCK (element);
  if (other)
    gst_object_unref (other);
}

gboolean
gst_afet_handle_context_query (GstElement * element, GstQuery * query,
    GstAfetDevice * shared)
{
  const gchar *type;
  if (!shared || !gst_query_parse_context_type (query, &type) ||
      g_strcmp0 (type, GST_AFET_DEVICE_CONTEXT_TYPE) != 0)
    return FALSE;
  GstContext *context = gst_afet_device_to_gst (shared);
  gst_query_set_context (query, context);
  gst_context_unref (context);
  GST_LOG_OBJECT (element, "answered a context query");
  return TRUE;
}

static gboolean
query_pads (GstElement * element, GstPadDirection direction,
    GstAfetDevice ** shared)
{
  GstIterator *it = direction == GST_PAD_SRC ?
      gst_element_iterate_src_pads (element) :
      gst_element_iterate_sink_pads (element);
  GValue item = G_VALUE_INIT;
  gboolean found = FALSE;
  while (!found && gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstPad *pad = (GstPad *) g_value_get_object (&item);
    GstQuery *q = gst_query_new_context (GST_AFET_DEVICE_CONTEXT_TYPE);
    if (gst_pad_peer_query (pad, q)) {
      GstContext *context = nullptr;
      gst_query_parse_context (q, &context);
      if (context) {
        GstAfetDevice *other = device_from_gst (context);
        if (other) {
          *shared = other;
          found = TRUE;
          gst_element_set_context (element, context);
        }
      }
    }
    gst_query_unref (q);
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  return found;
}

gboolean
gst_afet_ensure_element_device (GstElement * element, const char *request,
    GstAfetDevice ** shared, afet::Status * err)
{
  /* two elements starting at once must not both create one */
  static std::mutex lock;
  std::lock_guard<std::mutex> guard (lock);

  if (*shared)
    return TRUE;
  GstAfetDevice *found = nullptr;
  if (query_pads (element, GST_PAD_SRC, &found) ||
      query_pads (element, GST_PAD_SINK, &found)) {
    GST_DEBUG_OBJECT (element, "sharing a neighbour's device");
    GST_OBJECT_LOCK (element);
    if (!*shared)
      *shared = found;
    else
      gst_object_unref (found);
    GST_OBJECT_UNLOCK (element);
    return TRUE;
  }

  /* ask the application; it may call gst_element_set_context () on us */
  GstMessage *msg = gst_message_new_need_context (GST_OBJECT (element),
      GST_AFET_DEVICE_CONTEXT_TYPE);
  gst_element_post_message (element, msg);
  if (*shared) {
    GST_DEBUG_OBJECT (element, "the application gave a device");
    return TRUE;
  }

  std::shared_ptr<afet::Device> device;
  bool created = false;
  *err = afet::acquire_device (request, &device, &created);
  if (!err->ok ())
    return FALSE;
  if (created)
    GST_INFO_OBJECT (element, "created the shared OpenCL device on %s "
        "(request \"%s\", resolved as \"%s\")",
        device->info ().describe ().c_str (), request,
        afet::effective_device_request (request).c_str ());
  GstAfetDevice *mine = gst_afet_device_new (device);
  GstContext *context = gst_afet_device_to_gst (mine);
  GST_OBJECT_LOCK (element);
  *shared = mine;
  GST_OBJECT_UNLOCK (element);
  gst_element_set_context (element, context);
  gst_element_post_message (element,
      gst_message_new_have_context (GST_OBJECT (element), context));
  return TRUE;
}

static void
post_device_error (GstElement * element, const std::string & request,
    const afet::Status & st)
{
  const gchar *env = g_getenv ("AFET_DEVICE");
  if (st.code () == afet::Status::FORKED)
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED, ("%s",
            st.message ().c_str ()), (nullptr));
  else if (st.code () == afet::Status::NO_PLATFORM)
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("No OpenCL platform found: install an OpenCL driver (ICD), "
            "e.g. the pocl-opencl-icd package for the CPU."),
        ("%s", st.message ().c_str ()));
  else if (g_ascii_strcasecmp (request.c_str (), "auto") == 0 && env && *env)
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("No usable OpenCL device for the environment variable "
            "AFET_DEVICE=\"%s\" (the device property is auto): unset it or "
            "set it to auto, gpu, cpu, P:D or part of a device name.", env),
        ("%s", st.message ().c_str ()));
  else
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("No usable OpenCL device for device=\"%s\".", request.c_str ()),
        ("%s", st.message ().c_str ()));
}

gboolean
gst_afet_acquire_element_device (GstElement * element,
    const std::string & request, bool explicit_device,
    GstAfetDevice ** shared)
{
  /* also when the element, a neighbour or the application already holds a
   * context: one made before a fork() hangs in the child */
  afet::Status st = afet::check_not_forked ();
  if (!st.ok ()) {
    post_device_error (element, request, st);
    return FALSE;
  }
  if (!explicit_device) {
    if (gst_afet_ensure_element_device (element, request.c_str (), shared,
            &st))
      return TRUE;
    post_device_error (element, request, st);
    return FALSE;
  }
  std::shared_ptr<afet::Device> device;
  bool created = false;
  st = afet::acquire_device (request, &device, &created);
  if (!st.ok ()) {
    post_device_error (element, request, st);
    return FALSE;
  }
  if (created)
    GST_INFO_OBJECT (element, "created the shared OpenCL device on %s "
        "(request \"%s\")", device->info ().describe ().c_str (),
        request.c_str ());
  GstAfetDevice *fresh = gst_afet_device_new (device);
  GST_OBJECT_LOCK (element);
  GstAfetDevice *old = *shared;
  *shared = fresh;
  GST_OBJECT_UNLOCK (element);
  if (old)
    gst_object_unref (old);
  return TRUE;
}
