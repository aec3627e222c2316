import ArgumentParser
import Foundation
import LaunchBench
import Testing

@testable import launchbench

/// `run NEW --against BASE`'s bad input, in-process: each is refused with exit 64 before any device is asked.
@Suite struct AgainstOptionTests {
    /// An `.app` folder with `bundleID` and `build`, in a fresh temporary folder.
    private static func app(bundleID: String, build: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("against-\(UUID().uuidString)/Sample.app")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let info = [
            "CFBundleIdentifier": bundleID, "CFBundleExecutable": "Sample", "CFBundleShortVersionString": "1.0",
            "CFBundleVersion": build,
        ]
        try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0)
            .write(to: url.appendingPathComponent("Info.plist"))
        try Data("executable \(build)".utf8).write(to: url.appendingPathComponent("Sample"))
        return url
    }

    @Test func anotherAppIsRefusedNamingBothBundleIDs() async throws {
        let new = try Self.app(bundleID: "com.example.new", build: "2")
        let other = try Self.app(bundleID: "com.example.other", build: "1")
        defer {
            for url in [new, other] { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        }
        let output = new.deletingLastPathComponent().appendingPathComponent("results")
        let ending = await InProcessCommand.run(["run", new.path, "--against", other.path, "--output", output.path])
        #expect(ending.status == ExitStatus.usage.rawValue)
        let message = try #require(ending.message)
        #expect(
            message.contains("its bundle id is com.example.other, the app's (NEW) is com.example.new"), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test(arguments: [
        (
            ["--baseline", "B"],
            "Use either --against BASE.app (both builds measured in this run, paired) or --baseline"
        ),
        (["--cold", "none"], "--cold none cannot apply"), (["--cold", "reboot"], "--cold reboot cannot apply"),
    ])
    func aConflictingOptionIsRefused(arguments: [String], named: String) throws {
        let refusal = try #require(
            CommandParsingTests.refusal(["run", "NEW.app", "--against", "BASE.app"] + arguments))
        #expect(refusal.status == ExitStatus.usage.rawValue)
        #expect(refusal.message.contains(named), "\(refusal.message)")
    }

    @Test func untilVerdictTakesAgainstAsItsComparisonAndPairsUpTo40() throws {
        let parsed = try LaunchBenchCommand.parseAsRoot(["run", "NEW.app", "--against", "BASE.app", "--until-verdict"])
        let run = try #require(parsed as? Run)
        #expect(run.gate.pairedDesign == PairedSequentialVerdict(minimumPairs: 5, maxPairs: 40))
        #expect(run.gate.design == nil)
        #expect(CommandParsingTests.refusal(["run", "NEW.app", "--against", "BASE.app", "--junit", "g.xml"]) == nil)
    }

    @Test func theSameBuildTwiceHasOneDigest() throws {
        let new = try Self.app(bundleID: "com.example.same", build: "3")
        let copy = try Self.app(bundleID: "com.example.same", build: "3")
        let other = try Self.app(bundleID: "com.example.same", build: "4")
        defer {
            for url in [new, copy, other] {
                try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
            }
        }
        let digests = try [new, copy, other].map { try AppBundle(contentsOf: $0).contentDigest() }
        #expect(digests[0] == digests[1])
        #expect(digests[0] != digests[2])
    }
}
