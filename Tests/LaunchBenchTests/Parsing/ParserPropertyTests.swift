import Foundation
import LaunchBench
import Testing

/// Seeded random mutations of the captures: what must hold for any input.
/// Each case is reproducible from its seed (the test argument).
@Suite struct ParserPropertyTests {
    /// Other programs' output: never empty, never a dyld statistics, library or marker line.
    static let noise: [String] = [
        "2017-12-30 16:59:23.055 MyApp[86875:8474416] loaded 42 items in 3.5 s",
        "_dyld_get_image_name(12)",
        "dlopen(/usr/lib/libz.1.dylib, 0x00000001)",
        "dyld: Using shared cached for /usr/lib/libobjc.A.dylib",
        "INFO:     Started server process [78210]",
        "Loading weights:  37%|███▋      | 145/391 [00:00<00:00, 1449.38it/s]",
        "[Firebase/Core][I-COR000001] Configuring the default app.",
        "메시지: GET /health -> {\"status\":\"ok\"} 200 12.5ms",
        "            __TEXT at 0x7FFF69D44000->0x7FFF69D48000",
        "error: timeout after 30 seconds (retry 2 of 5)",
        "\u{1B}[32mOK\u{1B}[0m 17 tests",
        "total files: 5",
        "> quoted remark: nothing to see",
        "**bold** statement 99.5 milliseconds",
        "dyld[77]: warning: could not load inserted library",
    ]

    static var corpus: [String] {
        var texts = ParserFixtures.names.compactMap { try? ParserFixtures.bytes($0) }.map {
            String(decoding: $0, as: UTF8.self)
        }
        texts += [DyldFormatTests.detailsOnly, DyldFormatTests.oldBlock]
        texts.append(
            """
            dyld[4242]: <no uuid> /private/var/containers/Bundle/Application/X/My.app/My
            dyld[4242]: <72857ADA-AA97-398B-B089-F50B2E89064B> /usr/lib/libE.dylib
            [launchbench] mark=main t=350.25
            [launchbench] mark=didFinishLaunching t=612
            [launchbench] mark=firstFrame t=800.5
            [launchbench] done

            """)
        return texts.filter { !$0.isEmpty }
    }

    static let seeds: [UInt64] = Array(1...300)

    @Test(arguments: seeds)
    func noiseChunksAndLineEndsChangeNothing(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let corpus = Self.corpus
        let pieces = (0..<Int.random(in: 1...3, using: &random)).map { _ in corpus.randomElement(using: &random)! }
        let text = pieces.map { $0.hasSuffix("\n") ? $0 : $0 + "\n" }.joined(separator: "[launchbench] done\n")
        let baseline = LaunchLogParser.parse(Array(text.utf8), cuts: [])

        // Foreign lines between any two lines, foreign text glued before library and marker lines.
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()  // after the final "\n"
        let added = Int.random(in: 0...12, using: &random)
        for _ in 0..<added {
            lines.insert(Self.noise.randomElement(using: &random)!, at: Int.random(in: 0...lines.count, using: &random))
        }
        for index in lines.indices
        where lines[index].hasPrefix("dyld[") || lines[index].hasPrefix("dyld: loaded:")
            || lines[index].hasPrefix("[launchbench]")
        {
            if Bool.random(using: &random) { lines[index] = "progress 12%|" + lines[index] }
        }
        let lineEnd = Bool.random(using: &random) ? "\r\n" : "\n"
        let noisy = Array(lines.map { $0 + lineEnd }.joined().utf8)
        let cuts = (0..<Int.random(in: 0...20, using: &random)).map { _ in
            Int.random(in: 0...noisy.count, using: &random)
        }.sorted()
        let result = LaunchLogParser.parse(noisy, cuts: cuts)

        #expect(result.records == baseline.records, "seed \(seed)")
        #expect(result.unrecognized == baseline.unrecognized + added, "seed \(seed)")
    }

    /// `parse` writes each launch as soon as the parser completes it (`takeFinished`): taking them while
    /// reading must give the same launches, in order, as reading the whole input first.
    @Test(arguments: seeds.prefix(100))
    func takingFinishedLaunchesWhileReadingChangesNothing(seed: UInt64) throws {
        var random = SeededRandom(seed: seed &* 104_729)
        let corpus = Self.corpus
        let text = (0..<Int.random(in: 1...6, using: &random)).map { _ in corpus.randomElement(using: &random)! }
            .map { $0.hasSuffix("\n") ? $0 : $0 + "\n" }.joined(separator: "[launchbench] done\n")
        let bytes = Array(text.utf8)
        let baseline = LaunchLogParser.parse(bytes)

        var parser = LaunchLogParser()
        var streamed: [LaunchRecord] = []
        var start = 0
        let cuts = (0..<Int.random(in: 0...30, using: &random)).map { _ in
            Int.random(in: 0...bytes.count, using: &random)
        }
        for cut in cuts.sorted() + [bytes.count] where cut >= start {
            parser.feed(bytes[start..<cut])
            streamed += parser.takeFinished()
            start = cut
        }
        streamed += parser.finish()

        #expect(streamed == baseline, "seed \(seed)")
    }

    @Test(arguments: seeds)
    func truncatedInputNeverInventsNumbers(seed: UInt64) throws {
        var random = SeededRandom(seed: seed &* 7919)
        let corpus = Self.corpus
        var text = (0..<Int.random(in: 1...3, using: &random)).map { _ in corpus.randomElement(using: &random)! }
            .joined()
        // A wrapped value here and there, as arm64 dyld prints it.
        if Bool.random(using: &random), let range = text.range(of: "milliseconds", options: .backwards) {
            let start =
                text[..<range.lowerBound].lastIndex(where: { $0 == ":" }).map { text.index(after: $0) }
                ?? range.lowerBound
            text.replaceSubrange(start..<range.upperBound, with: " 411015771.5 seconds")
        }
        var bytes = Array(text.utf8)
        bytes = Array(bytes[..<Int.random(in: 0...bytes.count, using: &random)])
        let cuts = (0..<Int.random(in: 0...10, using: &random)).map { _ in
            Int.random(in: 0...bytes.count, using: &random)
        }.sorted()
        let records = LaunchLogParser.parse(bytes, cuts: cuts).records

        let allowed = Self.numbers(in: bytes)
        for record in records {
            for value in Self.printedValues(record) {
                #expect(value.isFinite && value >= 0, "seed \(seed): \(value)")
                #expect(allowed.contains(Self.key(value)), "seed \(seed): \(value) is not in the input")
            }
            for metric in Metric.preMain.prefix(5) {
                guard let value = record.metrics[metric] else { continue }
                #expect(value.isFinite && value >= 0 && value < 1e9, "seed \(seed): \(value)")
                // Read from times dyld printed in seconds: within its bounds, which lie within 0.2 s of the input.
                if let bounds = record.bounds.first(where: { $0.metric == metric }) {
                    #expect(bounds.lowMs <= value && value <= bounds.highMs, "seed \(seed): \(value) \(bounds)")
                    #expect(bounds.highMs - bounds.lowMs <= 200, "seed \(seed): \(bounds)")
                    #expect(
                        allowed.contains { abs($0 / 10_000 - value) <= 200 },
                        "seed \(seed): \(value) is far from the input")
                    continue
                }
                let derived = record.details.map(Self.derivedCandidates) ?? []
                #expect(
                    allowed.contains(Self.key(value)) || derived.contains { abs($0 - value) < 1e-6 },
                    "seed \(seed): \(value) is neither in the input nor a sum/difference of the details")
            }
        }
    }

    // MARK: - Helpers

    /// Every value the record says it read from the text (not the derived summary numbers).
    static func printedValues(_ record: LaunchRecord) -> [Double] {
        var values = record.slowestInitializers.compactMap(\.ms) + Array(record.markers.values)
        if let d = record.details {
            let times: [Double?] = [
                d.totalTimeMs, d.imagesLoadingTimeMs, d.objcLoadTimeMs, d.debuggerPauseTimeMs,
                d.dtraceDOFRegistrationTimeMs,
                d.rebaseFixupsTimeMs, d.bindingFixupsTimeMs, d.weakBindingFixupsTimeMs,
                d.redoSharedCachedBindingsTimeMs,
                d.initializerTimeMs,
            ]
            let counts: [Int?] = [
                d.imagesLoaded, d.imagesFromSharedCache, d.segmentsMapped, d.pagesMapped, d.pagesPrefetched,
                d.rebaseFixups,
                d.bindingFixups, d.bindingSymbolLookups, d.bindingsLazilyFixedUp, d.bindingsLazilyTotal,
                d.symbolTrieSearches,
                d.symbolTableBinarySearches, d.imagesDefiningWeakSymbols, d.imagesUsingWeakSymbols,
            ]
            values +=
                times.compactMap { $0 } + counts.compactMap { $0.map(Double.init) }
                + d.imageInitializers.compactMap(\.ms)
        }
        return values
    }

    /// The sums and differences DYLD-FORMATS.md derives summary numbers from.
    static func derivedCandidates(_ d: DyldDetails) -> [Double] {
        func sum(_ plus: [Double?], _ minus: [Double?] = []) -> Double? {
            guard plus.allSatisfy({ $0 != nil }), minus.allSatisfy({ $0 != nil }) else { return nil }
            return ((plus.reduce(0) { $0 + $1! } - minus.reduce(0) { $0 + $1! }) * 100).rounded() / 100
        }
        let dylib = sum([d.imagesLoadingTimeMs], [d.debuggerPauseTimeMs])
        let rebase = sum(
            [d.rebaseFixupsTimeMs, d.bindingFixupsTimeMs, d.weakBindingFixupsTimeMs], [d.redoSharedCachedBindingsTimeMs]
        )
        return [
            dylib, rebase,
            sum([d.rebaseFixupsTimeMs, d.bindingFixupsTimeMs, d.weakBindingFixupsTimeMs]),
            sum([d.totalTimeMs], [d.debuggerPauseTimeMs, d.redoSharedCachedBindingsTimeMs]),
            sum([dylib, rebase, d.objcLoadTimeMs, d.initializerTimeMs, d.dtraceDOFRegistrationTimeMs]),
        ].compactMap { $0 }
    }

    /// Values compared at 0.0001 resolution, so 1.2 × 1000 and 1200 are the same.
    static func key(_ value: Double) -> Double { (value * 10_000).rounded() }

    /// Every decimal in the text (and each of its prefixes, commas dropped), also × 1000 (seconds → ms), as `key`s.
    static func numbers(in bytes: [UInt8]) -> Set<Double> {
        var result: Set<Double> = []
        var i = 0
        while i < bytes.count {
            guard bytes[i] >= 0x30 && bytes[i] <= 0x39 else {
                i += 1
                continue
            }
            var token = ""
            while i < bytes.count,
                (bytes[i] >= 0x30 && bytes[i] <= 0x39) || bytes[i] == UInt8(ascii: ".") || bytes[i] == UInt8(ascii: ",")
            {
                if bytes[i] != UInt8(ascii: ",") { token.append(Character(UnicodeScalar(bytes[i]))) }
                i += 1
            }
            for end in token.indices.dropFirst() + [token.endIndex] {
                if let value = Double(token[..<end]) {
                    result.insert(key(value))
                    result.insert(key(value * 1000))
                }
            }
        }
        return result
    }
}
