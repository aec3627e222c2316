import Foundation
import LaunchBench
import TestSupport
import Testing

@Suite(.tags(.subprocess)) struct AppBundleReadingTests {
    private let root: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "launchbench-bundle-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    private static let info: [String: String] = [
        "CFBundleIdentifier": "com.example.sample", "CFBundleShortVersionString": "2.1", "CFBundleVersion": "345",
        "CFBundleExecutable": "Sample",
    ]

    /// Writes `<name>.app` with an Info.plist in the given format and some embedded frameworks.
    @discardableResult
    private func makeApp(
        _ name: String = "Sample", in folder: URL? = nil, info: [String: String] = info,
        format: PropertyListSerialization.PropertyListFormat = .xml, frameworks: [String] = []
    ) throws -> URL {
        let app = (folder ?? root).appendingPathComponent("\(name).app")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        let data = try PropertyListSerialization.data(fromPropertyList: info, format: format, options: 0)
        try data.write(to: app.appendingPathComponent("Info.plist"))
        try Data("binary".utf8).write(to: app.appendingPathComponent(info["CFBundleExecutable"] ?? "x"))
        for framework in frameworks {
            let url = app.appendingPathComponent("Frameworks/\(framework)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data().write(to: url.appendingPathComponent("placeholder"))
        }
        return app
    }

    /// Zips `folder`'s `Payload` into an .ipa with the system `zip`, as Scripts/make-ipa does.
    private func zipPayload(in folder: URL, to name: String = "Sample.ipa") throws -> URL {
        let ipa = root.appendingPathComponent(name)
        let zip = Process()
        zip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        zip.arguments = ["zip", "-qry", ipa.path, "Payload"]
        zip.currentDirectoryURL = folder
        try zip.run()
        zip.waitUntilExit()
        try #require(zip.terminationStatus == 0, "zip failed; run Scripts/bootstrap")
        return ipa
    }

    private func reason(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let LaunchBenchError.notAnApp(_, reason) {
            return reason
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func readsAnAppFolder(format: PropertyListSerialization.PropertyListFormat) throws {
        let app = try makeApp(format: format, frameworks: ["Zeta.framework", "Alpha.framework", "libBeta.dylib"])
        let bundle = try AppBundle(contentsOf: app)
        #expect(bundle.bundleID == "com.example.sample")
        #expect(bundle.shortVersion == "2.1" && bundle.build == "345" && bundle.versionDescription == "2.1 (345)")
        #expect(bundle.executable == "Sample" && bundle.bundleName == "Sample.app")
        #expect(bundle.frameworks == ["Alpha.framework", "Zeta.framework", "libBeta.dylib"])
        #expect(bundle.packaging == .appFolder)
    }

    @Test func readsAnIPA() throws {
        let staging = root.appendingPathComponent("staging")
        try makeApp(in: staging.appendingPathComponent("Payload"), format: .binary, frameworks: ["Core.framework"])
        let ipa = try zipPayload(in: staging)
        let bundle = try AppBundle(contentsOf: ipa)
        #expect(bundle.packaging == .ipa && bundle.url == ipa.standardizedFileURL)
        #expect(bundle.bundleID == "com.example.sample" && bundle.build == "345")
        #expect(bundle.bundleName == "Sample.app" && bundle.frameworks == ["Core.framework"])
    }

    @Test func missingVersionsAreEmptyNotInvented() throws {
        let app = try makeApp(info: ["CFBundleIdentifier": "a.b", "CFBundleExecutable": "B"])
        let bundle = try AppBundle(contentsOf: app)
        #expect(bundle.shortVersion == "" && bundle.build == "" && bundle.frameworks == [])
    }

    @Test func rejectsWhatIsNotAnApp() throws {
        #expect(throws: LaunchBenchError.fileNotFound(path: root.appendingPathComponent("nope.app").path, what: "App"))
        {
            try AppBundle(contentsOf: root.appendingPathComponent("nope.app"))
        }
        let text = root.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: text)
        #expect(reason { _ = try AppBundle(contentsOf: text) }?.contains("not a zip") == true)

        let empty = root.appendingPathComponent("Empty.app")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(reason { _ = try AppBundle(contentsOf: empty) }?.contains("no Info.plist") == true)

        let noID = try makeApp("NoID", info: ["CFBundleExecutable": "X"])
        #expect(reason { _ = try AppBundle(contentsOf: noID) }?.contains("CFBundleIdentifier") == true)

        let garbage = try makeApp("Garbage")
        try Data("{ not a plist".utf8).write(to: garbage.appendingPathComponent("Info.plist"))
        #expect(reason { _ = try AppBundle(contentsOf: garbage) }?.contains("not a property list") == true)
    }

    @Test func rejectsAnIPAWithoutExactlyOneApp() throws {
        let none = root.appendingPathComponent("none")
        try FileManager.default.createDirectory(
            at: none.appendingPathComponent("Payload/readme"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: none.appendingPathComponent("Payload/readme/file.txt"))
        let noApp = try zipPayload(in: none, to: "NoApp.ipa")
        #expect(reason { _ = try AppBundle(contentsOf: noApp) }?.contains("no Payload/<Name>.app") == true)

        let two = root.appendingPathComponent("two")
        try makeApp("One", in: two.appendingPathComponent("Payload"))
        try makeApp("Two", in: two.appendingPathComponent("Payload"))
        let twoApps = try zipPayload(in: two, to: "Two.ipa")
        let message = reason { _ = try AppBundle(contentsOf: twoApps) }
        #expect(message?.contains("One.app, Two.app") == true)

        let description = LaunchBenchError.notAnApp(path: "/x.ipa", reason: "r").errorDescription ?? ""
        #expect(description.contains("/x.ipa") && description.contains("Payload/<Name>.app"))
    }
}
