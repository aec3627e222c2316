/// The largest values the commands' durations and counts accept (Documentation/Commands.md, "Limits").
///
/// Each is far beyond any real launch, and low enough that every conversion to a `Duration` or an integer
/// stays exact: a value past one is refused with exit 64 (naming the option, the value and the ceiling)
/// instead of trapping in a conversion or waiting for years. The readers bound a recorded `--timeout` by
/// the same ceiling, so a hand-edited run.json cannot widen what a launch time may be.
package enum OptionCeilings {
    /// `run --timeout`: an hour. A launch still running after that is a hang, not a launch time.
    package static let timeoutSeconds = 3600.0
    /// `run --settle`: an hour of waiting after a reboot, before the cold launch.
    package static let settleSeconds = 3600.0
    /// `run --grace`: a minute of reading after a launch is complete (it must also stay below `--timeout`).
    package static let graceSeconds = 60.0
    /// `run --iterations` and `--max-iterations`.
    package static let iterations = 100_000
    /// `run --warm`: warm launches after each cold one.
    package static let warmLaunches = 1_000
    /// `run --timeout`'s floor: a second. No launch, not even a warm one on a new phone, ends sooner, so a
    /// shorter wait would time every launch out and measure nothing.
    package static let timeoutFloorSeconds = 1.0
    /// `run --require-poll`'s floor: a second. Each poll is a lockdown and a diagnostics_relay request; a
    /// phone asked faster (1e-300 s gave 3,564 battery queries in 3 s) spends its time answering.
    package static let requirePollFloorSeconds = 1.0
    /// `run --target-precision`'s floor, %: below a tenth of a percent no phone's launches get there, so
    /// the run would only ever stop at --max-iterations.
    package static let targetPrecisionFloor = 0.1
    /// `emulator --time-scale`: real seconds per emulated second.
    package static let timeScale = 100.0
    /// `emulator --time-scale`'s floor: a thousand times faster than real time. Below it the emulated clocks
    /// (uptime divided by the scale, in ns) leave the 64-bit range within days of uptime.
    package static let timeScaleFloor = 0.001

    /// Why `seconds` is not a duration `option` accepts (not finite, below `minimum`, or past `ceiling`), in
    /// words that name the option, the value and the limits; `nil` when it is accepted.
    /// - Parameters:
    ///   - option: the flag as typed, e.g. `--timeout`.
    ///   - example: a good value for the message, e.g. `30`.
    ///   - allowsZero: whether 0 is accepted (else the value must be above 0).
    ///   - minimum: the floor, when there is one above 0.
    package static func problem(
        seconds: Double, option: String, ceiling: Double, allowsZero: Bool, minimum: Double? = nil, example: String
    ) -> String? {
        let ceilingText = DecimalText.fixed(ceiling, maxFractionDigits: 3)
        let range =
            minimum.map { "from \(DecimalText.fixed($0, maxFractionDigits: 3)) to \(ceilingText) seconds" }
            ?? (allowsZero ? "from 0 to \(ceilingText) seconds" : "a number of seconds above 0, at most \(ceilingText)")
        guard seconds.isFinite, allowsZero ? seconds >= 0 : seconds > 0, seconds >= (minimum ?? 0) else {
            return "\(option) \(seconds) must be \(range), e.g. \(option) \(example)."
        }
        guard seconds <= ceiling else {
            return "\(option) \(seconds) is beyond the ceiling of \(ceilingText) seconds. Use \(range), e.g. "
                + "\(option) \(example)."
        }
        return nil
    }
}
