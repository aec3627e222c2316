/// Where a launch's pre-main phases came from.
package enum PremainSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The statistics dyld prints with `DYLD_PRINT_STATISTICS=1` (iOS ≤ 12; 13–14 with an override variable).
    case dyldStatistics = "dyld-statistics"
    /// dyld4's own timing events in the kernel trace, read through the instruments service (iOS 14+).
    case kdebug
    /// None, where the device would have had one: its kdebug session did not start under `--premain auto`
    /// (pymobiledevice3 missing, kperf held by Instruments or Xcode, the session refused or late). Each launch
    /// says why in a warning and run.json in the device's `premain_reason`, so it is never left empty; the gate
    /// treats it as a change of source. Not `none` in Swift: `PremainSource?.none` would be ambiguous.
    case notMeasured = "none"
}

/// `--premain`: which pre-main source to use on each device.
package enum PremainSelection: String, Sendable, Hashable, Codable, CaseIterable {
    /// dyld's statistics where they print, kdebug elsewhere (from iOS 14, where the instruments service is
    /// reached with TLS over lockdown, or through the iOS 17+ tunnel).
    case auto
    case dyldStatistics = "dyld-statistics"
    case kdebug

    /// Whether `auto` also reads kdebug where dyld prints its statistics and the instruments service is
    /// reachable (iOS 14 with an override variable), to check the two sources of each launch against each other.
    func crossChecks(_ version: OSVersion?, setsDyldOverride: Bool) -> Bool {
        self == .auto && version?.major == 14 && setsDyldOverride
    }

    /// The source for a device on `version`; `nil` when none gives pre-main phases there (iOS 13 without an
    /// override variable under `auto`: its instruments service is the pre-14 one, which is untested).
    /// - Parameter setsDyldOverride: whether the run's environment forces dyld3 onto the printing path.
    package func source(for version: OSVersion?, setsDyldOverride: Bool) -> PremainSource? {
        switch self {
        case .dyldStatistics: return .dyldStatistics
        case .kdebug: return .kdebug
        case .auto:
            guard let version else { return .dyldStatistics }
            if version.dyldStatistics.prints(withOverride: setsDyldOverride) { return .dyldStatistics }
            return version.major >= 14 ? .kdebug : nil
        }
    }
}
