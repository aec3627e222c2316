import Foundation
import Testing

@testable import LaunchBench

/// iOS 27's dyld source is not public: a device on it is measured as an iOS 26 one, and its notes (run.json, the
/// summary under the device, stderr) say what is assumed from 26 and that its preloading makes a launch after a
/// reinstall less cold than it looks.
@Suite struct NewerIOSAdviceTests {
    static func notes(_ version: String) -> [String] {
        let device = DeviceInfo(
            udid: "00008030-001A2D4E0C388008", name: "Phone", productType: "iPhone18,3", osVersion: version,
            buildVersion: "24A100")
        let plan = PrelaunchLabelTests.plan(.reinstall)
        // The engine a host with pymobiledevice3 gives every phone (iOS 17+ need it).
        let engine = EngineChoice.decide(
            for: device, selection: .auto,
            host: EngineHost(isMacOS: false, pymobiledevice3: "/venv/bin/pymobiledevice3"))
        guard case .measure(let notes) = DeviceAdvice.advice(for: device, plan: plan, engine: engine, readsKdebug: true)
        else {
            return []
        }
        return notes
    }

    @Test func anIOS27DeviceSaysWhatIsAssumedFrom26() throws {
        let note = try #require(Self.notes("27.1").first { $0.contains("assumed from iOS 26") })
        #expect(note.contains("iOS 27.1 is newer than any iOS launchbench was built from"))
        #expect(note.contains("dyld-1378") && note.contains("`launchbench doctor` checks them"))
        for fact in OSVersion.factsAssumedFromNewestKnown { #expect(note.contains(fact)) }
        #expect(note.contains("preloads the data apps need when opened") && note.contains("less cold"))
        // Measured as 26 is: its other note (kdebug's phases) is 26's, with its version.
        #expect(
            Array(Self.notes("27.1").dropLast())
                == Self.notes("26.1").map { $0.replacingOccurrences(of: "iOS 26.1", with: "iOS 27.1") })
    }

    @Test func iOS26AndOlderSayNothingOfIt() {
        for version in ["26.1", "18.6", "16.7", "12.5.7"] {
            #expect(!Self.notes(version).contains { $0.contains("assumed from iOS 26") }, "\(version)")
        }
    }
}
