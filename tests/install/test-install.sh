#!/bin/bash
# `meson install` of this build into a temporary destination: the plugin
# installed there loads in gst-inspect-1.0 (its elements listed), and a
# small program builds against the installed gstreamer-afet-features-1.0
# through pkg-config and runs (caps made and parsed back).
#   test-install.sh BUILD_DIR
set -u
build=$1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail=0
check () { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet > "$dest/install.log" 2>&1
check "meson install --destdir" "[ $? -eq 0 ]" || cat "$dest/install.log"
plugin=$(find "$dest" -name libgstafet.so | head -1)
pc=$(find "$dest" -name gstreamer-afet-features-1.0.pc | head -1)
lib=$(dirname "$(find "$dest" -name 'libgstafetfeatures-1.0.so.0' | head -1)")
check "the plugin is installed in a gstreamer-1.0 folder" \
  "[ -n \"$plugin\" ] && [ \"\$(basename \"\$(dirname \"$plugin\")\")\" = gstreamer-1.0 ]"
check "the features library and its pkg-config file are installed" "[ -n \"$pc\" ] && [ -d \"$lib\" ]"
check "the header is installed as <gst/afet/afetfeatures.h>" \
  "[ -n \"\$(find \"$dest\" -path '*/gstreamer-1.0/gst/afet/afetfeatures.h')\" ]"

# the installed plugin, alone on the plugin path, with the system's
out=$(GST_PLUGIN_PATH_1_0="$(dirname "$plugin")" GST_PLUGIN_SYSTEM_PATH_1_0= \
  GST_REGISTRY_1_0="$dest/registry.bin" LD_LIBRARY_PATH="$lib" \
  gst-inspect-1.0 afet 2>&1)
echo "$out" | sed -n '1,40p'
for e in afetframer afetmfcc afetplp afetdelta afettraps afetspectrogram afetcmvn afetenc afetparse afetsplice afettransform; do
  check "gst-inspect-1.0 lists $e from the installed plugin" "echo \"\$out\" | grep -q \"  $e:\""
done
check "the installed plugin is the one loaded" "echo \"\$out\" | grep -q \"$plugin\""

# a program against the installed API, through pkg-config
cat > "$dest/prog.c" <<'PROG'
#include <gst/afet/afetfeatures.h>
#include <stdio.h>
int
main (void)
{
  gst_init (NULL, NULL);
  AfetFeaturesInfo a, b;
  afet_features_info_init (&a);
  afet_features_info_set_format (&a, AFET_FEATURES_KIND_MFCC, 16000, 400,
      160, 13, 2);
  GstCaps *caps = afet_features_info_to_caps (&a);
  gboolean ok = afet_features_info_from_caps (&b, caps) &&
      afet_features_info_is_equal (&a, &b);
  gchar *s = gst_caps_to_string (caps);
  printf ("%s: %s\n", ok ? "round trip" : "MISMATCH", s);
  g_free (s);
  gst_caps_unref (caps);
  return ok ? 0 : 1;
}
PROG
# the .pc names the configured prefix; the files are under $dest: a copy
# of it with its prefix moved there (GStreamer's own .pc files stay the
# system's)
mkdir -p "$dest/pc"
sed "s|^prefix=|prefix=$dest|" "$pc" > "$dest/pc/gstreamer-afet-features-1.0.pc"
flags=$(PKG_CONFIG_PATH="$dest/pc" pkg-config --cflags --libs \
  gstreamer-afet-features-1.0 2>&1)
check "pkg-config knows gstreamer-afet-features-1.0 ($flags)" "[ $? -eq 0 ]"
# shellcheck disable=SC2086
cc -o "$dest/prog" "$dest/prog.c" $flags > "$dest/cc.log" 2>&1
check "a program builds against it" "[ $? -eq 0 ]" || cat "$dest/cc.log"
run=$(LD_LIBRARY_PATH="$lib" "$dest/prog" 2>&1)
echo "$run"
check "and runs: caps made and parsed back" "echo \"\$run\" | grep -q '^round trip: application/x-afet-features'"
exit $fail
