/// The time a set of dyld intervals covers, counting every tick once.
///
/// dyld nests its timers on one thread: `ATTACH_CODESIGNATURE` runs inside `MAP_IMAGE` (dyld-1042.1
/// `Loader.cpp:1144`/`:1174`; dyld-832.7.3 `dyld3/Loading.cpp:422`/`:500`), an initializer's dlopen runs inside
/// `STATIC_INITIALIZER`. Summing the intervals would count the inner time twice, so each phase is the union of
/// its intervals on each thread, added over threads (threads run at the same time, and each one's work counts).
enum IntervalCoverage {
    /// The union's length per thread, summed over threads, in mach ticks.
    static func ticks(_ intervals: [DyldInterval]) -> UInt64 {
        let byThread = Dictionary(grouping: intervals, by: \.threadID)
        return byThread.values.reduce(0) { total, intervals in
            let sorted = intervals.sorted {
                ($0.startTimestamp, $0.endTimestamp) < ($1.startTimestamp, $1.endTimestamp)
            }
            var covered: UInt64 = 0
            var open: (start: UInt64, end: UInt64)?
            for interval in sorted {
                if let current = open, interval.startTimestamp <= current.end {
                    open = (current.start, max(current.end, interval.endTimestamp))
                } else {
                    if let current = open { covered += current.end - current.start }
                    open = (interval.startTimestamp, interval.endTimestamp)
                }
            }
            if let current = open { covered += current.end - current.start }
            return total + covered
        }
    }
}
