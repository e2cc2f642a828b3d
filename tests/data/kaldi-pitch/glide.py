#!/usr/bin/env python3
"""Writes glide_8k.wav and glide_16k.wav: a voiced test signal of known f0 for
the pitch references (generate.sh), so that the lag Kaldi's pitch tracker
chooses is meaningful.

3 s, mono 16-bit PCM: 0.25 s of noise, then a tone whose f0 glides
geometrically from 90 Hz up to 320 Hz (0.25 .. 1.5 s) and back down to 140 Hz
(1.5 .. 2.75 s), with harmonics of amplitude 1/k up to 0.45 of the sample rate
and a raised-cosine onset and offset of 20 ms, then 0.25 s of noise; white
Gaussian noise 26 dB below the tone's first harmonic throughout. Python's own
random generator with a fixed seed: the files are the same on every run.
f0 at time t is glide_f0 (t) below (0 outside the voiced part).
"""

import math
import random
import struct
import sys
import wave

DURATION = 3.0
V0, VMID, V1 = 0.25, 1.5, 2.75
F_START, F_PEAK, F_END = 90.0, 320.0, 140.0
AMP = 6000.0
NOISE = AMP * 10 ** (-26 / 20)
RAMP = 0.02


def glide_f0 (t):
  if t < V0 or t >= V1:
    return 0.0
  if t < VMID:
    return F_START * (F_PEAK / F_START) ** ((t - V0) / (VMID - V0))
  return F_PEAK * (F_END / F_PEAK) ** ((t - VMID) / (V1 - VMID))


def envelope (t):
  if t < V0 or t >= V1:
    return 0.0
  e = min (t - V0, V1 - t) / RAMP
  return 1.0 if e >= 1.0 else 0.5 - 0.5 * math.cos (math.pi * e)


def make (rate, seed):
  rng = random.Random (seed)
  n = int (DURATION * rate)
  phase = 0.0
  out = []
  for i in range (n):
    t = i / rate
    f0 = glide_f0 (t)
    x = 0.0
    if f0 > 0.0:
      env = envelope (t)
      k = 1
      while k * f0 < 0.45 * rate:
        x += math.sin (k * phase) / k
        k += 1
      x *= AMP * env
      phase += 2.0 * math.pi * f0 / rate
    x += rng.gauss (0.0, NOISE)
    out.append (max (-32768, min (32767, int (round (x)))))
  return out


def write (path, rate, samples):
  with wave.open (path, 'wb') as w:
    w.setnchannels (1)
    w.setsampwidth (2)
    w.setframerate (rate)
    w.writeframes (struct.pack ('<%dh' % len (samples), *samples))


if __name__ == '__main__':
  outdir = sys.argv[1] if len (sys.argv) > 1 else '.'
  for rate, seed in ((8000, 8), (16000, 16)):
    write ('%s/glide_%dk.wav' % (outdir, rate // 1000), rate, make (rate, seed))
