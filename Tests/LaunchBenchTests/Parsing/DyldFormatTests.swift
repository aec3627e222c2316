import Foundation
import LaunchBench
import Testing

/// Formats the shared captures do not cover (complete details and old blocks, dyld3/dyld4 library
/// lines, markers, splitting of many launches), written after DYLD-FORMATS.md.
@Suite struct DyldFormatTests {
    private func parse(_ text: String) -> (records: [LaunchRecord], unrecognized: Int) {
        LaunchLogParser.parse(Array(text.utf8), cuts: [])
    }

    static let detailsOnly = """
          total time: 1.1 seconds (100.0%)
          total images loaded:  401 (381 from dyld shared cache)
          total segments mapped: 77, into 10,427 pages
          total images loading time: 706.12 milliseconds (62.1%)
          total load time in ObjC:  30.05 milliseconds (2.6%)
          total debugger pause time: 480.40 milliseconds (42.2%)
          total dtrace DOF registration time:   0.08 milliseconds (0.0%)
          total rebase fixups:  152,347
          total rebase fixups time:  21.37 milliseconds (1.8%)
          total binding fixups: 523,279
          total binding fixups time: 241.93 milliseconds (21.2%)
          total weak binding fixups time:   1.09 milliseconds (0.0%)
          total redo shared cached bindings time: 245.29 milliseconds (21.5%)
          total bindings lazily fixed up: 34 of 1,230
          total time in initializers and ObjC +load: 136.41 milliseconds (11.9%)
                                 libSystem.B.dylib :   6.92 milliseconds (0.6%)
                       libBacktraceRecording.dylib :   7.02 milliseconds (0.6%)
                                            My App : 101.33 milliseconds (8.9%)
        total symbol trie searches:    37924
        total symbol table binary searches:    0
        total images defining weak symbols:  39
        total images using weak symbols:  93

        """

    @Test func detailsOnlyBlockGivesDerivedSummary() throws {
        var parser = LaunchLogParser()
        parser.feed(Array(Self.detailsOnly.utf8))
        #expect(parser.progress.statisticsComplete)
        let records = parser.finish()
        #expect(records.count == 1)
        let record = try #require(records.first)
        // dylib = 706.12 − 480.40; rebase/binding = 21.37 + 241.93 + 1.09 − 245.29; ObjC and initializers as printed.
        #expect(record.dylibLoadingMs == 225.72)
        #expect(record.rebaseBindingMs == 19.10)
        #expect(record.objcSetupMs == 30.05)
        #expect(record.initializerMs == 136.41)
        // The total was printed in seconds, so the parts plus the DOF time give it: 225.72 + 19.10 + 30.05 + 136.41 + 0.08.
        #expect(record.totalPremainMs == 411.36)
        #expect(record.warnings.count == 1)
        #expect(record.warnings.first?.hasPrefix("dyld printed times of 1 s and over in tenths of a second") == true)
        let details = try #require(record.details)
        #expect(details.totalTimeMs == 1100)
        #expect(details.imagesLoaded == 401 && details.imagesFromSharedCache == 381)
        #expect(details.segmentsMapped == 77 && details.pagesMapped == 10427 && details.pagesPrefetched == nil)
        #expect(details.rebaseFixups == 152_347 && details.bindingFixups == 523_279)
        #expect(details.bindingsLazilyFixedUp == 34 && details.bindingsLazilyTotal == 1230)
        #expect(
            details.imageInitializers.map(\.image) == ["libSystem.B.dylib", "libBacktraceRecording.dylib", "My App"])
        #expect(details.imageInitializers.map(\.ms) == [6.92, 7.02, 101.33])
        #expect(details.symbolTrieSearches == 37924 && details.symbolTableBinarySearches == 0)
        #expect(details.imagesDefiningWeakSymbols == 39 && details.imagesUsingWeakSymbols == 93)
    }

    @Test func detailsTotalInMillisecondsIsTotalMinusPauseMinusRedo() throws {
        let text = Self.detailsOnly.replacingOccurrences(
            of: "total time: 1.1 seconds", with: "total time: 911.77 milliseconds")
        let record = try #require(parse(text).records.first)
        #expect(record.totalPremainMs == 186.08)  // 911.77 − 480.40 − 245.29
    }

    @Test func negativeDerivedValueIsNullWithWarning() throws {
        // A total in ms: with 406.12 the parts no longer add up to a total of 1.1 s.
        let text = Self.detailsOnly.replacingOccurrences(
            of: "images loading time: 706.12", with: "images loading time: 406.12"
        ).replacingOccurrences(of: "total time: 1.1 seconds", with: "total time: 837.05 milliseconds")
        let record = try #require(parse(text).records.first)
        #expect(record.dylibLoadingMs == nil)  // 406.12 − 480.40 < 0
        #expect(record.totalPremainMs != nil)
        #expect(record.warnings.count == 1)
        #expect(record.warnings.first?.contains("dylib loading time derived from the details is negative") == true)
    }

    @Test func wrappedDetailsValueMakesItsDerivedValuesNull() throws {
        let text = Self.detailsOnly.replacingOccurrences(
            of: "debugger pause time: 480.40 milliseconds (42.2%)",
            with: "debugger pause time: 411015771.6 seconds (34252981013.9%)")
        let record = try #require(parse(text).records.first)
        #expect(record.details?.debuggerPauseTimeMs == nil)
        #expect(record.dylibLoadingMs == nil)
        #expect(record.totalPremainMs == nil)
        #expect(record.rebaseBindingMs == 19.10)
        #expect(record.warnings.count == 1)
        #expect(record.warnings.first?.contains("411015771.6 seconds") == true)
    }

    static let oldBlock = """
        total time: 2.2 seconds (100.0%)
        total images loaded:  323 (309 from dyld shared cache)
        total segments mapped: 41, into 2315 pages with 136 pages pre-fetched
        total images loading time: 1.3 seconds (60.4%)
        total dtrace DOF registration time: 0.17 milliseconds (0.0%)
        total rebase fixups:  97,218
        total rebase fixups time: 48.23 milliseconds (2.1%)
        total binding fixups: 123,456
        total binding fixups time: 412.07 milliseconds (18.5%)
        total weak binding fixups time: 2.12 milliseconds (0.0%)
        total bindings lazily fixed up: 40 of 1,700
        total initializer time: 417.58 milliseconds (18.7%)
            libSystem.B.dylib : 3.21 milliseconds (0.1%)
               libc++.1.dylib : 1.05 milliseconds (0.0%)
                        MyApp : 350.10 milliseconds (15.7%)
        total symbol trie searches:    12345
        total symbol table binary searches:    678
        total images defining weak symbols:  20
        total images using weak symbols:  51

        """

    @Test func oldBlockGivesItsSummary() throws {
        let (records, unrecognized) = parse(Self.oldBlock)
        #expect(unrecognized == 0)
        let record = try #require(records.first)
        #expect(records.count == 1)
        // dyld ≤360 printed the total and images loading in seconds. By hand: the other parts sum to 880.17 ms;
        // binding's 412.07 ms at 18.5 % caps the total at 412.08 / 0.185 = 2227.46 ms, so images loading is at
        // most 2227.46 − 880.17 = 1347.29 ms; its 60.4 % puts it at least at 0.604 · 880.17 / 0.396 = 1342.47 ms.
        #expect(abs((record.dylibLoadingMs ?? 0) - 1344.88) <= 0.02)  // the middle of its bounds
        #expect(abs((record.totalPremainMs ?? 0) - 2225.05) <= 0.02)  // 1344.88 + 880.17
        let total = try #require(record.bounds.first { $0.metric == Metric.totalPremainMs })
        #expect(abs(total.lowMs - 2222.64) <= 0.02 && abs(total.highMs - 2227.46) <= 0.01)
        #expect(record.rebaseBindingMs == 462.42)  // 48.23 + 412.07 + 2.12
        #expect(record.objcSetupMs == nil)  // not printed by dyld ≤360
        #expect(record.initializerMs == 417.58)
        #expect(
            record.details?.imageInitializers == [
                InitializerTime(image: "libSystem.B.dylib", ms: 3.21),
                InitializerTime(image: "libc++.1.dylib", ms: 1.05),
                InitializerTime(image: "MyApp", ms: 350.10),
            ])
        #expect(record.details?.pagesPrefetched == 136)
        #expect(record.warnings.count == 1)
    }

    @Test func oldBlockWithShippedIOS9InitializerWording() throws {
        let text = Self.oldBlock.replacingOccurrences(
            of: "total initializer time:", with: "total time in initializers and ObjC setup:")
        let record = try #require(parse(text).records.first)
        #expect(record.initializerMs == 417.58)
        #expect(abs((record.totalPremainMs ?? 0) - 2225.05) <= 0.02)
        #expect(record.warnings.count == 1)
    }

    @Test func summaryThenDetailsIsOneLaunchTwoSummariesAreTwo() {
        let summary = """
            Total pre-main time:  89.70 milliseconds (100.0%)
                     dylib loading time:  27.23 milliseconds (30.3%)
                    rebase/binding time:   4.65 milliseconds (5.1%)
                        ObjC setup time:  15.19 milliseconds (16.9%)
                       initializer time:  42.61 milliseconds (47.5%)
                       slowest intializers :

            """
        let both = parse(summary + Self.detailsOnly).records
        #expect(both.count == 1)
        #expect(both.first?.totalPremainMs == 89.70)  // the printed summary wins over derived values
        #expect(both.first?.details?.totalTimeMs == 1100)
        #expect(both.first?.slowestInitializers == [])
        // Indentation and empty lines stripped by an author: still the summary's own details.
        let stripped = (summary + Self.detailsOnly).split(separator: "\n").map { $0.drop { $0 == " " } }.joined(
            separator: "\n")
        #expect(parse(stripped + "\n").records.count == 1)
        // A summary cut short is another launch's: the details that follow are a launch of their own.
        let cut = parse("Total pre-main time:  53.37 milliseconds (100.0%)\n" + Self.detailsOnly).records
        #expect(cut.map(\.totalPremainMs) == [53.37, 411.36])
        let two = parse(summary + summary).records
        #expect(two.count == 2)
        #expect(two.map(\.totalPremainMs) == [89.70, 89.70])
        // Blocks without the empty line between them still split at the repeated first line.
        let glued = parse(summary.replacingOccurrences(of: ":\n\n", with: ":\n") + summary).records
        #expect(glued.count == 2)
    }

    @Test func launchesSplitAtStatisticsMarkersAndDone() throws {
        let app = "/private/var/containers/Bundle/Application/0C1F/My App.app"
        let text = """
            dyld: loaded: \(app)/My App
            dyld: loaded: /usr/lib/libSystem.B.dylib
            Total pre-main time: 300.00 milliseconds (100.0%)
                     dylib loading time: 200.00 milliseconds (66.6%)
                    rebase/binding time:  50.00 milliseconds (16.6%)
                        ObjC setup time:  25.00 milliseconds (8.3%)
                       initializer time:  25.00 milliseconds (8.3%)
                       slowest intializers :

            dyld: loaded: \(app)/Frameworks/Late.framework/Late
            [launchbench] mark=main t=350
            [launchbench] mark=firstFrame t=800.5
            [launchbench] done
            dyld: loaded: \(app)/My App
            Total pre-main time: 250.00 milliseconds (100.0%)
                     dylib loading time: 150.00 milliseconds (60.0%)
                    rebase/binding time:  50.00 milliseconds (20.0%)
                        ObjC setup time:  25.00 milliseconds (10.0%)
                       initializer time:  25.00 milliseconds (10.0%)
                       slowest intializers :

            dyld: loaded: /usr/lib/libLazy.dylib
            Total pre-main time: 200.00 milliseconds (100.0%)
            """
        let records = parse(text + "\n").records
        #expect(records.count == 3)
        // Loaded after the statistics but before the app's markers: the running app's dlopen.
        #expect(
            records[0].loadedLibraries.map(\.path) == [
                "\(app)/My App", "/usr/lib/libSystem.B.dylib", "\(app)/Frameworks/Late.framework/Late",
            ])
        #expect(
            records[0].loadedLibraries.map(\.pathInsideAppBundle) == ["My App", nil, "Frameworks/Late.framework/Late"])
        #expect(records[0].markers == ["main": 350, "firstFrame": 800.5])
        #expect(records[0].done)
        #expect(records[1].totalPremainMs == 250)
        #expect(records[1].loadedLibraries.map(\.path) == ["\(app)/My App"])
        #expect(!records[1].done)
        // Loaded between two statistics blocks: the next process's image.
        #expect(records[2].loadedLibraries.map(\.path) == ["/usr/lib/libLazy.dylib"])
        #expect(records[2].totalPremainMs == 200)
        #expect(records[2].dylibLoadingMs == nil)
        // Without another block, libraries after the statistics stay with their launch.
        let tail = parse("Total pre-main time: 1.0 seconds (100.0%)\ndyld: loaded: /usr/lib/libLate.dylib\n").records
        #expect(tail.count == 1)
        #expect(tail.first?.loadedLibraries.map(\.path) == ["/usr/lib/libLate.dylib"])
    }

    @Test func markersWithoutStatisticsSplitOnRepeatOrDone() {
        let text = """
            dyld[101]: <no uuid> /private/var/A.app/A
            [launchbench] mark=main t=120.5
            [launchbench] mark=main t=130
            [launchbench] mark=firstFrame t=400
            [launchbench] done
            [launchbench] mark=main t=99
            """
        let records = parse(text + "\n").records
        #expect(records.map(\.markers) == [["main": 120.5], ["main": 130, "firstFrame": 400], ["main": 99]])
        #expect(records.map(\.done) == [false, true, false])
        #expect(records[0].loadedLibraries.count == 1)
    }

    @Test func libraryLinesOfEveryDyldGeneration() {
        let text = """
            dyld: <0d53847e-af5f-3acf-b51f-a15dea4dec58> /usr/lib/libA.dylib
            dyld: /usr/lib/libB.dylib
            dyld[4242]: <no uuid> /private/var/containers/Bundle/Application/X/My.app/Frameworks/C.framework/C
            I/O progress 42%dyld[4242]: <no uuid> /usr/lib/libD.dylib
            2020-01-01 12:00:00.000 My[1:2] hello dyld[4242]: <72857ADA-AA97-398B-B089-F50B2E89064B> /usr/lib/libE.dylib
            dyld: loaded: <BCD3F031-4A3F-32CF-AB9A-D6EE7A7499D4> /usr/lib/lib F.dylib
            dyld: Using shared cached for /usr/lib/system/libsystem_c.dylib
            dyld[4242]: some other dyld4 message
            dyld: closure 0x7fffef8f278c not used because DYLD_INSERT_LIBRARIES changed
            dyld[4242]: <NOT-A-UUID> /usr/lib/libG.dylib
            """
        let (records, unrecognized) = parse(text + "\n")
        #expect(records.count == 1)
        #expect(
            records.first?.loadedLibraries == [
                LoadedImage(path: "/usr/lib/libA.dylib", uuid: "0D53847E-AF5F-3ACF-B51F-A15DEA4DEC58"),
                LoadedImage(path: "/usr/lib/libB.dylib"),
                LoadedImage(path: "/private/var/containers/Bundle/Application/X/My.app/Frameworks/C.framework/C"),
                LoadedImage(path: "/usr/lib/libD.dylib"),
                LoadedImage(path: "/usr/lib/libE.dylib", uuid: "72857ADA-AA97-398B-B089-F50B2E89064B"),
                LoadedImage(path: "/usr/lib/lib F.dylib", uuid: "BCD3F031-4A3F-32CF-AB9A-D6EE7A7499D4"),
            ])
        #expect(unrecognized == 3)  // shared-cache note, other dyld4 message, bad UUID
    }

    @Test func quotedBoldTabbedCRLFAndBlankLinesInsideABlock() throws {
        let text =
            "\r\n>   \r\n> **Total pre-main time: 722.04 milliseconds (100.0%)**\r\n"
            + ">\t dylib loading time: 192.04 milliseconds (26.5%)\r\n"
            + "> > rebase/binding time: 375.07 milliseconds (51.9%)\r\n"
            + "   \t \r\n"
            + "**ObjC setup time:**  80.15 milliseconds (11.1%)\r\n"
            + "  initializer time:  74.63 milliseconds (10.3%)  \r\n"
            + "  slowest intializers :\r\n"
            + "        Ünïcødé Kit :  12.50 milliseconds (1.7%)\r\n"
            + "some app log line in between\r\n"
            + "  name with : colon inside : 46.08 milliseconds (6.3%)\r\n"
            + "\r\n"
        let (records, unrecognized) = parse(text)
        #expect(unrecognized == 1)
        let record = try #require(records.first)
        #expect(records.count == 1)
        #expect(record.totalPremainMs == 722.04)
        #expect(record.dylibLoadingMs == 192.04)
        #expect(record.rebaseBindingMs == 375.07)
        #expect(record.objcSetupMs == 80.15)
        #expect(record.initializerMs == 74.63)
        #expect(
            record.slowestInitializers == [
                InitializerTime(image: "Ünïcødé Kit", ms: 12.50),
                InitializerTime(image: "name with : colon inside", ms: 46.08),
            ])
        #expect(record.warnings == [])
    }

    @Test func emptySlowestListThenProgramOutput() throws {
        let text = """
            Total pre-main time:   1.06 milliseconds (100.0%)
                     dylib loading time:   0.40 milliseconds (37.7%)
                    rebase/binding time:   0.04 milliseconds (3.9%)
                        ObjC setup time:   0.26 milliseconds (24.8%)
                       initializer time:   0.32 milliseconds (30.2%)
                       slowest intializers :

            done in: 3.00 milliseconds (100%)
            """
        let (records, unrecognized) = parse(text + "\n")
        #expect(records.first?.slowestInitializers == [])
        #expect(records.first?.warnings == [])
        #expect(unrecognized == 1)  // after dyld's empty line the list is closed
    }

    @Test func markersAnywhereInALineAndUnreadableOnes() throws {
        let text = """
            2017-12-30 16:59:23.055 My[8:9] [launchbench] mark=didFinishLaunching t=512.25
            [launchbench] mark=main t=abc
            [launchbench] mark= t=5
            [launchbench] mark=firstFrame t=1e3
            [launchbench] mark=firstFrame t=900
            [launchbench] done
            """
        let record = try #require(parse(text + "\n").records.first)
        #expect(record.markers == ["didFinishLaunching": 512.25, "firstFrame": 900])
        #expect(record.done)
        #expect(record.warnings.count == 3)
        #expect(record.warnings.allSatisfy { $0.hasPrefix("unreadable app marker") })
    }

    @Test func lastLineWithoutLineBreakIsReadWithAWarning() throws {
        var parser = LaunchLogParser()
        parser.feed(Array("[launchbench] mark=main t=12".utf8))
        let record = parser.finishSingleLaunch()
        #expect(record.markers == ["main": 12])
        #expect(record.warnings == ["the output ended inside a line; its value may be cut short"])
    }

    @Test func singleLaunchMergesAndWarnsAboutASecondBlock() {
        var parser = LaunchLogParser()
        let text = """
            dyld: loaded: /usr/lib/libA.dylib
            Total pre-main time: 100.00 milliseconds (100.0%)
            [launchbench] mark=main t=150
            Total pre-main time: 120.00 milliseconds (100.0%)
            [launchbench] mark=main t=170
            [launchbench] done

            """
        parser.feed(Array(text.utf8))
        let record = parser.finishSingleLaunch()
        #expect(record.totalPremainMs == 100)
        #expect(record.markers == ["main": 150])
        #expect(record.done)
        #expect(record.loadedLibraries.map(\.path) == ["/usr/lib/libA.dylib"])
        #expect(record.warnings.contains("2 dyld statistics blocks in one launch's output; the first one is used"))
    }

    @Test func unreadableTimesAreNullNeverZero() throws {
        let text = """
            Total pre-main time: 12.3.4 milliseconds (100.0%)
                     dylib loading time: milliseconds (30.3%)
                    rebase/binding time:   4.65 millisec
                        ObjC setup time:  15.19 minutes (16.9%)
                       initializer time:  42.61 milliseconds

            """
        let record = try #require(parse(text).records.first)
        #expect(record.totalPremainMs == nil)
        #expect(record.dylibLoadingMs == nil)
        #expect(record.rebaseBindingMs == nil)
        #expect(record.objcSetupMs == nil)
        #expect(record.initializerMs == 42.61)  // the percentage is not needed
        #expect(record.warnings.filter { $0.contains("unreadable value") }.count == 4)
    }
}
