# A speech-like test input the extract tests share: a 16 kHz mono 16-bit
# WAV of n samples, a tone in noise, its pitch and noise from seed.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import random
import struct
import wave


def write_wav(path, n, seed):
    rng = random.Random(seed)
    f0 = rng.uniform(90, 300)
    samples = [int(8000 * math.sin(2 * math.pi * f0 * i / 16000) +
                   rng.gauss(0, 600)) for i in range(n)]
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(struct.pack("<%dh" % n, *samples))
