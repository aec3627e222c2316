import Foundation

/// A small deterministic generator (SplitMix64), so a seed reproduces every launch's noise and faults. It lives
/// in the core, pure Swift, so that the emulated iPhone and the tests that model it without linking the
/// emulator draw the same numbers from one implementation.
package struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    /// A generator for one purpose of one launch: the same inputs always give the same sequence.
    package init(seed: UInt64, parts: [String]) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ seed
        for part in parts {
            for byte in part.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            hash ^= 0xFF
            hash = hash &* 0x0000_0100_0000_01B3
        }
        state = hash
    }

    package mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    package mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Standard normal (Box–Muller).
    package mutating func gaussian() -> Double {
        let u1 = max(unit(), 1e-12)
        let u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// `value` times a factor drawn around 1 with relative deviation `sd`, never below 20 % of `value`.
    package mutating func jitter(_ value: Double, sd: Double) -> Double {
        guard sd > 0, value > 0 else { return max(0, value) }
        return value * max(0.2, 1 + sd * gaussian())
    }
}
