#!/usr/bin/env python3
"""Writes the binary kdebug fixtures in this folder (see ../README.md, section "kdebug/").

Usage: Fixtures/kdebug/make-fixtures.py PROTOTYPES_DIR
  PROTOTYPES_DIR holds kdebug_synth.py (the kdebug research prototype, kept outside this repository).

- synth-launch.kdebug: one RAW_VERSION2 header chunk (padded to 4 KiB, thread map: launchd and Demo's main
  thread) followed by kdebug_synth.launch_events(t0=1_000_000_000, pid=4243, tid=0x11000, "Demo"): 45 records.
- pykdebugparser-dyld.kdebug: records only (an event-chunk stream, no header), built from the Kevent tuples of
  matan1008/pykdebugparser tests/traces/test_dyld.py at 2da81e77acff716e08157e4204a94ff0182f5069, in the order
  the tests list them: test_timing_bootstrap_start (line 100), test_timing_launch_executable (line 60),
  test_timing_func_for_add_image (line 82), test_timing_dlopen (line 111). cpuid is 0: the tuples do not keep it.
"""
import os
import struct
import sys

sys.path.insert(0, sys.argv[1])
import kdebug_synth as ks  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))

header = ks.raw_v2_header([(101, 1, "launchd"), (0x11000, 4243, "Demo")])
events, _ = ks.launch_events(1_000_000_000, 4243, 0x11000, "Demo")
with open(os.path.join(here, "synth-launch.kdebug"), "wb") as out:
    out.write(header + events)

# (timestamp, (arg1..arg4), tid, debugid), copied from the Kevent(...) tuples.
tuples = [
    # test_timing_bootstrap_start
    (2375523577973, (0, 0, 0, 0), 227140, 520552500),
    # test_timing_launch_executable
    (2375523588323, (1, 4304863232, 0, 0), 227140, 520552453),
    (2087564153638, (10894735564102884633, 11556785676805719205, 7154774016, 0), 227140, 520421376),
    (2375524298242, (1, 0, 0, 3), 227140, 520552454),
    # test_timing_func_for_add_image
    (2375525615541, (9223372036854777553, 7409344512, 6916689852, 0), 227140, 520552473),
    (2375525615595, (9223372036854777553, 0, 0, 0), 227140, 520552474),
    # test_timing_dlopen
    (2375526922507, (520617984, 8118864228242217487, 3417499243072017199, 3420891154821048652), 227157, 117506049),
    (2375526922509, (5072588517250003536, 7742373267996762482, 5072579785478188915, 8315178114207400787), 227157,
     117506048),
    (2375526922512, (7021787118631348595, 4697091075611256173, 8017343323464036464, 8028074750225051757), 227157,
     117506048),
    (2375526922515, (110, 0, 0, 0), 227157, 117506050),
    (2375526922532, (9223372036854777896, 8118864228242217487, 256, 0), 227157, 520617985),
    (2375526922543, (520617984, 8118864228242217487, 0, 0), 227157, 117506051),
    (2375526922709, (9223372036854777896, 234552705, 0, 0), 227157, 520617986),
]
with open(os.path.join(here, "pykdebugparser-dyld.kdebug"), "wb") as out:
    for ts, args, tid, debugid in tuples:
        out.write(ks.KD_BUF.pack(ts, *args, tid, debugid, 0, 0))
