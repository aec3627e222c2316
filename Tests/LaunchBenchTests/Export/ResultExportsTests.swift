import Foundation
import LaunchBench
import Testing

/// Reports regenerated from `Fixtures/results/mixed`: two devices (iOS 14 with dyld statistics and
/// markers; iOS 16 with markers only and the name `<script>alert(1)</script>`), a timeout, a crash,
/// a no-metrics launch, a launch missing one metric, and a last line cut off mid-write.
@Suite struct ResultExportsTests {
    static let ana = "00008030-001A2D4E0C38802E"
    static let script = "00008110-000E1C2A3C81401E"

    private func close(_ a: Double?, _ b: Double) -> Bool {
        a.map { abs($0 - b) <= 1e-9 * Swift.max(1, abs(b)) } ?? false
    }

    @Test func readsSamplesSkippingTheCutOffLastLine() throws {
        let dir = try ResultsFixture.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (folder, samples) = try ResultsFolder.loadSamples(dir)
        #expect(samples.count == 31)
        #expect(folder.summary.launchCount == 31)
        #expect(folder.manifest?.app?.bundleID == "com.example.sample")
        #expect(folder.manifest?.devices.count == 3)
        #expect(
            folder.notes.contains { $0.hasPrefix("QA iPhone 15 (00008120-001C4D2A0E42801E) was skipped: iOS 17.2") })
        #expect(folder.notes.contains { $0.contains("line 32 is cut off") })
        #expect(folder.notes.contains { $0.contains("no end time") })
    }

    @Test func statisticsOfTheFixtureMatchNumpy() throws {
        let dir = try ResultsFixture.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let summary = try ResultsFolder.load(dir).summary
        #expect(summary.devices.map(\.device.udid) == [Self.ana, Self.script])
        // run.json's outcome notes become the device's remarks; a device with samples is not also a note.
        #expect(
            summary.devices[1].remarks == [
                "iOS 16.7.2 prints no dyld statistics: launch times come from the app's markers only."
            ])
        let anaCold = try #require(summary.devices[0].kind(.cold))
        #expect(anaCold.launches == 7 && anaCold.failures == 1)
        let premain = try #require(anaCold.metrics[.totalPremainMs])
        // numpy: np.percentile(x, [25, 50, 75, 90]), x.mean(), x.std(ddof=1) over the 6 ok launches.
        #expect(premain.n == 6 && premain.failures == 1)
        #expect(close(premain.p25, 359.5125) && close(premain.median, 365.755) && close(premain.p75, 374.7725))
        #expect(
            close(premain.p90, 382.445) && close(premain.mean, 367.8133333333333)
                && close(premain.stddev, 12.83105399671698))
        #expect(premain.ci95?.low == 352.59 && premain.ci95?.high == 387.57)
        // One ok launch lacks ObjC setup (wrap artefact): 5 values, not 6 with a zero.
        let objc = try #require(anaCold.metrics[.objcSetupMs])
        #expect(objc.n == 5 && objc.min == 20 && close(objc.median, 23.08) && close(objc.p90, 27.368000000000002))
        #expect(objc.ci95 == nil)
        let anaWarm = try #require(summary.devices[0].kind(.warm)?.metrics[.firstFrameMs])
        #expect(anaWarm.n == 13 && close(anaWarm.p90, 318.56) && close(anaWarm.mean, 304.09999999999997))
        #expect(anaWarm.ci95?.low == 295.2 && anaWarm.ci95?.high == 316.8)

        // What the launches said: failure messages and warnings, once each, in order of appearance.
        #expect(
            summary.devices[0].messages.map(\.text) == [
                "The app stopped with signal 11 (SIGSEGV) before firstFrame.", "No output within 30 s (--timeout).",
                "ObjC setup time printed as the 64-bit wrap value; left out.",
            ])
        #expect(summary.devices[0].messages.map(\.launches) == [1, 1, 1])

        let scriptCold = try #require(summary.devices[1].kind(.cold))
        #expect(scriptCold.failures == 0 && scriptCold.withoutMetrics == 1)
        #expect(scriptCold.metrics[.totalPremainMs]?.n == 0)
        #expect(close(scriptCold.metrics[.firstFrameMs]?.median, 502.79999999999995))
        #expect(close(scriptCold.metrics[.wallMs]?.stddev, 608.593220468319))
    }

    @Test func writesTheFourExportsWithExactHeaders() throws {
        let dir = try ResultsFixture.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let outcome = try ResultExports.writeAll(resultsFolder: dir)
        #expect(
            outcome.written.map(\.lastPathComponent) == [
                "samples.csv", "summary.csv", "images.csv", "initializers.csv", "summary.json", "report.html",
            ])

        let samplesData = try Data(contentsOf: dir.appendingPathComponent("samples.csv"))
        #expect(Array(samplesData.prefix(3)) == [0xEF, 0xBB, 0xBF])
        let samples = CSVWriterTests.parse(try #require(String(data: samplesData.dropFirst(3), encoding: .utf8)))
        #expect(
            samples[0].joined(separator: ",")
                == "run_id,device_udid,device_name,product_type,os_version,app_bundle_id,app_version,iteration,launch_kind,status,total_premain_ms,dylib_loading_ms,rebase_binding_ms,objc_setup_ms,initializer_ms,main_ms,did_finish_launching_ms,first_frame_ms,wall_ms,process_creation_ms,closure_build_ms,page_ins,page_in_ms,zero_fill_faults,cow_faults,compressor_faults,premain_source,started_at,launcher,build,prelaunch_kind,prelaunch_source,prelaunch_reason,closure_rebuilt,set_aside,battery_percent,charging,temperature_c,free_storage_bytes,first_frame_source,stray_frame_ends"
        )
        #expect(samples.count == 32)
        let timeout = try #require(samples.first { $0[9] == "timeout" })
        #expect(timeout[10..<18].allSatisfy { $0.isEmpty }, "a failed launch has empty cells, not zeros")
        #expect(timeout[18] == "30000")
        let first = samples[1]
        #expect(first[2] == "Ana's iPhone" && first[10] == "357.89" && first[27] == "2026-11-20T10:00:01.037Z")

        let summaryText = try String(contentsOf: dir.appendingPathComponent("summary.csv"), encoding: .utf8)
        let summary = CSVWriterTests.parse(String(summaryText.drop { $0 == "\u{FEFF}" }))
        #expect(
            summary[0].joined(separator: ",")
                == "device_udid,device_name,product_type,os_version,launch_kind,metric,n,failures,min,p25,median,mean,p75,p90,max,stddev,cv_percent,ci95_low,ci95_high"
        )
        #expect(summary.count == 1 + 2 * 2 * 9)
        let row = try #require(summary.first { $0[0] == Self.ana && $0[4] == "cold" && $0[5] == "total_premain_ms" })
        #expect(
            Array(row[6...]) == [
                "6", "1", "352.59", "359.513", "365.755", "367.813", "374.773", "382.445", "387.57", "12.831", "3.488",
                "352.59", "387.57",
            ])
        let unmeasured = try #require(
            summary.first { $0[0] == Self.script && $0[4] == "warm" && $0[5] == "dylib_loading_ms" })
        #expect(unmeasured[1] == "<script>alert(1)</script>")
        #expect(Array(unmeasured[6...]) == ["0", "0"] + Array(repeating: "", count: 11))
        let small = try #require(summary.first { $0[0] == Self.script && $0[4] == "cold" && $0[5] == "first_frame_ms" })
        #expect(small[17] == "" && small[18] == "", "no 95% interval for n = 4")

        let json = try JSONCoding.decoder().decode(
            SummaryDocument.self, from: Data(contentsOf: dir.appendingPathComponent("summary.json")))
        #expect(json.schemaVersion == 1)
        #expect(json.devices.map(\.udid) == [Self.ana, Self.script])
        let anaCold = try #require(json.devices[0].launchKinds["cold"])
        #expect(anaCold.launches == 7 && anaCold.failures == 1 && anaCold.failuresByStatus == ["timeout": 1])
        #expect(close(anaCold.metrics["total_premain_ms"]?.median, 365.755))
        #expect(anaCold.metrics["objc_setup_ms"]?.ci95Low == nil)
        #expect(json.run?.appBuild == "41")
        #expect(json.notes.count == 3)
        let jsonText = try String(contentsOf: dir.appendingPathComponent("summary.json"), encoding: .utf8)
        #expect(jsonText.contains("\"ci95_low\" : null"), "absent statistics are explicit nulls")
    }

    @Test func reportsFromSamplesAloneWhenRunJSONIsMissing() throws {
        let dir = try ResultsFixture.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.removeItem(at: dir.appendingPathComponent("run.json"))
        let outcome = try ResultExports.writeAll(resultsFolder: dir)
        #expect(outcome.folder.manifest == nil)
        #expect(outcome.folder.notes.contains { $0.contains("run.json is missing") })
        #expect(outcome.summary.devices.count == 2)
        let html = try String(contentsOf: dir.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("run.json is missing"))
        #expect(html.contains("com.example.sample"))
    }

    @Test func anEmptyRunStillReports() throws {
        let dir = try ResultsFixture.emptyFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data().write(to: dir.appendingPathComponent("samples.jsonl"))
        let outcome = try ResultExports.writeAll(resultsFolder: dir)
        #expect(outcome.summary.devices.isEmpty)
        #expect(outcome.folder.notes.contains { $0.contains("no launches") })
        let summaryCSV = try String(contentsOf: dir.appendingPathComponent("summary.csv"), encoding: .utf8)
        #expect(CSVWriterTests.parse(String(summaryCSV.drop { $0 == "\u{FEFF}" })).count == 1, "header only")
        let html = try String(contentsOf: dir.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("No launches to report."))
        #expect(MarkdownReport.render(outcome.summary).contains("No launches to report."))
        #expect(TerminalSummary.render(outcome.summary, color: false).contains("No launches were measured."))
    }

    @Test func aBadLineInTheMiddleIsSkippedWithItsNumber() {
        let good =
            #"{"run_id":"r","device_udid":"U","device_name":"A","product_type":"p","os_version":"14.8","app_bundle_id":"x","app_version":"1","iteration":1,"launch_kind":"cold","status":"ok","started_at":"2026-01-01T00:00:00.000Z","total_premain_ms":400}"#
        let second = good.replacingOccurrences(of: #""iteration":1"#, with: #""iteration":2"#)
        let data = Data((good + "\n" + #"{"run_id":"r"}"# + "\n\n" + second + "\n").utf8)
        let (samples, notes) = ResultsFolder.parseSamples(data)
        #expect(samples.count == 2)
        #expect(notes.count == 1)
        #expect(notes.first?.contains("line 2") == true)
    }

    @Test func missingFolderAndMissingSamplesSayWhatToPass() throws {
        #expect(throws: LaunchBenchError.self) {
            try ResultsFolder.load(URL(fileURLWithPath: "/nonexistent/launchbench"))
        }
        let empty = try ResultsFixture.emptyFolder()
        defer { try? FileManager.default.removeItem(at: empty) }
        do {
            _ = try ResultsFolder.load(empty)
            Issue.record("an empty folder must not load")
        } catch let error as LaunchBenchError {
            #expect(error.errorDescription?.contains("samples.jsonl") == true)
        }
    }

    @Test func timestampsKeepTheirMillisecondsThroughARoundTrip() throws {
        struct Box: Codable { var date: Date }
        let json = Data(#"{"date":"2026-11-20T10:00:01.037Z"}"#.utf8)
        let box = try JSONCoding.decoder().decode(Box.self, from: json)
        #expect(JSONCoding.timestamp(box.date) == "2026-11-20T10:00:01.037Z")
        #expect(try JSONCoding.encoder().encode(box) == json)
        #expect(JSONCoding.timestamp(Date(timeIntervalSince1970: 0.9996)) == "1970-01-01T00:00:01.000Z")
    }

    @Test func runManifestRoundTripsAndToleratesOddFields() throws {
        let manifest = RunManifest(
            runID: "r1", startedAt: Date(timeIntervalSince1970: 1_700_000_000), host: .init(name: "mac"),
            app: .init(bundleID: "com.x", version: "1.0", build: "7"),
            options: .init(iterations: 10, cold: "reinstall", warm: 2),
            devices: [
                DeviceInfo(udid: "U", name: "A", productType: "iPhone12,1", osVersion: "14.8", buildVersion: "18H17")
            ])
        let decoded = try JSONCoding.decoder().decode(RunManifest.self, from: JSONCoding.encoder().encode(manifest))
        #expect(decoded == manifest)
        let odd =
            #"{"runID": 42, "app": {"bundleID": "com.y", "version": 3}, "devices": [{"udid": "bad"}], "options": "fast", "future": true}"#
        let tolerant = try JSONCoding.decoder().decode(RunManifest.self, from: Data(odd.utf8))
        #expect(tolerant.runID == nil && tolerant.app?.bundleID == "com.y" && tolerant.app?.version == nil)
        #expect(tolerant.devices.isEmpty && tolerant.options == nil)
    }
}
