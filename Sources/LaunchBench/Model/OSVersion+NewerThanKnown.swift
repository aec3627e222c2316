/// An iOS newer than the newest whose facts launchbench follows. iOS 27's dyld source is not public: the newest
/// published dyld, dyld-1378, is most likely iOS 26.5's, and no iOS 27 phone has been checked. So on iOS 27 and
/// later every fact launchbench reads a phone by is assumed from iOS 26, and every output for such a device
/// says so (Documentation/RealPhoneStatus.md#ios-27).
extension OSVersion {
    /// The newest iOS major whose dyld source is published (dyld-1378) and whose facts the emulator follows.
    package static let newestKnownMajor = 26

    /// Whether this iOS is newer than any launchbench's facts come from.
    package var isNewerThanKnown: Bool { major > Self.newestKnownMajor }

    /// Whether this iOS preloads the data apps need when opened, before the user opens them: Apple said at
    /// WWDC26 that iOS 27 launches apps up to 30 % faster so, third-party apps included. A launch after a
    /// reinstall may find that data already read, so it is less cold than it looks.
    package var preloadsAppData: Bool { major >= 27 }

    /// The facts assumed from iOS 26 on this iOS, as `doctor` names the rows that check them.
    package static let factsAssumedFromNewestKnown = [
        "dyld's kdebug events and phases (dyld-1378)", "UIKit's first-frame code", "process control",
        "the tunnel (CoreDeviceProxy)",
    ]

    /// What every output for a device on this iOS says (run.json's device notes, the summary under the device,
    /// stderr at the start); `nil` up to iOS 26.
    package var assumedFactsNote: String? {
        guard isNewerThanKnown else { return nil }
        var note =
            "iOS \(self) is newer than any iOS launchbench was built from (the newest published dyld, dyld-1378, "
            + "is most likely iOS 26.5's): assumed from iOS 26 until a phone confirms them ("
            + "`launchbench doctor` checks them): "
            + Self.factsAssumedFromNewestKnown.joined(separator: ", ") + "."
        if preloadsAppData {
            note +=
                " iOS \(major) preloads the data apps need when opened (WWDC26), so a launch after a reinstall may "
                + "be less cold than it looks: a launch with the app's exec seen before it is labelled prelaunch "
                + "and left out of the numbers; a preload that only reads files is not seen."
        }
        return note
    }
}
