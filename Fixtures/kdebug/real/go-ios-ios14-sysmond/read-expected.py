#!/usr/bin/env python3
"""An independent reading of the go-ios capture (kdebug-rawv2-decoded.bin): every exec and its dyld launch.

Written from the formats' sources, not from launchbench's code:
- RAW_VERSION2 (xnu bsd/sys/kdebug.h RAW_header; kperf's 64-bit layout as pykdebugparser reads it): u32 version
  0x55aa0200, u32 thread count, tick frequency u64 at 0x18, 32-byte thread map entries from 0x20, records from
  the next 4 KiB boundary, 64 bytes each: u64 timestamp, arg1..arg4, u64 thread, u32 debugid, u32 cpu, u64 unused.
- xnu bsd/sys/kdebug.h: TRACE_DATA_EXEC 0x07000008 (arg1 = pid), TRACE_STRING_EXEC 0x07010008 (the name, packed
  little-endian in arg1..arg4). DBG_FUNC_START = 1, DBG_FUNC_END = 2 in the debugid's low bits.
- dyld-832.7.3 dyld3/Tracing.h:43-56: KDBG_CODE(DBG_DYLD=31, 7, n) for STATIC_INITIALIZER 0, LAUNCH_EXECUTABLE 1,
  MAP_IMAGE 2, APPLY_FIXUPS 3, ATTACH_CODESIGNATURE 4, BUILD_CLOSURE 5, OBJC_INIT 8, OBJC_MAP 9,
  BOOTSTRAP_START 13; Tracing.cpp:106-127: a START and its END carry the same trace id in arg1.
The columns follow Documentation/Kdebug.md's definitions (an interval set counts its union once).
Prints JSON: one object per exec, in file order.
"""
import json, struct, sys

path = sys.argv[1]
b = open(path, 'rb').read()
version, threads = struct.unpack_from('<II', b, 0)
assert version == 0x55AA0200, hex(version)
frequency, = struct.unpack_from('<Q', b, 0x18)
first = (0x20 + threads * 32 + 4095) // 4096 * 4096
records = [struct.unpack_from('<QQQQQQII', b, first + 64 * i) for i in range((len(b) - first) // 64)]

def ms(ticks):
    return ticks * 1000 / frequency

def dyld_code(debugid):
    return (debugid & 0x3FFC) >> 2 if debugid >> 16 == 0x1F07 else None

def union_ms(intervals):
    total, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return ms(total)

launches = []
for i, (ts, a1, a2, a3, a4, tid, debugid, cpu) in enumerate(records):
    if debugid != 0x07000008:
        continue
    name = b''
    for r in records[i + 1:]:
        if r[6] == 0x07010008 and r[5] == tid:
            name = b''.join(struct.pack('<Q', x) for x in r[1:5]).split(b'\0')[0]
            break
    open_by_id, intervals, bootstrap, main, mode = {}, {}, None, None, None
    for r in records[i + 1:]:
        if r[5] != tid:
            continue
        if r[6] == 0x07000008:
            break  # the thread exec'd again: a new launch
        code = dyld_code(r[6])
        if code is None:
            continue
        kind = r[6] & 3
        if code == 13:
            bootstrap = r[0]
        elif kind == 1:
            open_by_id[(code, r[1])] = r[0]
        elif kind == 2 and (code, r[1]) in open_by_id:
            start = open_by_id.pop((code, r[1]))
            if code == 1:
                main, mode = r[0], r[4]
                break
            intervals.setdefault(code, []).append((start, r[0]))
    def column(*codes):
        found = [iv for c in codes for iv in intervals.get(c, [])]
        return union_ms(found) if found else None
    launches.append({
        'executable': name.decode(), 'pid': a1, 'dyld_mode': mode,
        'total_premain_ms': ms(main - ts) if main else None,
        'process_creation_ms': ms(bootstrap - ts) if bootstrap else None,
        'dylib_loading_ms': column(2, 4), 'rebase_binding_ms': column(3), 'objc_setup_ms': column(9),
        'initializer_intervals_ms': column(0, 8), 'closure_build_ms': column(5),
    })
print(json.dumps(launches, indent=2))
