extension Duration {
    /// The whole duration in seconds, fraction included (`components.seconds` alone drops it: 0.5 s is 0).
    package var totalSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// `seconds` as a duration that cannot trap: not a number or below 0 is zero, and anything past a
    /// billion seconds (31 years) is a billion seconds (`Int64(seconds * 1e9)` traps from about 9.2e9 s).
    /// - Parameter seconds: a duration in seconds, e.g. from an option or a file.
    package static func seconds(clamping seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        let bounded = min(seconds, 1e9)
        let whole = bounded.rounded(.down)
        return .seconds(Int64(whole)) + .nanoseconds(Int64(((bounded - whole) * 1e9).rounded()))
    }
}
