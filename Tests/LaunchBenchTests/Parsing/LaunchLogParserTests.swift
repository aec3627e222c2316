import LaunchBench
import Testing

/// Targeted behaviours of the incremental parser, on small hand-written inputs.
@Suite struct LaunchLogParserTests {
    static let summary = """
        Total pre-main time: 316.07 milliseconds (100.0%)
                 dylib loading time: 236.72 milliseconds (74.8%)
                rebase/binding time:  13.95 milliseconds (4.4%)
                    ObjC setup time:  13.11 milliseconds (4.1%)
                   initializer time:  52.28 milliseconds (16.5%)
                   slowest intializers :
                     libSystem.B.dylib :   5.91 milliseconds (1.8%)
                            Networking :  32.91 milliseconds (10.4%)

        """

    @Test func readsSummaryFedOneByteAtATime() {
        var parser = LaunchLogParser()
        for byte in Array(Self.summary.utf8) { parser.feed([byte]) }
        let records = parser.finish()
        #expect(records.count == 1)
        let record = records[0]
        #expect(record.totalPremainMs == 316.07)
        #expect(record.dylibLoadingMs == 236.72)
        #expect(record.rebaseBindingMs == 13.95)
        #expect(record.objcSetupMs == 13.11)
        #expect(record.initializerMs == 52.28)
        #expect(
            record.slowestInitializers == [
                InitializerTime(image: "libSystem.B.dylib", ms: 5.91), InitializerTime(image: "Networking", ms: 32.91),
            ])
        #expect(record.warnings.isEmpty)
    }

    @Test func progressReportsBlockEndMarkersAndDone() {
        var parser = LaunchLogParser()
        let lines = Self.summary.split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines.dropLast(2) { parser.feed(Array((line + "\n").utf8)) }
        #expect(!parser.progress.statisticsComplete)
        parser.feed(Array("\n".utf8))  // dyld's empty line ends the block
        #expect(parser.progress.statisticsComplete)
        parser.feed(Array("[launchbench] mark=main t=401.5\n[launchbench] mark=firstFrame t=9".utf8))
        #expect(parser.progress.markers == ["main": 401.5])
        parser.feed(Array("12.25\n[launchbench] done\n".utf8))
        #expect(parser.progress.markers == ["main": 401.5, "firstFrame": 912.25])
        #expect(parser.progress.done)
        let record = parser.finishSingleLaunch()
        #expect(record.totalPremainMs == 316.07)
        #expect(record.markers == ["main": 401.5, "firstFrame": 912.25])
        #expect(record.done)
    }

    @Test func splitsInsideUTF8Character() {
        let text =
            "dyld[12]: <4c4c44a6-5555-3144-a1bd-f878e0600d6b> /private/var/App.app/Frameworks/Ünïcödé.framework/Ünïcödé\n"
        let bytes = Array(text.utf8)
        let cut = bytes.firstIndex(of: 0xC3)! + 1  // between the two bytes of "Ü"
        var parser = LaunchLogParser()
        parser.feed(bytes[..<cut])
        parser.feed(bytes[cut...])
        let record = parser.finishSingleLaunch()
        #expect(
            record.loadedLibraries == [
                LoadedImage(
                    path: "/private/var/App.app/Frameworks/Ünïcödé.framework/Ünïcödé",
                    uuid: "4C4C44A6-5555-3144-A1BD-F878E0600D6B")
            ])
        #expect(record.loadedLibraries[0].pathInsideAppBundle == "Frameworks/Ünïcödé.framework/Ünïcödé")
    }

    @Test func wrapArtefactIsNullWithWarning() {
        let text = """
            Total pre-main time: 1.2 seconds (100.0%)
                     dylib loading time: 411015771.5 seconds (34252981013.9%)
                    rebase/binding time:  93.17 milliseconds (7.6%)
                        ObjC setup time:  53.84 milliseconds (4.4%)
                       initializer time: 622.75 milliseconds (50.9%)
                       slowest intializers :
                         libSystem.B.dylib : 411015771.6 seconds (34252981013.9%)

            """
        let records = LaunchLogParser.parse(Array(text.utf8))
        #expect(records.count == 1)
        #expect(records[0].totalPremainMs == 1200)
        #expect(records[0].dylibLoadingMs == nil)
        #expect(records[0].slowestInitializers == [InitializerTime(image: "libSystem.B.dylib", ms: nil)])
        #expect(records[0].warnings.count == 2)
        #expect(records[0].warnings.allSatisfy { $0.contains("wrap-around") })
    }

    @Test func emptyInputHasNoLaunch() {
        var parser = LaunchLogParser()
        #expect(parser.finish().isEmpty)
        #expect(parser.finishSingleLaunch() == LaunchRecord())
    }

    @Test func progressBarCarriageReturnsEndLines() {
        var parser = LaunchLogParser()
        parser.feed(Array("Loading 10%\rLoading 20%\rdyld[1]: <no uuid> /usr/lib/libA.dylib\r".utf8))
        parser.feed(Array("\n[launchbench] done\n".utf8))  // CR at the end of one piece, LF at the start of the next
        let records = parser.finish()
        #expect(records.map(\.loadedLibraries) == [[LoadedImage(path: "/usr/lib/libA.dylib")]])
        #expect(parser.lineCount == 4)
        #expect(parser.unrecognizedLineCount == 2)
    }

    @Test func overlongLineKeepsItsTailForAGluedDyldLine() {
        var parser = LaunchLogParser()
        let junk = [UInt8](repeating: UInt8(ascii: "x"), count: 3 << 20)
        var offset = 0
        while offset < junk.count {
            parser.feed(junk[offset..<min(junk.count, offset + 65536)])
            offset += 65536
        }
        parser.feed(Array("dyld[1]: <no uuid> /usr/lib/libA.dylib\n".utf8))
        let record = parser.finishSingleLaunch()
        #expect(record.loadedLibraries == [LoadedImage(path: "/usr/lib/libA.dylib")])
        #expect(parser.unrecognizedLineCount == 0)
    }
}
