import Foundation
import Testing

@testable import LaunchBench

/// `ImageStatistics` against values computed by hand from the captures in `Fixtures/dyld/`.
@Suite struct ImageStatisticsTests {
    /// A summary block with a UTF-8, spaced image name (padded by bytes, as dyld does).
    static let unicodeCapture = """
        Total pre-main time: 125.00 milliseconds (100.0%)
                 dylib loading time:  50.00 milliseconds (40.0%)
                rebase/binding time:  10.00 milliseconds (8.0%)
                    ObjC setup time:  10.00 milliseconds (8.0%)
                   initializer time:  55.00 milliseconds (44.0%)
                   slowest intializers :
                            Networking :  40.00 milliseconds (32.0%)
                Ünïcødé Kit :  12.50 milliseconds (10.0%)

        """

    static let networking = "Frameworks/Networking.framework/Networking"
    static let unicodeKit = "Frameworks/Ünïcødé Kit.framework/Ünïcødé Kit"

    static func sample(
        _ record: LaunchRecord, bundleImages: [String], status: SampleStatus = .ok, kind: LaunchKind = .cold
    ) -> Sample {
        Sample(
            runID: "r", deviceUDID: "UDID-1", deviceName: "Ana's iPhone", productType: "iPhone12,3", osVersion: "13.1",
            appBundleID: "com.example.app", appVersion: "1.0 (1)", iteration: 1, kind: kind, status: status,
            metrics: record.metrics, startedAt: Date(timeIntervalSince1970: 0), bundleImages: bundleImages,
            initializers: record.imageInitializers)
    }

    /// Seven launches: four of capture 01 (Networking listed in each), one of capture 08 (only ServiceCore),
    /// one with a UTF-8 spaced name, one from iOS 15 (no statistics at all), plus a crashed one.
    static func samples() throws -> [Sample] {
        let four = LaunchLogParser.parse(try ParserFixtures.bytes("01-ios13.1-iphone11pro-four-runs-back-to-back.txt"))
        let one = LaunchLogParser.parse(
            try ParserFixtures.bytes("08-iphone8-only-app-framework-in-slowest-trailing-blank.txt"))
        let unicode = LaunchLogParser.parse(Array(unicodeCapture.utf8))
        let dyld4 = LaunchLogParser.parse(try ParserFixtures.bytes("33-ios15-plus-dyld4-nothing-printed.txt"))
        #expect(four.count == 4 && one.count == 1 && unicode.count == 1)
        var samples = four.map { sample($0, bundleImages: ["App", networking]) }
        samples += one.map { sample($0, bundleImages: ["App"]) }
        samples += unicode.map { sample($0, bundleImages: ["App", networking, unicodeKit]) }
        samples.append(sample(dyld4.first ?? LaunchRecord(), bundleImages: ["App", networking]))
        samples.append(
            sample(four[0], bundleImages: ["App", networking, "Frameworks/Crash.framework/Crash"], status: .crashed))
        return samples
    }

    @Test func aggregatesInitializersByImageOverTheLaunchesThatListedThem() throws {
        let stats = ImageStatistics(samples: try Self.samples())
        #expect(stats.launches == 7)  // the crashed launch is left out
        #expect(stats.launchesWithInitializerList == 6)  // iOS 15 printed none
        #expect(stats.launchesWithLibraries == 7)
        let byName = Dictionary(uniqueKeysWithValues: stats.images.map { ($0.image, $0) })

        // libSystem: 5.91, 22.90, 5.78, 5.77 → sorted 5.77 5.78 5.91 22.90; median (5.78+5.91)/2;
        // p90 at h = 2.7: 5.91 + 0.7·(22.90 − 5.91).
        let libSystem = try #require(byName["libSystem.B.dylib"])
        #expect(!libSystem.inBundle && libSystem.launchesListed == 4 && libSystem.launchesLoaded == 0)
        #expect(abs(libSystem.medianInitializerMs! - 5.845) < 1e-9)
        #expect(abs(libSystem.p90InitializerMs! - 17.803) < 1e-9)

        // Networking, joined to its bundle path: 32.91 39.54 29.86 30.36 and 40.00 → median 32.91,
        // p90 at h = 3.6: 39.54 + 0.6·0.46. Loaded in 6 launches (iOS 15 too), listed in 5.
        let net = try #require(byName[Self.networking])
        #expect(net.inBundle && net.launchesLoaded == 6 && net.launchesListed == 5)
        #expect(abs(net.medianInitializerMs! - 32.91) < 1e-9)
        #expect(abs(net.p90InitializerMs! - 39.816) < 1e-9)

        // Listed in one launch only: its own time, never padded with zeros for the others.
        let service = try #require(byName["ServiceCore"])
        #expect(!service.inBundle && service.launchesListed == 1 && service.medianInitializerMs == 417.15)
        let unicode = try #require(byName[Self.unicodeKit])
        #expect(unicode.inBundle && unicode.launchesListed == 1 && unicode.launchesLoaded == 1)
        #expect(unicode.medianInitializerMs == 12.5)

        // The executable, loaded but never listed: no time rather than 0.
        let app = try #require(byName["App"])
        #expect(app.launchesLoaded == 7 && app.launchesListed == 0 && app.medianInitializerMs == nil)
        #expect(byName["Frameworks/Crash.framework/Crash"] == nil)

        #expect(stats.bundleDylibs == [Self.networking, Self.unicodeKit])
        #expect(
            stats.initializers.map(\.image) == [
                "ServiceCore", Self.networking, Self.unicodeKit, "libBacktraceRecording.dylib", "libSystem.B.dylib",
            ])  // 9.08 > 5.845
    }

    @Test func detailsAndOldFormatListsAreUsedAndPreferred() throws {
        let text = """
            total time: 2.2 seconds (100.0%)
            total images loaded:  323 (309 from dyld shared cache)
            total images loading time: 1.3 seconds (60.8%)
            total initializer time: 400.00 milliseconds (18.0%)
                      libSystem.B.dylib : 10.00 milliseconds (0.4%)
                               My Kit : 390.00 milliseconds (17.6%)
            total symbol trie searches:    12345
            total symbol table binary searches:    0
            total images defining weak symbols:  30
            total images using weak symbols:  70

            """
        let records = LaunchLogParser.parse(Array(text.utf8))
        let record = try #require(records.first)
        #expect(record.details != nil)
        #expect(record.imageInitializers?.map(\.image) == record.details?.imageInitializers.map(\.image))
        let stats = ImageStatistics(samples: [Self.sample(record, bundleImages: ["Frameworks/My Kit.framework/My Kit"])]
        )
        #expect(stats.images.first?.image == "Frameworks/My Kit.framework/My Kit")
        #expect(stats.images.first?.medianInitializerMs == 390)
    }

    @Test func samplesKeepTheListAndOlderSamplesReadAsNotRecorded() throws {
        let sample = try Self.samples()[0]
        let data = try JSONCoding.encoder().encode(sample)
        let back = try JSONCoding.decoder().decode(Sample.self, from: data)
        #expect(back.initializers == sample.initializers)
        #expect(back.initializers?.count == 3)
        var old = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        old.removeValue(forKey: "initializers")
        let oldSample = try JSONCoding.decoder().decode(Sample.self, from: JSONSerialization.data(withJSONObject: old))
        #expect(oldSample.initializers == nil)
    }

    @Test func imagesCSVNeutralisesFormulasAndLeavesUnlistedTimesEmpty() throws {
        var samples = try Self.samples()
        samples[0].bundleImages.append("=HYPERLINK(\"x\")")
        let text = ImagesCSV.csv(RunSummary(samples: samples)).text
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines[0] == ImagesCSV.header.joined(separator: ","))
        #expect(lines.contains("UDID-1,cold,\(Self.networking),true,7,6,5,32.91,39.816,,"))
        #expect(lines.contains("UDID-1,cold,App,true,7,7,0,,,,"))
        #expect(lines.contains("UDID-1,cold,\"'=HYPERLINK(\"\"x\"\")\",true,7,1,0,,,,"))
        #expect(lines.contains("UDID-1,cold,ServiceCore,false,7,0,1,417.15,417.15,,"))
    }

    @Test func htmlAndTextNameTheCausesAndEscapeImageNames() throws {
        var samples = try Self.samples()
        samples[0].initializers?.append(InitializerTime(image: "<script>alert(1)</script>", ms: 999))
        let folder = ResultsFolder(url: URL(fileURLWithPath: "/tmp/x"), manifest: nil, samples: samples)
        let html = HTMLReport.render(folder, summary: folder.summary)
        #expect(html.contains("What to look at"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("Embedded dylibs loaded at launch: 2, within Apple&#39;s advice of at most about 6"))
        let text = SummaryTextReport.render(folder.summary)
        #expect(text.contains("What to look at (cold):"))
        #expect(
            text.contains(
                "Slowest initializers (median over the launches listing them): <script>alert(1)</script> 999.0 ms (1/6 launches), ServiceCore 417."
            ))
        let terminal = TerminalSummary.render(folder.summary, color: false)
        #expect(terminal.contains("cold phases (median): dylib loading"))
    }
}

/// Samples from before the initializer list was kept get it from their logs.
@Suite struct InitializerRecoveryTests {
    @Test func anOlderSampleGetsItsListFromItsLog() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("recover-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("logs/UDID-1"), withIntermediateDirectories: true)
        let log = try ParserFixtures.bytes("08-iphone8-only-app-framework-in-slowest-trailing-blank.txt")
        try Data(log).write(to: dir.appendingPathComponent("logs/UDID-1/0001-cold.log"))
        let record = LaunchLogParser.parse(log)[0]
        var old = ImageStatisticsTests.sample(record, bundleImages: [])
        old.initializers = nil
        old.logPath = "logs/UDID-1/0001-cold.log"
        var escaping = old
        escaping.iteration += 1  // another launch: a repeated one is read once
        escaping.logPath = "../0001-cold.log"  // never read outside the folder
        var noLog = old
        noLog.iteration += 2
        noLog.logPath = "logs/UDID-1/missing.log"
        let lines = try [old, escaping, noLog].map {
            String(decoding: try JSONCoding.encoder().encode($0), as: UTF8.self)
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: dir.appendingPathComponent("samples.jsonl"))

        let folder = try ResultsFolder.loadSamples(dir)
        try #require(folder.samples.count == 3)
        #expect(folder.samples[0].initializers == [InitializerTime(image: "ServiceCore", ms: 417.15)])
        #expect(folder.samples[1].initializers == nil)
        #expect(folder.samples[2].initializers == nil)
    }
}
