/* Test of the elements without any OpenCL platform: each fails its state
 * change with an element error naming the cause and the fix, and nothing
 * crashes.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Run with OCL_ICD_VENDORS pointing at an empty folder: no OpenCL platform.
 * The elements must fail their state change with an element error that
 * names the cause and the fix, and nothing may crash.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <string.h>

static void
expect_clear_error (const gchar * launch)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (launch, &err);
  fail_unless (pipe != NULL);
  GstStateChangeReturn ret = gst_element_set_state (pipe, GST_STATE_PLAYING);
  if (ret == GST_STATE_CHANGE_ASYNC)
    ret = gst_element_get_state (pipe, NULL, NULL, 30 * GST_SECOND);
  fail_unless_equals_int (ret, GST_STATE_CHANGE_FAILURE);

  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message");
  GError *e = NULL;
  gchar *dbg = NULL;
  gst_message_parse_error (msg, &e, &dbg);
  GST_INFO ("error: %s (%s)", e->message, dbg);
  fail_unless (g_error_matches (e, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND), "wrong error: %s", e->message);
  fail_unless (strstr (e->message, "OpenCL") != NULL, "%s", e->message);
  fail_unless (strstr (e->message, "pocl-opencl-icd") != NULL,
      "no fix named: %s", e->message);
  g_error_free (e);
  g_free (dbg);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

GST_START_TEST (test_no_platform)
{
  fail_unless (g_getenv ("OCL_ICD_VENDORS") != NULL,
      "run with OCL_ICD_VENDORS set to an empty folder");
  expect_clear_error ("audiotestsrc num-buffers=3 ! afetmfcc ! fakesink");
  expect_clear_error ("audiotestsrc num-buffers=3 ! afetframer ! fakesink");
}

GST_END_TEST;

static Suite *
afetnoopencl_suite (void)
{
  Suite *s = suite_create ("afetnoopencl");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_no_platform);
  return s;
}

GST_CHECK_MAIN (afetnoopencl);
