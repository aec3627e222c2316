import Foundation
import LaunchBench
import Testing

@testable import DeviceEmulator

/// The emulated dyld's text against the real captures in Fixtures/dyld (copied shapes).
@Suite struct DyldOutputTests {
    /// Counters with no bookkeeping parts, so the summary shows exactly the given phases.
    static func counters(
        dylib: UInt64, rebaseBinding: UInt64, objc: UInt64, initializer: UInt64, dof: UInt64 = 0,
        initializers: [(String, UInt64)] = [], pause: UInt64 = 0, rebind: UInt64 = 0
    ) -> DyldCounters {
        DyldCounters(
            loadLibrariesUs: dylib + pause, debuggerPauseUs: pause, rebaseUs: rebaseBinding / 10,
            bindUs: rebaseBinding - rebaseBinding / 10 + rebind, weakBindUs: 0, rebindCacheUs: rebind, dofUs: dof,
            objcSetupUs: objc, initTotalUs: objc + initializer,
            initializers: initializers.map { name, us in (name, us + (name.hasPrefix("libSystem.") ? objc : 0)) },
            imagesLoaded: 396, imagesFromSharedCache: 390, segmentsMapped: 21, pagesMapped: 400, pagesPrefetched: 20,
            rebaseFixups: 18_064, bindingFixups: 528_059, lazyFixedUp: 0, lazyTotal: 0, symbolTrieSearches: 1_301_730,
            symbolTableBinarySearches: 0, imagesDefiningWeakSymbols: 41, imagesUsingWeakSymbols: 105)
    }

    static let statistics = ["DYLD_PRINT_STATISTICS": "1"]

    @Test func summaryMatchesTheIOS13CaptureByteForByte() throws {
        // fixtures/dyld/01-ios13.1-iphone11pro-four-runs-back-to-back.txt, first block.
        let capture = try String(
            contentsOfFile: Self.fixture("01-ios13.1-iphone11pro-four-runs-back-to-back.txt"), encoding: .utf8)
        let expected = try #require(capture.components(separatedBy: "\n\n").first) + "\n\n"
        let c = Self.counters(
            dylib: 236_720, rebaseBinding: 13_950, objc: 13_110, initializer: 52_280, dof: 10,
            initializers: [
                ("libSystem.B.dylib", 5_910), ("libBacktraceRecording.dylib", 9_050), ("Networking", 32_910),
            ],
            pause: 4_000, rebind: 2_000)
        let env = Self.statistics.merging(["DYLD_INSERT_LIBRARIES": "/usr/lib/libBacktraceRecording.dylib"]) { $1 }
        let lines = DyldOutput(osVersion: OSVersion(13, 1), environment: env).statisticsLines(c)
        #expect(lines.map { $0 + "\n" }.joined() == expected)
    }

    @Test func secondsAndAnOnlyAppFrameworkListMatchTheIPhone8Capture() throws {
        // fixtures/dyld/08-iphone8-only-app-framework-in-slowest-trailing-blank.txt
        let fixture = try String(
            contentsOfFile: Self.fixture("08-iphone8-only-app-framework-in-slowest-trailing-blank.txt"), encoding: .utf8
        )
        let c = Self.counters(
            dylib: 452_120, rebaseBinding: 93_170, objc: 53_840, initializer: 622_750, dof: 120,
            initializers: [("ServiceCore", 417_150)])
        let lines = DyldOutput(osVersion: OSVersion(11, 4), environment: Self.statistics).statisticsLines(c)
        #expect(lines.map { $0 + "\n" }.joined() == fixture)
    }

    @Test func paddingFollowsTheValueSize() {
        #expect(DyldTimeFormat.line("x", 123_450, of: 200_000) == "x: 123.45 milliseconds (61.7%)")
        #expect(DyldTimeFormat.line("x", 12_345, of: 200_000) == "x:  12.34 milliseconds (6.1%)")
        #expect(DyldTimeFormat.line("x", 1_060, of: 1_060) == "x:   1.06 milliseconds (100.0%)")
        #expect(DyldTimeFormat.line("x", 1_990_000, of: 2_000_000) == "x: 1.9 seconds (99.5%)")
        #expect(DyldTimeFormat.line("x", 5, of: 2_000_000) == "x:   0.00 milliseconds (0.0%)")
        #expect(DyldTimeFormat.commas(528_059) == "528,059")
        #expect(DyldTimeFormat.commas(0) == "0")
        #expect(DyldTimeFormat.commas(2_128_372) == "2,128,372")
        #expect(DyldTimeFormat.rightAligned("Networking", width: 30).utf8.count == 30)
        // Padding counts bytes: a UTF-8 name looks shorter than it is.
        #expect(DyldTimeFormat.rightAligned("启动", width: 10) == "    启动")
    }

    @Test func detailsBlockHasTheShapeOfTheCapture() throws {
        let c = Self.counters(
            dylib: 27_230, rebaseBinding: 4_650, objc: 15_190, initializer: 42_610,
            initializers: [("libSystem.B.dylib", 3_570)], pause: 469_430, rebind: 223_910)
        let env = ["DYLD_PRINT_STATISTICS": "1", "DYLD_PRINT_STATISTICS_DETAILS": "1", "DYLD_LIBRARY_PATH": "/x"]
        let lines = DyldOutput(osVersion: OSVersion(13, 5), environment: env).statisticsLines(c)
        let fixture = try String(
            contentsOfFile: Self.fixture("16-stats-plus-details-combined-blank-separator.txt"), encoding: .utf8
        )
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Same line labels in the same order (the capture stops after the lazily-fixed-up line).
        let blank = try #require(lines.firstIndex(of: ""))
        let expectedLabels = fixture[(fixture.firstIndex(of: "")! + 1)...].filter { !$0.isEmpty }.map(Self.label)
        let labels = lines[(blank + 1)...].prefix(expectedLabels.count).map(Self.label)
        #expect(Array(labels) == expectedLabels)
        #expect(lines.contains("  total segments mapped: 21, into 400 pages"))
        #expect(lines.contains("  total binding fixups: 528,059"))
        #expect(lines.contains("  total rebase fixups:  18,064"))
        #expect(lines.last == "total images using weak symbols:  105")
        // Summary = details minus debugger pause and redone cache bindings.
        #expect(lines[0] == "Total pre-main time:  89.68 milliseconds (100.0%)")
        #expect(lines.contains { $0.hasPrefix("  total debugger pause time: 469.43 milliseconds") })
    }

    @Test func iOS12DetailsCountPrefetchedPages() {
        let c = Self.counters(dylib: 100_000, rebaseBinding: 10_000, objc: 5_000, initializer: 20_000)
        let lines = DyldOutput(osVersion: OSVersion(12, 5), environment: ["DYLD_PRINT_STATISTICS_DETAILS": "1"])
            .statisticsLines(c)
        #expect(lines.contains("  total segments mapped: 21, into 400 pages with 20 pages pre-fetched"))
        #expect(!lines.contains { $0.hasPrefix("Total pre-main time") })  // details alone: no summary
    }

    @Test func oldBlockHasTheShapeOfTheIOS9Capture() throws {
        let c = Self.counters(
            dylib: 1_300_000, rebaseBinding: 300_000, objc: 100_000, initializer: 500_000, dof: 170,
            initializers: [("libSystem.B.dylib", 20_000), ("Sample", 30_000)])
        let lines = DyldOutput(osVersion: OSVersion(9, 3, 5), environment: Self.statistics).statisticsLines(c)
        let fixture = try String(
            contentsOfFile: Self.fixture("14-ios9-iphone5s-old-format-seconds.txt"), encoding: .utf8
        )
        .split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(fixture.count).map(Self.label)) == fixture.map(Self.label))
        #expect(lines[0] == "total time: 2.2 seconds (100.0%)")
        #expect(lines[4] == "total dtrace DOF registration time: 0.17 milliseconds (0.0%)")
        #expect(!lines.contains { $0.hasPrefix("Total pre-main") || $0.hasPrefix(" ") && $0.contains("intializers") })
        // Every initializer, right-aligned in 21 bytes, with its raw time (ObjC setup included in libSystem's).
        #expect(lines.contains("    libSystem.B.dylib : 120.00 milliseconds (5.4%)"))
        #expect(lines.contains("total initializer time: 600.00 milliseconds (27.2%)"))
        #expect(lines.last == "total images using weak symbols:  105")
    }

    @Test(arguments: [
        (OSVersion(9, 3), [String: String](), true),
        (OSVersion(12, 5), [:], true),
        (OSVersion(13, 7), [:], false),
        (OSVersion(14, 8), ["DYLD_IMAGE_SUFFIX": "_x"], true),
        (OSVersion(14, 8), ["DYLD_FRAMEWORK_PATH": "/x"], true),
        (OSVersion(13, 7), ["DYLD_INSERT_LIBRARIES": ""], true),
        (OSVersion(15, 8), ["DYLD_INSERT_LIBRARIES": "/x"], false),
        (OSVersion(17, 5), ["DYLD_LIBRARY_PATH": "/x"], false),
    ])
    func statisticsArePrintedOnlyWhereThatDyldPrintsThem(version: OSVersion, extra: [String: String], prints: Bool) {
        let c = Self.counters(dylib: 100_000, rebaseBinding: 10_000, objc: 5_000, initializer: 20_000)
        let env = Self.statistics.merging(extra) { $1 }
        #expect(DyldOutput(osVersion: version, environment: env).statisticsLines(c).isEmpty == !prints)
        // Without the variable nothing is printed anywhere.
        #expect(DyldOutput(osVersion: version, environment: extra).statisticsLines(c).isEmpty)
    }

    @Test func libraryLinesTakeEachVersionsForm() {
        let images = [LoadedImage(path: "/var/A.app/A", uuid: "0D53847E-AF5F-3ACF-B51F-A15DEA4DEC58")]
        let on = ["DYLD_PRINT_LIBRARIES": "1"]
        #expect(
            DyldOutput(osVersion: OSVersion(12, 5), environment: on).libraryLines(images, pid: 7)
                == ["dyld: loaded: /var/A.app/A"])
        #expect(
            DyldOutput(osVersion: OSVersion(13, 7), environment: on.merging(["DYLD_LIBRARY_PATH": "/x"]) { $1 })
                .libraryLines(images, pid: 7) == ["dyld: loaded: <0D53847E-AF5F-3ACF-B51F-A15DEA4DEC58> /var/A.app/A"])
        #expect(
            DyldOutput(osVersion: OSVersion(14, 8), environment: on).libraryLines(images, pid: 7)
                == ["dyld: <0D53847E-AF5F-3ACF-B51F-A15DEA4DEC58> /var/A.app/A"])
        #expect(
            DyldOutput(osVersion: OSVersion(16, 7), environment: on).libraryLines(images, pid: 4321)
                == ["dyld[4321]: <0D53847E-AF5F-3ACF-B51F-A15DEA4DEC58> /var/A.app/A"])
        #expect(DyldOutput(osVersion: OSVersion(16, 7), environment: [:]).libraryLines(images, pid: 1).isEmpty)
    }

    @Test func printedPhasesAddUpToTheTotalAsDyldTruncates() {
        var random = SeededRandom(seed: 3)
        for _ in 0..<200 {
            let c = DyldCounters.make(
                dylibLoadingMs: random.unit() * 900, rebaseBindingMs: random.unit() * 90,
                objcSetupMs: random.unit() * 60,
                initializerMs: random.unit() * 150, initializers: [("libSystem.B.dylib", 2)], bundleImageCount: 3,
                random: &random)
            let lines = DyldOutput(osVersion: OSVersion(12, 5), environment: Self.statistics).statisticsLines(c)
            let values = lines.prefix(5).map(Self.milliseconds)
            let parts = values[1...].reduce(0, +)
            // Each part is truncated to 0.01 ms (or 0.1 s), the total separately; DOF adds < 0.02 ms.
            let slack = values[0] >= 1000 ? 100.0 : 0.06
            #expect(abs(values[0] - parts) <= slack, "\(lines)")
        }
    }

    // MARK: - Helpers

    /// A real capture in `Fixtures/dyld/` (copied verbatim from the team's shared fixtures).
    static func fixture(_ name: String) -> String {
        FixturePaths.root.appendingPathComponent("dyld/\(name)").path
    }

    /// The text before the first colon or digit (the line's label).
    static func label(_ line: String) -> String {
        String(line.prefix { $0 != ":" }).trimmingCharacters(in: .whitespaces)
    }

    static func milliseconds(_ line: String) -> Double {
        let afterColon = line.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
        let parts = afterColon.split(separator: " ")
        let value = Double(parts[0])!
        return parts[1] == "seconds" ? value * 1000 : value
    }
}

@Suite struct DyldWrapTests {
    /// fixtures (pkrmf/proof-of-concept README): `rebase/binding time: 411015771.6 seconds (192173638.0%)`
    /// with `Total pre-main time: 393.79 milliseconds`.
    @Test func aNegativeValuePrintsLikeDylds64BitWrap() {
        // The percentage depends on the exact tick count of the total, which µs cannot reproduce: check the form.
        let line = DyldTimeFormat.line("        rebase/binding time", 0 &- 18_750, of: 393_790)
        #expect(line == "        rebase/binding time: 411015771.6 seconds (192297551.6%)")
        let shape = /^        rebase\/binding time: 411015771\.[56] seconds \(\d+\.\d%\)$/
        for negative in [UInt64(1), 999, 18_750, 100_000] {
            let text = DyldTimeFormat.line("        rebase/binding time", 0 &- negative, of: 393_790)
            #expect(text.wholeMatch(of: shape) != nil, "\(text)")
        }
    }

    @Test func theWrapFaultBreaksOnlyTheRebaseBindingLine() {
        let profile = AppProfile(faults: Faults(dyldWrap: LaunchSelector(launches: [1])))
        let plan = LaunchPlanTests.planner(OSVersion(12, 5)).plan(
            app: LaunchPlanTests.app(profile), environment: ["DYLD_PRINT_STATISTICS": "1"], kind: .cold, launchNumber: 1
        )
        let lines = LaunchPlanTests.text(plan).split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("Total pre-main time: ") && lines[0].contains("milliseconds"))
        #expect(lines[2].hasPrefix("        rebase/binding time: 41101577"), "\(lines[2])")
        #expect(lines[2].hasSuffix("%)"))
        #expect(
            lines[1].contains("milliseconds") && lines[3].contains("milliseconds") && lines[4].contains("milliseconds"))
        let next = LaunchPlanTests.planner(OSVersion(12, 5)).plan(
            app: LaunchPlanTests.app(profile), environment: ["DYLD_PRINT_STATISTICS": "1"], kind: .warm, launchNumber: 2
        )
        #expect(!LaunchPlanTests.text(next).contains("411015771"))
    }
}
