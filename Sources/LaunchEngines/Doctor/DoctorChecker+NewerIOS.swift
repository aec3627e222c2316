import LaunchBench

extension DoctorChecker {
    /// What launchbench assumes from iOS 26 on a newer iOS, and the row of this pass that checks each.
    static let assumedFacts: [(fact: String, step: DoctorStep)] = [
        ("dyld's kdebug events and phases", .dyldEvents), ("UIKit's first-frame code", .firstFrame),
        ("process control", .launch), ("the tunnel (CoreDeviceProxy)", .tunnel),
    ]

    /// iOS 27+ (`OSVersion.isNewerThanKnown`): which facts assumed from iOS 26 this phone showed, and whether
    /// the cold launch after the reinstall found the app prelaunched (iOS 27 preloads the data apps need when
    /// opened, WWDC26). Both are facts to report, not requirements; none for iOS 26 and older.
    static func newerIOSRows(_ version: OSVersion?, sample: Sample?, rows: [DoctorRow]) -> [DoctorRow] {
        guard let version, version.isNewerThanKnown else { return [] }
        var confirmed: [String] = []
        var open: [String] = []
        for (fact, step) in assumedFacts {
            let row = rows.first { $0.step == step }
            // The launch row confirms process control only when the launch went through it.
            let holds =
                row?.state == .holds && (step != .launch || sample?.launcher == .processControl)
            if holds {
                confirmed.append(fact)
            } else {
                open.append("\(fact) (\(row?.state.rawValue ?? "not checked"))")
            }
        }
        let assumed =
            open.isEmpty
            ? DoctorRow.holds(
                .assumedFacts,
                "iOS \(version) behaves here as iOS 26 does: " + confirmed.joined(separator: ", ")
                    + " (the rows above); please report it (Documentation/RealPhoneStatus.md#ios-27)", needed: false)
            : DoctorRow.unknown(
                .assumedFacts,
                "not confirmed on this phone: " + open.joined(separator: ", ")
                    + "; launchbench assumes them from iOS 26 (dyld-1378)", needed: false)
        return [assumed, preloadRow(version, sample: sample)]
    }

    /// The prelaunch label of the cold launch after the reinstall (kdebug's execs, else the device log).
    static func preloadRow(_ version: OSVersion, sample: Sample?) -> DoctorRow {
        guard let sample, sample.status == .ok else { return .unknown(.preload, "no launch", needed: false) }
        guard let prelaunch = sample.prelaunch else {
            return .holds(
                .preload,
                "no exec of the app before the cold launch after the reinstall (a preload that only reads the app's "
                    + "files leaves no trace launchbench sees)", needed: false)
        }
        return .fails(
            .preload, "\(prelaunch.description) before the cold launch after the reinstall",
            fix: "Expected on iOS \(version.major), which preloads the data apps need when opened (WWDC26): a launch "
                + "after a reinstall there is less cold than it looks. `run` labels such launches prelaunch and leaves "
                + "them out of the numbers (--count-prelaunched keeps them).", needed: false)
    }
}
