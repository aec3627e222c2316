/// The ratio that turns mach ticks into nanoseconds (`mach_timebase_info`: ns = ticks × numer / denom).
/// A host gets it from the device (DVT `deviceinfo` `machTimeInfo` = `[abs, numer, denom]`).
package struct MachTimebase: Hashable, Sendable, CustomStringConvertible {
    /// The numerator.
    package let numer: UInt32
    /// The denominator, never 0.
    package let denom: UInt32

    /// arm64 iPhones: 125/3, 41.67 ns per tick (24 MHz), as pymobiledevice3's `activity_trace_tap.py` hard-codes.
    package static let iPhone = MachTimebase(numer: 125, denom: 3)!
    /// One tick is one nanosecond (Intel Macs, the iOS simulator on them).
    package static let nanoseconds = MachTimebase(numer: 1, denom: 1)!

    /// A timebase from the device's numerator and denominator.
    /// - Parameters:
    ///   - numer: the numerator.
    ///   - denom: the denominator.
    /// - Returns: nil when either is 0.
    package init?(numer: UInt32, denom: UInt32) {
        guard numer > 0, denom > 0 else { return nil }
        self.numer = numer
        self.denom = denom
    }

    /// A timebase from a tick frequency in Hz, such as a RAW_VERSION2 header's `tick_frequency`
    /// (24 000 000 gives 125/3). Whether a device fills that field with the mach clock's rate is unverified.
    /// - Parameter tickFrequency: ticks per second.
    /// - Returns: nil when 0, or when the reduced ratio does not fit in 32 bits.
    package init?(tickFrequency: UInt64) {
        guard tickFrequency > 0 else { return nil }
        var (a, b) = (UInt64(1_000_000_000), tickFrequency)
        while b != 0 { (a, b) = (b, a % b) }
        let (numer, denom) = (1_000_000_000 / a, tickFrequency / a)
        guard numer <= UInt32.max, denom <= UInt32.max else { return nil }
        self.init(numer: UInt32(numer), denom: UInt32(denom))
    }

    /// A tick count in nanoseconds.
    /// - Parameter ticks: mach ticks, usually a difference of two timestamps.
    /// - Returns: nanoseconds (a Double: 2⁵³ ns is 104 days, so no launch loses precision).
    package func nanoseconds(_ ticks: UInt64) -> Double {
        Double(ticks) * Double(numer) / Double(denom)
    }

    /// A tick count in milliseconds.
    /// - Parameter ticks: mach ticks, usually a difference of two timestamps.
    /// - Returns: milliseconds.
    package func milliseconds(_ ticks: UInt64) -> Double {
        nanoseconds(ticks) / 1_000_000
    }

    /// The signed time from one timestamp to another, in milliseconds.
    /// - Parameters:
    ///   - start: the earlier timestamp, ticks.
    ///   - end: the later timestamp, ticks.
    /// - Returns: negative when `end` is before `start`.
    package func milliseconds(from start: UInt64, to end: UInt64) -> Double {
        end >= start ? milliseconds(end - start) : -milliseconds(start - end)
    }

    /// `125/3`.
    package var description: String { "\(numer)/\(denom)" }
}
